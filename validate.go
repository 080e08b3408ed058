package telco

import (
	"fmt"
	"net/mail"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
// past) measured on the local clock. It is zero: the client applies the
// interface document's exact window, so that what it refuses is what the
// document says the service refuses. A local clock that is off moves the
// edges by as much; the service has the final word.
const ScheduleClockSkew time.Duration = 0

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

// number is phone for fields where the interface document writes E.164
// numbers without their +: both forms pass.
func (f *fieldErrs) number(field, v string) {
	if v != "" && !isE164(v) && !isE164("+"+v) {
		f.add(CodeInvalidPhoneNumberFormat, field, field+" must be an E.164 number, e.g. +61412345678 or 61412345678")
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

// IsE164 reports whether s is an E.164 number written with its leading +:
// a + and 7 to 15 digits, the first not 0. It is the rule every number
// field of the SDK is checked with.
func IsE164(s string) bool { return isE164(s) }

// ValidateLookupNumbers checks the numbers of a lookup as
// LookupService.NumberDetails does: at least one, each in local form
// (digits) or E.164 with +.
func ValidateLookupNumbers(numbers []string) error {
	return lookupCheck(numbers).err("Lookup.NumberDetails")
}

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
//     the past (an earlier time is sent now by the service);
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
		case !p.Schedule.After(now.Add(-MaxScheduleAgo - ScheduleClockSkew)):
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

// isCountryCode reports whether s is an ISO 3166 letter code: two ASCII
// letters, or three. The document gives two-letter codes as its example
// ("e.g. two-letter") without ruling out the others; the service answers
// COUNTRY_NOT_FOUND for a code it does not know.
func isCountryCode(s string) bool {
	if len(s) != 2 && len(s) != 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return true
}

func isASCIILetter(b byte) bool { return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' }

// isUUID reports whether s has the 8-4-4-4-12 hexadecimal form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// loginPasswordSpecials are the special characters an online login
// password must draw one of.
const loginPasswordSpecials = "!@#$%^&*()_+"

// loginPasswordProblem says what an online login password lacks: at least
// 12 characters with a-z, A-Z, 0-9 and one of !@#$%^&*()_+. It never
// repeats the password.
func loginPasswordProblem(pw string) string {
	var lower, upper, digit, special bool
	for _, r := range pw {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune(loginPasswordSpecials, r):
			special = true
		}
	}
	if utf8.RuneCountInString(pw) < 12 || !lower || !upper || !digit || !special {
		return "Password must have at least 12 characters with a lower-case letter, an upper-case letter, a digit and one of " + loginPasswordSpecials
	}
	return ""
}

// sipPasswordProblem says what a SIP trunk password lacks: at least 10
// characters with a lower-case letter, an upper-case letter, a digit and a
// special character (anything else but a space), and no character three
// times in a row. It never repeats the password.
func sipPasswordProblem(pw string) string {
	var lower, upper, digit, special bool
	var prev rune
	run := 0
	for _, r := range pw {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		case !unicode.IsSpace(r) && !unicode.IsLetter(r):
			special = true
		}
		if r == prev {
			run++
		} else {
			prev, run = r, 1
		}
		if run > 2 {
			return "Password must not have more than 2 identical characters in a row"
		}
	}
	if utf8.RuneCountInString(pw) < 10 || !lower || !upper || !digit || !special {
		return "Password must have at least 10 characters with a lower-case letter, an upper-case letter, a digit and a special character"
	}
	return ""
}

// nonPublicIPv4 are the ranges a SIP trunk may not name: this network,
// private, CGNAT, loopback, link-local, IETF protocol assignments,
// documentation, 6to4 relay, benchmarking, multicast, reserved and the
// broadcast address.
var nonPublicIPv4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// sipCIDR parses a SIP trunk address: an IPv4 CIDR of /24 to /32, or a bare
// IPv4 address (taken as /32), public only. It returns the form to send and
// what is wrong, if anything.
func sipCIDR(s string) (string, string) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return s, "must be an IPv4 CIDR such as 8.8.8.0/24"
		}
		s += "/32"
	}
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() {
		return s, "must be an IPv4 CIDR such as 8.8.8.0/24"
	}
	if p.Bits() < 24 {
		return s, "must be /24 or smaller (up to /32 for a single address)"
	}
	for _, r := range nonPublicIPv4 {
		if r.Overlaps(p) {
			return s, "must be a public address; " + r.String() + " is not"
		}
	}
	return s, ""
}

// auCallerIDProblem says why s cannot be a SIP trunk's default caller ID:
// it must be an Australian E.164 number (+61) that is neither shared-rate
// (13, 1300) nor toll-free (1800).
func auCallerIDProblem(s string) (code, msg string) {
	switch {
	case !isE164(s):
		return CodeInvalidPhoneNumberFormat, "DefaultCallerId must be an E.164 number with a leading +, e.g. +61299999999"
	case !strings.HasPrefix(s, "+61") || strings.HasPrefix(s, "+610"):
		return CodeParameterInvalid, "DefaultCallerId must be an Australian number (+61)"
	case strings.HasPrefix(s, "+6113"):
		return CodeParameterInvalid, "DefaultCallerId must not be a shared-rate (13, 1300) number"
	case strings.HasPrefix(s, "+611800"):
		return CodeParameterInvalid, "DefaultCallerId must not be a toll-free (1800) number"
	}
	return "", ""
}

// isLookupNumber accepts what number lookup takes: an E.164 number with +,
// or a number in local form (digits, possibly with a leading 0).
func isLookupNumber(s string) bool {
	if strings.HasPrefix(s, "+") {
		return isE164(s)
	}
	if len(s) < 3 || len(s) > 15 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Validate checks that AccountSid or PropertySid is given and the list
// options are sound.
func (p *NumberBlockSearchParams) Validate() error {
	if p == nil {
		return nilParams("NumberBlocks.Search")
	}
	return p.check().err("NumberBlocks.Search")
}

func (p *NumberBlockSearchParams) check() fieldErrs {
	var f fieldErrs
	if strings.TrimSpace(p.AccountSid) == "" && strings.TrimSpace(p.PropertySid) == "" {
		f.add(CodeParameterRequired, "AccountSid", "AccountSid or PropertySid is required")
	}
	f = append(f, p.NumberBlockListParams.check()...)
	return f
}

// Validate checks that the page position is not negative and SortDir is
// asc or desc.
func (p *NumberBlockListParams) Validate() error {
	if p == nil {
		return nil
	}
	return p.check().err("NumberBlocks")
}

func (p *NumberBlockListParams) check() fieldErrs {
	var f fieldErrs
	if p.PageIndex < 0 {
		f.invalid("PageIndex", "PageIndex must not be negative")
	}
	if p.PageSize < 0 {
		f.invalid("PageSize", "PageSize must not be negative")
	}
	if d := p.SortDir; d != "" && !strings.EqualFold(d, "asc") && !strings.EqualFold(d, "desc") {
		f.invalid("SortDir", "SortDir must be asc or desc")
	}
	return f
}

// Validate checks the configuration rules of operation 3: RoutingMethod is
// Endpoint (with an E.164 EndpointNumber) or Flow (with a Flow); Recording
// is Off or Call; webhook methods are GET or POST and their URLs absolute;
// EndpointNumber and SendSmsTo are E.164 numbers, with or without the +,
// as the document writes numbers in this operation; SendSmsFrom is such a
// number or an alphanumeric sender ID; e-mail forwarding addresses are
// valid.
func (p *NumberConfigParams) Validate() error {
	if p == nil {
		return nil
	}
	return p.check().err("Numbers.Configure")
}

func (p *NumberConfigParams) check() fieldErrs {
	var f fieldErrs
	switch p.RoutingMethod {
	case "":
	case RoutingEndpoint:
		f.required("EndpointNumber", p.EndpointNumber)
	case RoutingFlow:
		f.required("Flow", p.Flow)
	default:
		f.invalid("RoutingMethod", "RoutingMethod must be Endpoint or Flow")
	}
	f.number("EndpointNumber", p.EndpointNumber)
	if r := p.Recording; r != "" && r != RecordingOff && r != RecordingCall {
		f.invalid("Recording", "Recording must be Off or Call")
	}
	if v := p.SendSmsFrom; v != "" && !isSenderID(v) {
		f.number("SendSmsFrom", v)
	}
	f.number("SendSmsTo", p.SendSmsTo)
	f.email("SendEmailFrom", p.SendEmailFrom)
	f.email("SendEmailTo", p.SendEmailTo)
	f.url("WebHookUrl", p.WebhookURL)
	f.webhookMethod("WebHookMethod", p.WebhookMethod)
	f.url("DeliveryReceiptWebHookUrl", p.DeliveryReceiptWebhookURL)
	f.webhookMethod("DeliveryReceiptWebHookMethod", p.DeliveryReceiptWebhookMethod)
	return f
}

// Validate checks the rules of operation 4: a valid e-mail address; a
// password of at least 12 characters with a-z, A-Z, 0-9 and one of
// !@#$%^&*()_+; first and last names; at least one scope, each one the
// service names.
func (p *CreateOnlineLoginParams) Validate() error {
	if p == nil {
		return nilParams("OnlineLogins.Create")
	}
	return p.check().err("OnlineLogins.Create")
}

func (p *CreateOnlineLoginParams) check() fieldErrs {
	var f fieldErrs
	if f.required("Email", p.Email) {
		f.email("Email", p.Email)
	}
	if f.required("Password", p.Password) {
		if msg := loginPasswordProblem(p.Password); msg != "" {
			f.invalid("Password", msg)
		}
	}
	f.required("FirstName", p.FirstName)
	f.required("LastName", p.LastName)
	if len(p.Scopes) == 0 {
		f.add(CodeParameterRequired, "Scopes", "Scopes needs at least one scope")
	}
	for _, s := range p.Scopes {
		if !s.Known() {
			f.invalid("Scopes", fmt.Sprintf("Scopes: %q is not a scope the service knows", string(s)))
		}
	}
	return f
}

// Validate checks the rules of operation 13; see CreateSipTrunkParams.
func (p *CreateSipTrunkParams) Validate() error {
	if p == nil {
		return nilParams("SipTrunks.Create")
	}
	return p.check().err("SipTrunks.Create")
}

func (p *CreateSipTrunkParams) check() fieldErrs {
	var f fieldErrs
	f.required("Name", p.Name)
	if f.required("DefaultCallerId", p.DefaultCallerID) {
		if code, msg := auCallerIDProblem(p.DefaultCallerID); code != "" {
			f.add(code, "DefaultCallerId", msg)
		}
	}
	switch p.Type {
	case SipTrunkIPToIP:
		if len(p.IPAddresses) == 0 {
			f.add(CodeParameterRequired, "SipTrunkIpAddresses", "SipTrunkIpAddresses is required for an IP to IP trunk (Type 0)")
		}
	case SipTrunkAuthenticated:
		if p.Credentials == nil || p.Credentials.Password == "" {
			field := "SipTrunkCredentials" // the missing parameter
			if p.Credentials != nil {
				field = "SipTrunkCredentials.Password"
			}
			f.add(CodeParameterRequired, field, "SipTrunkCredentials with a password is required for an authenticated trunk (Type 1)")
		}
	default:
		f.invalid("Type", "Type must be 0 (IP to IP) or 1 (Authenticated)")
	}
	for i, a := range p.IPAddresses {
		if _, msg := sipCIDR(a); msg != "" {
			f.invalid(fmt.Sprintf("SipTrunkIpAddresses[%d].IpAddress", i), "IpAddress "+msg)
		}
	}
	if p.Credentials != nil && p.Credentials.Password != "" {
		if msg := sipPasswordProblem(p.Credentials.Password); msg != "" {
			f.invalid("SipTrunkCredentials.Password", msg)
		}
	}
	for i, cc := range p.AllowedCountries {
		if !isCountryCode(cc) {
			f.invalid(fmt.Sprintf("SipTrunkAllowedCountries[%d].CountryCode", i), "CountryCode must be an ISO country code of 2 or 3 letters, e.g. AU")
		}
	}
	if p.ChannelLimit < 0 {
		f.invalid("ChannelLimit", "ChannelLimit must be at least 1 when set")
	}
	return f
}

// Validate checks that the filters hold values the service defines.
func (p *ListSipTrunksParams) Validate() error {
	if p == nil {
		return nil
	}
	return p.check().err("SipTrunks.List")
}

func (p *ListSipTrunksParams) check() fieldErrs {
	var f fieldErrs
	if p.Type != nil && *p.Type != SipTrunkIPToIP && *p.Type != SipTrunkAuthenticated {
		f.invalid("Type", "Type must be 0 or 1")
	}
	if p.ProvisioningState != nil && (*p.ProvisioningState < ProvisioningInactive || *p.ProvisioningState > ProvisioningDeprovisioning) {
		f.invalid("ProvisioningState", "ProvisioningState must be 0 to 3")
	}
	f.list(p.ListParams)
	return f
}

// Validate checks the rules of operation 16; see PortingRequestParams.
func (p *PortingRequestParams) Validate() error {
	if p == nil {
		return nilParams("Porting.Submit")
	}
	return p.check().err("Porting.Submit")
}

func (p *PortingRequestParams) check() fieldErrs {
	var f fieldErrs
	f.required("AuthorisedContactName", p.AuthorisedContactName)
	if f.required("AuthorisedContactEmail", p.AuthorisedContactEmail) {
		f.email("AuthorisedContactEmail", p.AuthorisedContactEmail)
	}
	f.required("DaytimeContactNumber", p.DaytimeContactNumber)
	f.required("CurrentCarrier", p.CurrentCarrier)
	f.required("CurrentCarrierAccountNo", p.CurrentCarrierAccountNo)
	switch p.PreferredPortSchedule {
	case PortASAP:
		// A date is required only with Date; with ASAP it is sent and the
		// service decides, since the document does not forbid it.
	case PortOnDate:
		if p.PreferredPortDate.IsZero() {
			f.add(CodeParameterRequired, "PreferredPortDate", "PreferredPortDate is required when PreferredPortSchedule is Date")
		}
	case "":
		f.add(CodeParameterRequired, "PreferredPortSchedule", "PreferredPortSchedule is required")
	default:
		f.invalid("PreferredPortSchedule", "PreferredPortSchedule must be ASAP or Date")
	}
	f.url("WebHookURL", p.WebhookURL)
	for i := range p.PortingNumbers {
		n := &p.PortingNumbers[i]
		name := func(field string) string { return fmt.Sprintf("PortingNumbers[%d].%s", i, field) }
		if f.required(name("Number"), n.Number) {
			f.phone(name("Number"), n.Number)
		}
		if f.required(name("PortType"), n.PortType) && n.PortType != PortTypeCatA {
			f.invalid(name("PortType"), "PortType must be Cat-A, the only type supported")
		}
		f.required(name("PortAddress"), n.PortAddress)
		switch n.IncomingActionType {
		case "":
		case IncomingFlow:
			f.required(name("IncomingActionId"), n.IncomingActionID)
		case IncomingAnsweringPoint:
			f.required(name("IncomingAnswerPoint"), n.IncomingAnswerPoint)
		default:
			f.invalid(name("IncomingActionType"), "IncomingActionType must be Answering Point or Flow")
		}
	}
	return f
}

// Validate checks that From and To are set, From before To, and the page
// position is not negative.
func (p *PortingStatusParams) Validate() error {
	if p == nil {
		return nilParams("Porting.Status")
	}
	return p.check().err("Porting.Status")
}

func (p *PortingStatusParams) check() fieldErrs {
	var f fieldErrs
	if p.From.IsZero() {
		f.add(CodeParameterRequired, "From", "From is required")
	}
	if p.To.IsZero() {
		f.add(CodeParameterRequired, "To", "To is required")
	}
	if !p.From.IsZero() && !p.To.IsZero() && !p.From.Before(p.To) {
		f.invalid("To", "To must be after From")
	}
	for i, n := range p.PortingRequestNumbers {
		if strings.TrimSpace(n) == "" || strings.Contains(n, ",") {
			f.invalid(fmt.Sprintf("PortingRequestNumbers[%d]", i), "PortingRequestNumbers entries must be non-empty and hold no comma")
		}
	}
	f.list(p.ListParams)
	return f
}

// Validate checks that Line1, City and an ISO letter CountryCode are given.
func (p *CreateAddressParams) Validate() error {
	if p == nil {
		return nilParams("Addresses.Create")
	}
	return p.check().err("Addresses.Create")
}

func (p *CreateAddressParams) check() fieldErrs {
	var f fieldErrs
	f.required("Line1", p.Line1)
	f.required("City", p.City)
	if f.required("CountryCode", p.CountryCode) && !isCountryCode(p.CountryCode) {
		f.invalid("CountryCode", "CountryCode must be an ISO country code of 2 or 3 letters, e.g. AU")
	}
	return f
}

// lookupCheck checks the numbers of a lookup: at least one, each in local
// form or E.164.
func lookupCheck(numbers []string) fieldErrs {
	var f fieldErrs
	if len(numbers) == 0 {
		f.add(CodeParameterRequired, "Numbers", "Numbers needs at least one number")
	}
	for i, n := range numbers {
		if !isLookupNumber(n) {
			f.add(CodeInvalidPhoneNumberFormat, fmt.Sprintf("Numbers[%d]", i), "a number must be in local form (digits) or E.164 with a leading +")
		}
	}
	return f
}
