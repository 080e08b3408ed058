package telco

// AddressesService adds and removes the account's addresses (operation 18).
type AddressesService service
