package telco

// PortingService submits number porting requests and reads their status (operations 16 and 17).
type PortingService service
