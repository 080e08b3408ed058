package telco

import (
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// Client-side validation: every rule of the service's interface document,
// written once. Each params type has a Validate method that the client calls
// before sending (unless WithClientValidation(false)) and that telcotest,
// the fake service, calls on what it receives. Field names are the wire
// names, and codes are the ones the service uses where it documents them
// (PARAMETER_REQUIRED, INVALID_PHONENUMBER_FORMAT, CONFLICTING_PARAMETERS),
// PARAMETER_INVALID otherwise.

// ScheduleClockSkew is how far the client lets SendMessageParams.Schedule
// pass the service's window (at most 14 days ahead, less than 1 hour in the
// past) measured on the local clock. The client's and the service's clocks
// differ a little; the service has the final word near the edges.
const ScheduleClockSkew = 30 * time.Second

// Schedule window of an SMS send, from the interface document.
const (
	MaxScheduleAhead = 14 * 24 * time.Hour
	MaxScheduleAgo   = time.Hour
)

// fieldErrs collects the problems found in one params value.
type fieldErrs []FieldError

func (f *fieldErrs) add(code, field, msg string) {
	*f = append(*f, FieldError{Code: code, FieldName: field, Message: msg})
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
	if v != "" && !isE164(v) {
		f.add(CodeInvalidPhoneNumberFormat, field, field+" must be an E.164 number with a leading +, e.g. +61412345678")
	}
}

func (f *fieldErrs) email(field, v string) {
	if v != "" && !isEmail(v) {
		f.invalid(field, field+" must be a valid e-mail address")
	}
}

func (f *fieldErrs) webhookMethod(field, v string) {
	if v != "" && !isWebhookMethod(v) {
		f.invalid(field, field+" must be GET or POST")
	}
}

func (f *fieldErrs) url(field, v string) {
	if v != "" && !isHTTPURL(v) {
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

// validateParams runs check when client-side validation is on.
func (c *Client) validateParams(op string, check func() fieldErrs) error {
	if !c.validate {
		return nil
	}
	return check().err(op)
}

// isE164 reports whether s is an E.164 number written with its leading +:
// a + and 7 to 15 digits, the first not 0.
func isE164(s string) bool {
	return len(s) > 1 && s[0] == '+' && isE164Digits(s[1:])
}

// isE164Digits is isE164 without the +, the form number paths use.
func isE164Digits(s string) bool {
	if len(s) < 7 || len(s) > 15 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isSenderID reports whether s is an alphanumeric sender ID: 1 to 11 of
// A-Z, a-z, 0-9 and space, at least one of them a letter.
func isSenderID(s string) bool {
	if len(s) < 1 || len(s) > 11 {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= 'A' && b <= 'Z', b >= 'a' && b <= 'z':
			letter = true
		case b >= '0' && b <= '9', b == ' ':
		default:
			return false
		}
	}
	return letter
}

// isEmail reports whether s is a bare address (no display name) with a
// local part and a dotted domain.
func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	dom := s[at+1:]
	return at > 0 && strings.Contains(dom, ".") && !strings.HasPrefix(dom, ".") &&
		!strings.HasSuffix(dom, ".") && !strings.ContainsAny(s, " \t")
}

// isWebhookMethod accepts GET and POST in any case: the service documents
// upper case and its own SDKs send "Get"/"Post".
func isWebhookMethod(s string) bool {
	return strings.EqualFold(s, "GET") || strings.EqualFold(s, "POST")
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// looksLikeNumber reports whether s is made of digits, spaces, + and the
// punctuation of written phone numbers: what someone meant as a number.
func looksLikeNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9', b == '+', b == ' ', b == '-', b == '(', b == ')':
		default:
			return false
		}
	}
	return s != ""
}

// Validate checks p against the rules of the send operations, at the
// current time. See check for the rules.
func (p *SendMessageParams) Validate() error {
	if p == nil {
		return nilParams("Messages.Send")
	}
	return p.check(time.Now()).err("Messages.Send")
}

// check applies the SMS rules:
//   - To is required and E.164 with a leading +;
//   - From is empty (a leased sender ID), E.164 with +, or an alphanumeric
//     sender ID of 1 to 11 of A-Z a-z 0-9 and space with at least one letter;
//   - Text is required;
//   - Schedule, when set, is at most 14 days ahead and less than 1 hour in
//     the past, give or take ScheduleClockSkew;
//   - webhook methods are GET or POST, webhook URIs absolute http(s) URLs;
//   - the lease-only fields (ForwardToSms, ForwardFromSms, ForwardToEmail,
//     ForwardFromEmail, WebhookURI, WebhookMethod) are set only when From is
//     empty, and hold numbers, sender IDs and e-mail addresses as named.
func (p *SendMessageParams) check(now time.Time) fieldErrs {
	var f fieldErrs
	if f.required("To", p.To) {
		f.phone("To", p.To)
	}
	switch {
	case p.From == "", isE164(p.From), isSenderID(p.From):
	case looksLikeNumber(p.From):
		f.add(CodeInvalidPhoneNumberFormat, "From", "From must be an E.164 number with a leading +, an alphanumeric sender ID, or empty for a leased sender ID")
	default:
		f.invalid("From", "From as an alphanumeric sender ID must be 1 to 11 of A-Z, a-z, 0-9 and space, with at least one letter")
	}
	f.required("Text", p.Text)
	if !p.Schedule.IsZero() {
		switch {
		case p.Schedule.After(now.Add(MaxScheduleAhead + ScheduleClockSkew)):
			f.invalid("Schedule", "Schedule must be at most 14 days ahead")
		case p.Schedule.Before(now.Add(-MaxScheduleAgo - ScheduleClockSkew)):
			f.invalid("Schedule", "Schedule must not be 1 hour or more in the past")
		}
	}
	f.url("DeliveryReceiptWebhookUri", p.DeliveryReceiptWebhookURI)
	f.webhookMethod("DeliveryReceiptWebhookMethod", p.DeliveryReceiptWebhookMethod)

	if p.From != "" {
		for _, lf := range [...]struct{ name, v string }{
			{"ForwardToSms", p.ForwardToSms}, {"ForwardFromSms", p.ForwardFromSms},
			{"ForwardToEmail", p.ForwardToEmail}, {"ForwardFromEmail", p.ForwardFromEmail},
			{"WebhookUri", p.WebhookURI}, {"WebhookMethod", p.WebhookMethod},
		} {
			if lf.v != "" {
				f.add(CodeConflictingParameters, lf.name, lf.name+" applies only to a leased sender ID (From empty)")
			}
		}
		return f
	}
	f.phone("ForwardToSms", p.ForwardToSms)
	if v := p.ForwardFromSms; v != "" && !isE164(v) && !isSenderID(v) {
		f.invalid("ForwardFromSms", "ForwardFromSms must be an E.164 number with + or an alphanumeric sender ID")
	}
	f.email("ForwardToEmail", p.ForwardToEmail)
	f.email("ForwardFromEmail", p.ForwardFromEmail)
	f.url("WebhookUri", p.WebhookURI)
	f.webhookMethod("WebhookMethod", p.WebhookMethod)
	return f
}

// Validate checks that DateFrom and DateTo are set with DateFrom before
// DateTo, that Status and Direction are values the service lists, and that
// the page position is not negative.
func (p *FindMessagesParams) Validate() error {
	if p == nil {
		return nilParams("Messages.Find")
	}
	return p.check().err("Messages.Find")
}

func (p *FindMessagesParams) check() fieldErrs {
	var f fieldErrs
	if p.DateFrom.IsZero() {
		f.add(CodeParameterRequired, "Date_From", "Date_From is required")
	}
	if p.DateTo.IsZero() {
		f.add(CodeParameterRequired, "Date_To", "Date_To is required")
	}
	if !p.DateFrom.IsZero() && !p.DateTo.IsZero() && !p.DateFrom.Before(p.DateTo) {
		f.invalid("Date_To", "Date_To (exclusive) must be after Date_From")
	}
	if p.Status != "" && !p.Status.Known() {
		f.invalid("Status", "Status must be Processing, Submitted, Delivered, Failed or Received")
	}
	if p.Direction != "" && !p.Direction.Known() {
		f.invalid("Direction", "Direction must be Transmit or Receive")
	}
	f.list(p.ListParams)
	return f
}

// Validate checks that Name, MainDomain and TimeZone are given. Whether the
// time zone is one the service recognises is left to the service
// (UNKNOWN_TIME_ZONE), whose list of Windows zone IDs changes over time.
func (p *CreatePropertyParams) Validate() error {
	if p == nil {
		return nilParams("Properties.Create")
	}
	return p.check().err("Properties.Create")
}

func (p *CreatePropertyParams) check() fieldErrs {
	var f fieldErrs
	f.required("Name", p.Name)
	f.required("MainDomain", p.MainDomain)
	f.required("TimeZone", p.TimeZone)
	return f
}

// Validate checks that a name, domain or time zone being set is not empty.
func (p *UpdatePropertyParams) Validate() error {
	if p == nil {
		return nilParams("Properties.Update")
	}
	return p.check().err("Properties.Update")
}

func (p *UpdatePropertyParams) check() fieldErrs {
	var f fieldErrs
	for _, s := range [...]struct {
		name string
		v    *string
	}{{"Name", p.Name}, {"MainDomain", p.MainDomain}, {"TimeZone", p.TimeZone}} {
		if s.v != nil && strings.TrimSpace(*s.v) == "" {
			f.invalid(s.name, s.name+" must not be set to an empty value")
		}
	}
	return f
}

func nilParams(op string) error {
	return &ValidationError{Op: op, Fields: []FieldError{{Code: CodeParameterRequired, Message: "params are required"}}}
}
