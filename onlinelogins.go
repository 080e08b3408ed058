package telco

// OnlineLoginsService manages management-portal users (operations 4 and 5).
type OnlineLoginsService service
