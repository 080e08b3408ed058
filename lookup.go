package telco

// LookupService looks up carrier and porting details of numbers (operation 9).
type LookupService service
