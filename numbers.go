package telco

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/telcosdk/telco/internal/rules"
)

// NumbersService configures phone numbers (operation 3).
type NumbersService service

// NumbersAPI is the method set of NumbersService, for code that wants to
// substitute a fake.
type NumbersAPI interface {
	Configure(ctx context.Context, number string, p *NumberConfigParams) (*NumberConfig, error)
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
	return []NumberField{
		NumberFieldFriendly, NumberFieldAddressSid,
		NumberFieldAttributionSource, NumberFieldAttributionMedium, NumberFieldAttributionCampaign, NumberFieldAttributionContent,
		NumberFieldSendSmsFrom, NumberFieldSendSmsTo, NumberFieldSendEmailFrom, NumberFieldSendEmailTo,
		NumberFieldWebhookURL, NumberFieldWebhookMethod,
		NumberFieldDeliveryReceiptWebhookURL, NumberFieldDeliveryReceiptWebhookMethod,
	}
}

// NumberConfigParams changes a number's configuration. Every field is
// optional; only those set are sent, so an empty string leaves a field as
// it is. To empty a field (detach an address, stop a forward or a
// webhook), name it in Clear. The rules are listed on Validate. Its json
// tags are not what the SDK sends (that is wireNumberConfig); they remain
// only while telcotest decodes requests into this type.
type NumberConfigParams struct {
	Friendly   string `json:"Friendly,omitempty"`
	AddressSid string `json:"AddressSid,omitempty"`
	// Call attribution labels, for analytics.
	AttributionSource   string `json:"Attribution_Source,omitempty"`
	AttributionMedium   string `json:"Attribution_Medium,omitempty"`
	AttributionCampaign string `json:"Attribution_Campaign,omitempty"`
	AttributionContent  string `json:"Attribution_Content,omitempty"`

	RoutingMethod  RoutingMethod `json:"RoutingMethod,omitempty"`
	EndpointNumber string        `json:"EndpointNumber,omitempty"` // E.164; required with RoutingEndpoint
	Flow           string        `json:"Flow,omitempty"`           // a Flow ConfigID; required with RoutingFlow
	Recording      Recording     `json:"Recording,omitempty"`

	// A received SMS is forwarded as SMS (E.164 numbers) and as e-mail.
	SendSmsFrom   string `json:"SendSmsFrom,omitempty"`
	SendSmsTo     string `json:"SendSmsTo,omitempty"`
	SendEmailFrom string `json:"SendEmailFrom,omitempty"`
	SendEmailTo   string `json:"SendEmailTo,omitempty"`

	WebhookURL                   string `json:"WebHookUrl,omitempty"`                   // called on a received SMS
	WebhookMethod                string `json:"WebHookMethod,omitempty"`                // "GET" or "POST"
	DeliveryReceiptWebhookURL    string `json:"DeliveryReceiptWebHookUrl,omitempty"`    // called on a delivery receipt
	DeliveryReceiptWebhookMethod string `json:"DeliveryReceiptWebHookMethod,omitempty"` // "GET" or "POST"

	// Clear lists fields to empty. Each is sent as its wire name with an
	// empty string, {"AddressSid": ""}, beside the fields set; the
	// interface document lists every parameter as optional and says no
	// more, so an empty value is the one way to ask for none. A field can
	// not be both set and cleared, and only ClearableNumberFields can be
	// cleared (a *ValidationError otherwise, before any request).
	Clear []NumberField `json:"-"`
}

// wireNumberConfig is NumberConfigParams as the service reads it; the two
// convert into each other, so a field added to one must be added to both.
type wireNumberConfig struct {
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
	Clear                        []NumberField `json:"-"`
}

// MarshalJSON writes the fields set, then each field of Clear with an
// empty string.
func (w *wireNumberConfig) MarshalJSON() ([]byte, error) {
	type plain wireNumberConfig // no methods: no recursion
	b, err := json.Marshal((*plain)(w))
	if err != nil || len(w.Clear) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, f := range w.Clear {
		m[string(f)] = json.RawMessage(`""`)
	}
	return json.Marshal(m)
}

func (p *NumberConfigParams) wire() *wireNumberConfig {
	w := wireNumberConfig(*p)
	w.WebhookMethod = strings.ToUpper(w.WebhookMethod)
	w.DeliveryReceiptWebhookMethod = strings.ToUpper(w.DeliveryReceiptWebhookMethod)
	return &w
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

// Configure sets the configuration of number (operation 3): POST
// /v2/Numbers/{Number}. number is E.164 with or without the + (the path
// leaves it out). The interface document does not say how the parameters
// travel; they are sent as a JSON body, as every other write of the service
// takes them. Configuring is idempotent, so it is retried like a read. p may
// be nil to send no change.
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

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Validate checks the configuration rules of operation 3: RoutingMethod is
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
	p.checkClear(&f)
	return f
}

// checkClear refuses a Clear entry that is unknown, repeated or also set.
func (p *NumberConfigParams) checkClear(f *fieldErrs) {
	if len(p.Clear) == 0 {
		return
	}
	set := map[NumberField]string{
		NumberFieldFriendly: p.Friendly, NumberFieldAddressSid: p.AddressSid,
		NumberFieldAttributionSource: p.AttributionSource, NumberFieldAttributionMedium: p.AttributionMedium,
		NumberFieldAttributionCampaign: p.AttributionCampaign, NumberFieldAttributionContent: p.AttributionContent,
		NumberFieldSendSmsFrom: p.SendSmsFrom, NumberFieldSendSmsTo: p.SendSmsTo,
		NumberFieldSendEmailFrom: p.SendEmailFrom, NumberFieldSendEmailTo: p.SendEmailTo,
		NumberFieldWebhookURL: p.WebhookURL, NumberFieldWebhookMethod: p.WebhookMethod,
		NumberFieldDeliveryReceiptWebhookURL: p.DeliveryReceiptWebhookURL, NumberFieldDeliveryReceiptWebhookMethod: p.DeliveryReceiptWebhookMethod,
	}
	seen := map[NumberField]bool{}
	for i, c := range p.Clear {
		name := fmt.Sprintf("Clear[%d]", i)
		v, ok := set[c]
		switch {
		case !ok:
			f.invalid(name, fmt.Sprintf("%s: %q cannot be cleared; clearable fields are %s", name, string(c), clearableList()))
		case seen[c]:
			f.invalid(name, fmt.Sprintf("%s repeats %s", name, c))
		case v != "":
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
