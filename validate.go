package telco

import (
	"strings"

	"github.com/telcosdk/telco/internal/rules"
)

// Client-side validation: every rule of the service's interface document,
// written once. Each params type has a Validate method, at the end of its
// service file, that the client calls before sending (unless
// WithClientValidation(false)) and that telcotest, the fake service, calls
// on what it receives; the rule primitives both share (E.164, sender IDs,
// passwords, CIDRs, ...) are in internal/rules. This file holds the
// machinery the rules share: collecting problems, path identifiers, and
// the check every method runs before sending. Field names are the wire
// names, and codes are the ones the service uses where it documents them
// (PARAMETER_REQUIRED, INVALID_PHONENUMBER_FORMAT, CONFLICTING_PARAMETERS),
// PARAMETER_INVALID otherwise.

// fieldErrs collects the problems found in one params value.
type fieldErrs []FieldError

func (f *fieldErrs) add(code, field, msg string) { *f = append(*f, newFieldError(code, field, msg)) }

// newFieldError makes one problem; the shared rules of internal/rules build
// theirs with it.
func newFieldError(code, field, msg string) FieldError {
	return FieldError{Code: code, FieldName: field, Message: msg}
}

func (f *fieldErrs) invalid(field, msg string) { f.add(CodeParameterInvalid, field, msg) }

// required records a missing value and reports whether v is present.
func (f *fieldErrs) required(field, v string) bool {
	if strings.TrimSpace(v) == "" {
		f.add(CodeParameterRequired, field, field+" is required")
		return false
	}
	return true
}

func (f *fieldErrs) phone(field, v string) {
	if v != "" && !rules.IsE164(v) {
		f.add(CodeInvalidPhoneNumberFormat, field, field+" must be an E.164 number with a leading +, e.g. +61412345678")
	}
}

// number is phone for fields where the interface document writes E.164
// numbers without their +: both forms pass.
func (f *fieldErrs) number(field, v string) {
	if v != "" && !rules.IsE164(v) && !rules.IsE164("+"+v) {
		f.add(CodeInvalidPhoneNumberFormat, field, field+" must be an E.164 number, e.g. +61412345678 or 61412345678")
	}
}

func (f *fieldErrs) email(field, v string) {
	if v != "" && !rules.IsEmail(v) {
		f.invalid(field, field+" must be a valid e-mail address")
	}
}

func (f *fieldErrs) webhookMethod(field, v string) {
	if v != "" && !rules.IsWebhookMethod(v) {
		f.invalid(field, field+" must be GET or POST")
	}
}

func (f *fieldErrs) url(field, v string) {
	if v != "" && !rules.IsHTTPURL(v) {
		f.invalid(field, field+" must be an absolute http or https URL")
	}
}

func (f *fieldErrs) list(lp ListParams) {
	if lp.Count < 0 {
		f.invalid("Results_Count", "Results_Count must not be negative")
	}
	if lp.Skip < 0 {
		f.invalid("Results_Skip", "Results_Skip must not be negative")
	}
}

// check applies the rules every Results_Skip listing shares; ListParams
// itself is declared with the paging types in paging.go.
func (lp ListParams) check() fieldErrs {
	var f fieldErrs
	f.list(lp)
	return f
}

func (f fieldErrs) err(op string) error {
	if len(f) == 0 {
		return nil
	}
	return &ValidationError{Op: op, Fields: f}
}

// pathParam checks an identifier that goes into the path. It is checked even
// with validation off: an empty segment would address another operation.
func pathParam(op, name, v string) error {
	if strings.TrimSpace(v) == "" {
		return &ValidationError{Op: op, Fields: []FieldError{{
			Code: CodeParameterRequired, FieldName: name, Message: name + " is required"}}}
	}
	return nil
}

// precheck is what a method checks before sending: the path identifier
// (always, even with validation off), that params were given, and their
// rules when validation is on.
func (c *Client) precheck(op, idName, id string, given bool, check func() fieldErrs) error {
	if err := pathParam(op, idName, id); err != nil {
		return err
	}
	if !given {
		return nilParams(op)
	}
	return c.validateParams(op, check)
}

// validateParams runs check when client-side validation is on.
func (c *Client) validateParams(op string, check func() fieldErrs) error {
	if !c.validate {
		return nil
	}
	return check().err(op)
}

// nilParams reports params that op requires but was not given.
func nilParams(op string) error {
	return &ValidationError{Op: op, Fields: []FieldError{{Code: CodeParameterRequired, Message: "params are required"}}}
}
