package telco

import (
	"fmt"
	"strings"
	"time"

	"github.com/telcosdk/telco/internal/rules"
)

// Client-side validation: every rule of the service's interface document,
// written once. Each params type has a Validate method that the client calls
// before sending (unless WithClientValidation(false)) and that telcotest,
// the fake service, calls on what it receives. Field names are the wire
// names, and codes are the ones the service uses where it documents them
// (PARAMETER_REQUIRED, INVALID_PHONENUMBER_FORMAT, CONFLICTING_PARAMETERS),
// PARAMETER_INVALID otherwise.

// Schedule window of an SMS send, from the interface document.
const (
	MaxScheduleAhead = 14 * 24 * time.Hour
	MaxScheduleAgo   = time.Hour
)

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
	case p.From == "", rules.IsE164(p.From), rules.IsSenderID(p.From):
	case rules.LooksLikeNumber(p.From):
		f.add(CodeInvalidPhoneNumberFormat, "From", "From must be an E.164 number with a leading +, an alphanumeric sender ID, or empty for a leased sender ID")
	default:
		f.invalid("From", "From as an alphanumeric sender ID must be 1 to 11 of A-Z, a-z, 0-9 and space, with at least one letter")
	}
	f.required("Text", p.Text)
	if !p.Schedule.IsZero() {
		switch {
		case p.Schedule.After(now.Add(MaxScheduleAhead)):
			f.invalid("Schedule", "Schedule must be at most 14 days ahead")
		case !p.Schedule.After(now.Add(-MaxScheduleAgo)):
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
	if v := p.ForwardFromSms; v != "" && !rules.IsE164(v) && !rules.IsSenderID(v) {
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
	if v := p.SendSmsFrom; v != "" && !rules.IsSenderID(v) {
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
		if msg := rules.LoginPasswordProblem(p.Password); msg != "" {
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
		if code, msg := rules.AUCallerIDProblem(p.DefaultCallerID); code != "" {
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
		if _, msg := rules.SIPCIDR(a); msg != "" {
			f.invalid(fmt.Sprintf("SipTrunkIpAddresses[%d].IpAddress", i), "IpAddress "+msg)
		}
	}
	if p.Credentials != nil && p.Credentials.Password != "" {
		if msg := rules.SIPPasswordProblem(p.Credentials.Password); msg != "" {
			f.invalid("SipTrunkCredentials.Password", msg)
		}
	}
	for i, cc := range p.AllowedCountries {
		if !rules.IsCountryCode(cc) {
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
	if f.required("CountryCode", p.CountryCode) && !rules.IsCountryCode(p.CountryCode) {
		f.invalid("CountryCode", "CountryCode must be an ISO country code of 2 or 3 letters, e.g. AU")
	}
	return f
}

// lookupCheck checks the numbers of a lookup: at least one, each in local
// form or E.164.
func lookupCheck(numbers []string) fieldErrs {
	return rules.LookupNumbers(numbers, newFieldError)
}
