package telco

// NumberBlocksService searches number blocks (operations 1 and 2).
type NumberBlocksService service
