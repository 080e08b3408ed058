package telco

// SipTrunksService creates and reads SIP trunks (operations 13 to 15).
type SipTrunksService service
