package telco

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"strings"

	"github.com/telcosdk/telco/internal/rules"
)

// NumbersService reads, lists, buys and configures the account's phone
// numbers.
type NumbersService service

// NumbersAPI is the method set of NumbersService, for code that wants to
// substitute a fake.
type NumbersAPI interface {
	Configure(ctx context.Context, number string, p *NumberConfigParams) (*NumberConfig, error)
	Get(ctx context.Context, number string) (*Number, error)
	ListByProperty(ctx context.Context, propertySid string, p *ListNumbersParams) (*Page[Number], error)
	ListByPropertyAll(ctx context.Context, propertySid string, p *ListNumbersParams) iter.Seq2[Number, error]
	ListByAccount(ctx context.Context, accountSid string, p *ListNumbersParams) (*Page[Number], error)
	ListByAccountAll(ctx context.Context, accountSid string, p *ListNumbersParams) iter.Seq2[Number, error]
	Purchase(ctx context.Context, propertySid string, p *PurchaseNumberParams) (*NumberPurchase, error)
}

var _ NumbersAPI = (*NumbersService)(nil)

// RoutingMethod is where a number's calls go.
type RoutingMethod string

// Routing methods.
const (
	RoutingEndpoint RoutingMethod = "Endpoint" // to EndpointNumber
	RoutingFlow     RoutingMethod = "Flow"     // to a Flow (by its ConfigID)
)

// Recording is a number's call-recording setting.
type Recording string

// Recording settings.
const (
	RecordingOff  Recording = "Off"
	RecordingCall Recording = "Call" // entire calls are recorded
)

// NumberField names a field of a number's configuration that
// NumberConfigParams.Clear can empty. Its value is the field's wire name.
type NumberField string

// The fields Clear can empty: the address, the labels, the forwards and
// the webhooks. RoutingMethod, EndpointNumber, Flow and Recording are
// changed by setting another value, never emptied: a number always routes
// somewhere.
const (
	NumberFieldFriendly                     NumberField = "Friendly"
	NumberFieldAddressSid                   NumberField = "AddressSid"
	NumberFieldAttributionSource            NumberField = "Attribution_Source"
	NumberFieldAttributionMedium            NumberField = "Attribution_Medium"
	NumberFieldAttributionCampaign          NumberField = "Attribution_Campaign"
	NumberFieldAttributionContent           NumberField = "Attribution_Content"
	NumberFieldSendSmsFrom                  NumberField = "SendSmsFrom"
	NumberFieldSendSmsTo                    NumberField = "SendSmsTo"
	NumberFieldSendEmailFrom                NumberField = "SendEmailFrom"
	NumberFieldSendEmailTo                  NumberField = "SendEmailTo"
	NumberFieldWebhookURL                   NumberField = "WebHookUrl"
	NumberFieldWebhookMethod                NumberField = "WebHookMethod"
	NumberFieldDeliveryReceiptWebhookURL    NumberField = "DeliveryReceiptWebHookUrl"
	NumberFieldDeliveryReceiptWebhookMethod NumberField = "DeliveryReceiptWebHookMethod"
)

// ClearableNumberFields lists every NumberField Clear accepts, in the
// order of NumberConfigParams.
func ClearableNumberFields() []NumberField {
	var out []NumberField
	for i := range numberSettings {
		if numberSettings[i].clearable {
			out = append(out, numberSettings[i].name)
		}
	}
	return out
}

// NumberConfigParams changes a number's configuration. Every field is
// optional; only those set are sent, so an empty string leaves a field as
// it is. To empty a field (detach an address, stop a forward or a
// webhook), name it in Clear. The rules are listed on Validate.
type NumberConfigParams struct {
	Friendly   string
	AddressSid string
	// Call attribution labels, for analytics; wire Attribution_Source, ...
	AttributionSource   string
	AttributionMedium   string
	AttributionCampaign string
	AttributionContent  string

	RoutingMethod  RoutingMethod
	EndpointNumber string // E.164; required with RoutingEndpoint
	Flow           string // a Flow ConfigID; required with RoutingFlow
	Recording      Recording

	// A received SMS is forwarded as SMS (E.164 numbers) and as e-mail.
	SendSmsFrom   string
	SendSmsTo     string
	SendEmailFrom string
	SendEmailTo   string

	WebhookURL                   string // called on a received SMS; wire WebHookUrl
	WebhookMethod                string // "GET" or "POST"; wire WebHookMethod
	DeliveryReceiptWebhookURL    string // called on a delivery receipt; wire DeliveryReceiptWebHookUrl
	DeliveryReceiptWebhookMethod string // "GET" or "POST"; wire DeliveryReceiptWebHookMethod

	// Clear lists fields to empty. Each is sent as its wire name with an
	// empty string, {"AddressSid": ""}, beside the fields set; the
	// interface document lists every parameter as optional and says no
	// more, so an empty value is the one way to ask for none. A field can
	// not be both set and cleared, and only ClearableNumberFields can be
	// cleared (a *ValidationError otherwise, before any request).
	Clear []NumberField
}

// numberSetting is one field of a number's configuration.
type numberSetting struct {
	name      NumberField                        // the wire name; a NumberField constant when clearable
	of        func(*NumberConfigParams) *string  // where NumberConfigParams holds it
	clearable bool                               // Clear may empty it
	upper     bool                               // sent upper-cased (a webhook method)
	check     func(f *fieldErrs, name, v string) // its own rule, for a value set; nil for none
}

// numberSettings is the one list of a number configuration's fields, in
// the order of NumberConfigParams. What Configure sends, what Clear may
// empty (ClearableNumberFields), the check of Clear and each field's own
// rule all come from it, so a field is added here once. Go needs the
// field declared by hand on NumberConfigParams and NumberConfig, and a
// clearable one as a NumberField constant: TestNumberSettingsMatchTheTypes
// fails until those agree with this list.
var numberSettings = [...]numberSetting{
	{name: NumberFieldFriendly, clearable: true, of: func(p *NumberConfigParams) *string { return &p.Friendly }},
	{name: NumberFieldAddressSid, clearable: true, of: func(p *NumberConfigParams) *string { return &p.AddressSid }},
	{name: NumberFieldAttributionSource, clearable: true, of: func(p *NumberConfigParams) *string { return &p.AttributionSource }},
	{name: NumberFieldAttributionMedium, clearable: true, of: func(p *NumberConfigParams) *string { return &p.AttributionMedium }},
	{name: NumberFieldAttributionCampaign, clearable: true, of: func(p *NumberConfigParams) *string { return &p.AttributionCampaign }},
	{name: NumberFieldAttributionContent, clearable: true, of: func(p *NumberConfigParams) *string { return &p.AttributionContent }},
	// Routing and recording are changed by setting another value, never
	// emptied: a number always routes somewhere. RoutingMethod's rule names
	// other fields and runs in check.
	{name: "RoutingMethod", of: func(p *NumberConfigParams) *string { return (*string)(&p.RoutingMethod) }},
	{name: "EndpointNumber", of: func(p *NumberConfigParams) *string { return &p.EndpointNumber }, check: (*fieldErrs).number},
	{name: "Flow", of: func(p *NumberConfigParams) *string { return &p.Flow }},
	{name: "Recording", of: func(p *NumberConfigParams) *string { return (*string)(&p.Recording) }, check: checkRecording},
	{name: NumberFieldSendSmsFrom, clearable: true, of: func(p *NumberConfigParams) *string { return &p.SendSmsFrom }, check: checkSmsFrom},
	{name: NumberFieldSendSmsTo, clearable: true, of: func(p *NumberConfigParams) *string { return &p.SendSmsTo }, check: (*fieldErrs).number},
	{name: NumberFieldSendEmailFrom, clearable: true, of: func(p *NumberConfigParams) *string { return &p.SendEmailFrom }, check: (*fieldErrs).email},
	{name: NumberFieldSendEmailTo, clearable: true, of: func(p *NumberConfigParams) *string { return &p.SendEmailTo }, check: (*fieldErrs).email},
	{name: NumberFieldWebhookURL, clearable: true, of: func(p *NumberConfigParams) *string { return &p.WebhookURL }, check: (*fieldErrs).url},
	{name: NumberFieldWebhookMethod, clearable: true, upper: true, of: func(p *NumberConfigParams) *string { return &p.WebhookMethod },
		check: (*fieldErrs).webhookMethod},
	{name: NumberFieldDeliveryReceiptWebhookURL, clearable: true, of: func(p *NumberConfigParams) *string { return &p.DeliveryReceiptWebhookURL },
		check: (*fieldErrs).url},
	{name: NumberFieldDeliveryReceiptWebhookMethod, clearable: true, upper: true,
		of: func(p *NumberConfigParams) *string { return &p.DeliveryReceiptWebhookMethod }, check: (*fieldErrs).webhookMethod},
}

// clearableSetting is the setting Clear may empty under name, or nil.
func clearableSetting(name NumberField) *numberSetting {
	for i := range numberSettings {
		if s := &numberSettings[i]; s.clearable && s.name == name {
			return s
		}
	}
	return nil
}

// wireNumberConfig is NumberConfigParams as the service reads it: the
// fields set under their wire names, then each field of Clear with an
// empty string. Every value is a string.
type wireNumberConfig map[string]string

func (p *NumberConfigParams) wire() wireNumberConfig {
	w := wireNumberConfig{}
	for i := range numberSettings {
		s := &numberSettings[i]
		if v := *s.of(p); v != "" {
			if s.upper {
				v = strings.ToUpper(v)
			}
			w[string(s.name)] = v
		}
	}
	for _, f := range p.Clear {
		w[string(f)] = ""
	}
	return w
}

// numberShape is a number configuration under Number or
// NumberConfiguration, or bare: a bare one has a string named Number.
var numberShape = resourceOf[NumberConfig]("Number", "Number", "NumberConfiguration")

// NumberConfig is a number with its current configuration.
type NumberConfig struct {
	Number                       string        `json:"Number"` // E.164 digits, as the service writes it
	AccountSid                   string        `json:"AccountSid,omitempty"`
	PropertySid                  string        `json:"PropertySid,omitempty"`
	Friendly                     string        `json:"Friendly,omitempty"`
	AddressSid                   string        `json:"AddressSid,omitempty"`
	AttributionSource            string        `json:"Attribution_Source,omitempty"`
	AttributionMedium            string        `json:"Attribution_Medium,omitempty"`
	AttributionCampaign          string        `json:"Attribution_Campaign,omitempty"`
	AttributionContent           string        `json:"Attribution_Content,omitempty"`
	RoutingMethod                RoutingMethod `json:"RoutingMethod,omitempty"`
	EndpointNumber               string        `json:"EndpointNumber,omitempty"`
	Flow                         string        `json:"Flow,omitempty"`
	Recording                    Recording     `json:"Recording,omitempty"`
	SendSmsFrom                  string        `json:"SendSmsFrom,omitempty"`
	SendSmsTo                    string        `json:"SendSmsTo,omitempty"`
	SendEmailFrom                string        `json:"SendEmailFrom,omitempty"`
	SendEmailTo                  string        `json:"SendEmailTo,omitempty"`
	WebhookURL                   string        `json:"WebHookUrl,omitempty"`
	WebhookMethod                string        `json:"WebHookMethod,omitempty"`
	DeliveryReceiptWebhookURL    string        `json:"DeliveryReceiptWebHookUrl,omitempty"`
	DeliveryReceiptWebhookMethod string        `json:"DeliveryReceiptWebHookMethod,omitempty"`
}

// numberPath turns a number written with or without + into the digits the
// path takes.
func numberPath(number string) string {
	return strings.TrimPrefix(strings.TrimSpace(number), "+")
}

// Configure sets the configuration of number: POST
// /v2/Numbers/{Number}. number is E.164 with or without the + (the path
// leaves it out). The interface document does not say how the parameters
// travel; they are sent as a JSON body, as every other write of the service
// takes them. Configuring is idempotent, so it is retried like a read. p may
// be nil to send no change. With RoutingFlow, Flow is a flow's ConfigID:
// Flows.List shows the project's flows, so a caller can check the ID
// exists before sending (the client does not, to spare a request).
func (s *NumbersService) Configure(ctx context.Context, number string, p *NumberConfigParams) (*NumberConfig, error) {
	const op = "Numbers.Configure"
	digits := numberPath(number)
	if err := pathParam(op, "Number", digits); err != nil {
		return nil, err
	}
	q := deref(p)
	if err := s.client.validateParams(op, func() fieldErrs {
		f := q.check()
		if !rules.IsE164Digits(digits) {
			f.add(CodeInvalidPhoneNumberFormat, "Number", "Number must be an E.164 number, e.g. +61299999999 or 61299999999")
		}
		return f
	}); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodPost, idempotent: true,
		path: escapedPath("/v2/Numbers/{Number}", digits), body: q.wire()}, numberShape)
}

// NumberType is the kind of a number, as the number listings filter it.
type NumberType string

// Number types, as the documentation spells them.
const (
	NumberLocal      NumberType = "Local"
	NumberTollFree   NumberType = "Toll-Free"
	NumberSharedRate NumberType = "Shared-Rate"
	NumberNational   NumberType = "National"
)

// Known reports whether t is one of the documented types.
func (t NumberType) Known() bool {
	switch t {
	case NumberLocal, NumberTollFree, NumberSharedRate, NumberNational:
		return true
	}
	return false
}

// NumberCapability is what a number can carry.
type NumberCapability string

// Number capabilities.
const (
	CapabilityVoice NumberCapability = "Voice"
	CapabilitySMS   NumberCapability = "SMS"
	CapabilityMMS   NumberCapability = "MMS"
)

// Known reports whether c is one of the documented capabilities.
func (c NumberCapability) Known() bool {
	return c == CapabilityVoice || c == CapabilitySMS || c == CapabilityMMS
}

// NumberCapabilities is a set of capabilities. It is written as the
// comma-separated string the listings' filter takes ("Voice,SMS") and read
// from such a string or from an array of strings.
type NumberCapabilities []NumberCapability

// Has reports whether c is in the set.
func (cs NumberCapabilities) Has(c NumberCapability) bool {
	for _, x := range cs {
		if strings.EqualFold(string(x), string(c)) {
			return true
		}
	}
	return false
}

// String joins the capabilities with commas.
func (cs NumberCapabilities) String() string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = string(c)
	}
	return strings.Join(parts, ",")
}

// MarshalJSON writes the comma-separated form.
func (cs NumberCapabilities) MarshalJSON() ([]byte, error) { return json.Marshal(cs.String()) }

// UnmarshalJSON reads "Voice,SMS" or ["Voice", "SMS"]; null is empty.
func (cs *NumberCapabilities) UnmarshalJSON(b []byte) error {
	var list []string
	var s string
	switch {
	case json.Unmarshal(b, &s) == nil:
		list = strings.Split(s, ",")
	case json.Unmarshal(b, &list) == nil:
	default:
		return fmt.Errorf("telco: capabilities: want a string or an array of strings, got %.40s", b)
	}
	out := NumberCapabilities(nil)
	for _, c := range list {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, NumberCapability(c))
		}
	}
	*cs = out
	return nil
}

// NumberStatus is the registration state of an owned number.
type NumberStatus string

// Number statuses, as a purchase answers them.
const (
	NumberActive  NumberStatus = "Active"  // added and registered with an address
	NumberPending NumberStatus = "Pending" // added; no address matched for its registration yet
)

// Number is a number the account owns, as Numbers.Get and the number
// listings return it.
//
// The documentation does not show these answers' fields: the names are
// inferred. The configuration fields (NumberConfig) are those of the
// interface document; Type, Capabilities, Status, City, Region,
// CountryCode and AddressRequirement are named after what a data-export
// product shows per number. Every member of the answer not decoded into a
// typed field (an unguessed name, or a value of another type than
// guessed) is kept in Extra, as sent.
type Number struct {
	NumberConfig
	Type               NumberType         `json:"Type,omitempty" alias:"NumberType"`
	Capabilities       NumberCapabilities `json:"Capabilities,omitempty" alias:"Capability,Capabilites"`
	Status             NumberStatus       `json:"Status,omitempty"`
	City               string             `json:"City,omitempty"`
	Region             string             `json:"Region,omitempty"`
	CountryCode        string             `json:"CountryCode,omitempty"`
	AddressRequirement string             `json:"AddressRequirement,omitempty"`
	// Extra holds the answer's members that no field above took.
	Extra map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes tolerantly: see Number.
func (n *Number) UnmarshalJSON(b []byte) error {
	extra, err := unmarshalInferred(b, n)
	n.Extra = extra
	return err
}

func (n *Number) decodeTree(node any) error {
	extra, err := decodeInferred(node, n)
	n.Extra = extra
	return err
}

// MarshalJSON writes the typed fields and, beside them, Extra's members.
func (n Number) MarshalJSON() ([]byte, error) {
	type plain Number // no methods: no recursion
	return marshalInferred(plain(n), n.Extra)
}

// ListNumbersParams filters the number listings. Zero values are not sent.
type ListNumbersParams struct {
	Types        []NumberType       // wire Type, comma-separated
	Capabilities []NumberCapability // wire Capabilites (sic), comma-separated
	ListParams                      // Results_Count default 200, at most MaxNumbersCount
}

// MaxNumbersCount is the largest Results_Count the number listings take.
const MaxNumbersCount = 200

// wireListNumbers is ListNumbersParams as the query carries it. The
// documentation spells the capability filter "Capabilites"; that is the
// name sent.
type wireListNumbers struct {
	Type        commaList[NumberType]       `url:"Type,omitempty"`
	Capabilites commaList[NumberCapability] `url:"Capabilites,omitempty"`
	ListParams
}

func (p *ListNumbersParams) wire() *wireListNumbers {
	return &wireListNumbers{Type: p.Types, Capabilites: p.Capabilities, ListParams: p.ListParams}
}

// The shapes of the answers, none shown by the documentation: a number
// under Number or bare (a bare one has a string named Number), a listing
// under Numbers or bare, a purchase under Number or bare.
var (
	ownedNumberShape = resourceOf[Number]("Number", "Number", "NumberConfiguration")
	numbersList      = listOf[Number]("Numbers")
	purchaseShape    = resourceOf[NumberPurchase]("Number", "Number", "NumberPurchase")
)

// Get reads a number the account owns: GET /v2/Numbers/{Number}. number
// is E.164 with or without the +. The answer's fields are inferred (see
// Number).
func (s *NumbersService) Get(ctx context.Context, number string) (*Number, error) {
	const op = "Numbers.Get"
	digits := numberPath(number)
	if err := pathParam(op, "Number", digits); err != nil {
		return nil, err
	}
	if err := s.client.validateParams(op, func() fieldErrs { return numberDigits(digits) }); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/Numbers/{Number}", digits)}, ownedNumberShape)
}

// ListByProperty returns one page of the project's numbers:
// GET /v2/Properties/{PropertySid}/Numbers. Results_Count defaults to 200,
// its maximum. The answer's envelope and fields are inferred (see Number).
func (s *NumbersService) ListByProperty(ctx context.Context, propertySid string, p *ListNumbersParams) (*Page[Number], error) {
	return s.list(ctx, "Numbers.ListByProperty", "PropertySid", propertySid, "/v2/Properties/{PropertySid}/Numbers", p)
}

// ListByAccount returns one page of the account's numbers:
// GET /v2/Accounts/{AccountSid}/Numbers. Results_Count defaults to 200,
// its maximum. The answer's envelope and fields are inferred (see Number).
func (s *NumbersService) ListByAccount(ctx context.Context, accountSid string, p *ListNumbersParams) (*Page[Number], error) {
	return s.list(ctx, "Numbers.ListByAccount", "AccountSid", accountSid, "/v2/Accounts/{AccountSid}/Numbers", p)
}

func (s *NumbersService) list(ctx context.Context, op, ownerName, owner, pattern string, p *ListNumbersParams) (*Page[Number], error) {
	if err := pathParam(op, ownerName, owner); err != nil {
		return nil, err
	}
	q := deref(p)
	if err := s.client.validateParams(op, q.check); err != nil {
		return nil, err
	}
	return getList(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath(pattern, owner), query: q.wire()}, numbersList)
}

// ListByPropertyAll iterates over every number ListByProperty would
// return, from p.Skip on.
func (s *NumbersService) ListByPropertyAll(ctx context.Context, propertySid string, p *ListNumbersParams) iter.Seq2[Number, error] {
	return s.listAll(ctx, "Numbers.ListByPropertyAll", p, func(ctx context.Context, q *ListNumbersParams) (*Page[Number], error) {
		return s.ListByProperty(ctx, propertySid, q)
	})
}

// ListByAccountAll iterates over every number ListByAccount would return,
// from p.Skip on.
func (s *NumbersService) ListByAccountAll(ctx context.Context, accountSid string, p *ListNumbersParams) iter.Seq2[Number, error] {
	return s.listAll(ctx, "Numbers.ListByAccountAll", p, func(ctx context.Context, q *ListNumbersParams) (*Page[Number], error) {
		return s.ListByAccount(ctx, accountSid, q)
	})
}

func (s *NumbersService) listAll(ctx context.Context, op string, p *ListNumbersParams,
	get func(context.Context, *ListNumbersParams) (*Page[Number], error)) iter.Seq2[Number, error] {
	q := deref(p)
	q.Types = append([]NumberType(nil), q.Types...)
	q.Capabilities = append([]NumberCapability(nil), q.Capabilities...)
	return skipIterate(ctx, op, q.ListParams, MaxNumbersCount,
		func(ctx context.Context, lp ListParams) (*Page[Number], error) {
			r := q
			r.ListParams = lp
			return get(ctx, &r)
		})
}

// PurchaseNumberParams buys a number for a project. Number (E.164, with
// or without the +) is required. AddressSid is optional: without it, and
// when the number needs an address, the service assigns the first suitable
// address registered on the project, and reserves the number (status
// Pending) when there is none.
type PurchaseNumberParams struct {
	Number     string
	AddressSid string
}

// wirePurchaseNumber is PurchaseNumberParams as the service reads it.
type wirePurchaseNumber struct {
	Number     string `json:"Number"`
	AddressSid string `json:"AddressSid,omitempty"`
}

func (p *PurchaseNumberParams) wire() *wirePurchaseNumber {
	return &wirePurchaseNumber{Number: "+" + numberPath(p.Number), AddressSid: strings.TrimSpace(p.AddressSid)}
}

// NumberPurchase is the answer to a purchase: the number and its status,
// NumberActive (registered with an address) or NumberPending (no address
// matched yet). The documentation shows these two fields but not whether
// they are wrapped; members beside them are kept in Extra, as sent.
type NumberPurchase struct {
	Number string       `json:"Number"`
	Status NumberStatus `json:"Status,omitempty"`
	// Extra holds the answer's members that no field above took.
	Extra map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes tolerantly, keeping unknown members in Extra.
func (n *NumberPurchase) UnmarshalJSON(b []byte) error {
	extra, err := unmarshalInferred(b, n)
	n.Extra = extra
	return err
}

func (n *NumberPurchase) decodeTree(node any) error {
	extra, err := decodeInferred(node, n)
	n.Extra = extra
	return err
}

// MarshalJSON writes the typed fields and, beside them, Extra's members.
func (n NumberPurchase) MarshalJSON() ([]byte, error) {
	type plain NumberPurchase // no methods: no recursion
	return marshalInferred(plain(n), n.Extra)
}

// Purchase buys a number for the project:
// POST /v2/Properties/{PropertySid}/Numbers, with Number sent in E.164
// with its +. A purchase is not idempotent: it is not retried once the
// request may have reached the service, and such a failure matches
// ErrMaybeSent; Numbers.Get tells whether the number was bought.
func (s *NumbersService) Purchase(ctx context.Context, propertySid string, p *PurchaseNumberParams) (*NumberPurchase, error) {
	const op = "Numbers.Purchase"
	if err := s.client.precheck(op, "PropertySid", propertySid, p != nil, p.check); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodPost,
		path: escapedPath("/v2/Properties/{PropertySid}/Numbers", propertySid), body: p.wire()}, purchaseShape)
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Validate checks the configuration rules of Numbers.Configure: RoutingMethod is
// Endpoint (with an E.164 EndpointNumber) or Flow (with a Flow); Recording
// is Off or Call; webhook methods are GET or POST and their URLs absolute;
// EndpointNumber and SendSmsTo are E.164 numbers, with or without the +,
// as the document writes numbers in this operation; SendSmsFrom is such a
// number or an alphanumeric sender ID; e-mail forwarding addresses are
// valid; Clear names clearable fields only, each once, none of them also
// set.
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
	for i := range numberSettings {
		if s := &numberSettings[i]; s.check != nil {
			if v := *s.of(p); v != "" {
				s.check(&f, string(s.name), v)
			}
		}
	}
	p.checkClear(&f)
	return f
}

// checkRecording is Recording's rule: Off or Call.
func checkRecording(f *fieldErrs, name, v string) {
	if r := Recording(v); r != RecordingOff && r != RecordingCall {
		f.invalid(name, "Recording must be Off or Call")
	}
}

// checkSmsFrom is SendSmsFrom's rule: a number or a sender ID.
func checkSmsFrom(f *fieldErrs, name, v string) {
	if !rules.IsSenderID(v) {
		f.number(name, v)
	}
}

// numberDigits checks a number given for a path, without its +.
func numberDigits(digits string) fieldErrs {
	var f fieldErrs
	if !rules.IsE164Digits(digits) {
		f.add(CodeInvalidPhoneNumberFormat, "Number", "Number must be an E.164 number, e.g. +61299999999 or 61299999999")
	}
	return f
}

// Validate checks the listing's rules: every Type is Local, Toll-Free,
// Shared-Rate or National; every capability is Voice, SMS or MMS;
// Results_Count is at most 200; neither page parameter is negative. nil
// asks for the defaults. It names Numbers.ListByProperty.
func (p *ListNumbersParams) Validate() error {
	if p == nil {
		return nil
	}
	return p.check().err("Numbers.ListByProperty")
}

func (p ListNumbersParams) check() fieldErrs {
	f := p.ListParams.check()
	if p.Count > MaxNumbersCount {
		f.invalid("Results_Count", "Results_Count must be at most 200")
	}
	for _, t := range p.Types {
		if !t.Known() {
			f.invalid("Type", "Type must be Local, Toll-Free, Shared-Rate or National, not "+strconv.Quote(string(t)))
		}
	}
	for _, c := range p.Capabilities {
		if !c.Known() {
			f.invalid("Capabilites", "a capability must be Voice, SMS or MMS, not "+strconv.Quote(string(c)))
		}
	}
	return f
}

// Validate checks that Number is given and is an E.164 number, with or
// without the +.
func (p *PurchaseNumberParams) Validate() error {
	if p == nil {
		return nilParams("Numbers.Purchase")
	}
	return p.check().err("Numbers.Purchase")
}

func (p *PurchaseNumberParams) check() fieldErrs {
	var f fieldErrs
	if f.required("Number", p.Number) {
		f.number("Number", strings.TrimSpace(p.Number))
	}
	return f
}

// checkClear refuses a Clear entry that is unknown, repeated or also set.
func (p *NumberConfigParams) checkClear(f *fieldErrs) {
	seen := map[NumberField]bool{}
	for i, c := range p.Clear {
		name := fmt.Sprintf("Clear[%d]", i)
		s := clearableSetting(c)
		switch {
		case s == nil:
			f.invalid(name, fmt.Sprintf("%s: %q cannot be cleared; clearable fields are %s", name, string(c), clearableList()))
		case seen[c]:
			f.invalid(name, fmt.Sprintf("%s repeats %s", name, c))
		case *s.of(p) != "":
			f.add(CodeConflictingParameters, string(c), fmt.Sprintf("%s is both set and cleared", c))
		}
		seen[c] = true
	}
}

func clearableList() string {
	fs := ClearableNumberFields()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}
