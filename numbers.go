package telco

// NumbersService configures phone numbers (operation 3).
type NumbersService service
