package telcotest

import "github.com/telcosdk/telco"

// The error codes the fake answers where the service documents no code
// are named in the telco package, with the service's own; these aliases
// keep code written against their first home compiling for a release.

// CodeFlowNotFound is telco.CodeFlowNotFound.
//
// Deprecated: use telco.CodeFlowNotFound.
const CodeFlowNotFound = telco.CodeFlowNotFound

// CodeLeaseLimitReached is telco.CodeLeaseLimitReached.
//
// Deprecated: use telco.CodeLeaseLimitReached.
const CodeLeaseLimitReached = telco.CodeLeaseLimitReached

// CodeNumberAlreadyPurchased is telco.CodeNumberAlreadyPurchased.
//
// Deprecated: use telco.CodeNumberAlreadyPurchased.
const CodeNumberAlreadyPurchased = telco.CodeNumberAlreadyPurchased
