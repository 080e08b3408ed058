package telco

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error codes the SDK names. The catalogue is not complete: compare
// against APIError.Code (or use ErrorCode) for any other. Each says where
// it comes from: the interface document, the service's error-codes page,
// or the SDK's own choice.
const (
	// From the interface document: UNKNOWN_TIME_ZONE and PARAMETER_REQUIRED
	// for a project create, INVALID_PHONENUMBER_FORMAT for a batch element
	// whose To is not E.164. The error-codes page lists the first two too.
	CodeUnknownTimeZone          = "UNKNOWN_TIME_ZONE"
	CodeParameterRequired        = "PARAMETER_REQUIRED"
	CodeInvalidPhoneNumberFormat = "INVALID_PHONENUMBER_FORMAT"

	// From the service's error-codes page, which names them without saying
	// which operation returns each or with which status; CALL_NOT_FOUND
	// belongs to Calls.Get.
	CodeAccountNotFound                  = "ACCOUNT_NOT_FOUND"
	CodeAddressCannotBeDeleted           = "ADDRESS_CANNOT_BE_DELETED"
	CodeAddressNotFound                  = "ADDRESS_NOT_FOUND"
	CodeCallNotFound                     = "CALL_NOT_FOUND"
	CodeConflictingParameters            = "CONFLICTING_PARAMETERS"
	CodeCountryNotFound                  = "COUNTRY_NOT_FOUND"
	CodeCountryUnavailable               = "COUNTRY_UNAVAILABLE"
	CodeForbidden                        = "FORBIDDEN"
	CodeNumberBelongsToDifferentProperty = "NUMBER_BELONGS_TO_DIFFERENT_PROPERTY"

	// CodeParameterInvalid is the SDK's own choice, used by client-side
	// validation (and answered by telcotest) for a value of the wrong form
	// when the service's code for it is not documented. The service may use
	// another code for the same problem. telcotest answers *_NOT_FOUND
	// codes the page does not list too, such as MESSAGE_NOT_FOUND.
	CodeParameterInvalid = "PARAMETER_INVALID"
)

// Error codes telcotest answers where the service documents a rule but not
// the code it refuses with. They are named here, with the service's other
// codes, so that a test against the fake and code that reads errors share
// one spelling; the live service may answer another code for the same
// refusal.
const (
	// CodeFlowNotFound refuses Numbers.Configure or NumberBlocks.Configure
	// with a Flow (a ConfigId) that the number's or block's project does
	// not have (field Flow).
	CodeFlowNotFound = "FLOW_NOT_FOUND"
	// CodeLeaseLimitReached refuses a leased send (From empty) when the
	// recipient already has the limit of 5 valid leased senders, none of
	// them the sending project's (field From): sharing another project's
	// sender would send the recipient's answers to the wrong project.
	CodeLeaseLimitReached = "LEASE_LIMIT_REACHED"
	// CodeNumberAlreadyPurchased refuses Numbers.Purchase of a number the
	// project already has (field Number); a number of another project is
	// refused with CodeNumberBelongsToDifferentProperty.
	CodeNumberAlreadyPurchased = "NUMBER_ALREADY_PURCHASED"
)

// ErrMaybeSent is matched by errors.Is when a non-idempotent call (an SMS
// send, a create, a porting submission) failed after its request may have
// reached the service: a timeout or broken connection after the request was
// written, or a 5xx answer. The operation may or may not have taken effect;
// check before sending again: [MessagesService.SendOnce] and
// [MessagesService.SendBatchOnce] do that for SMS by ExternalID.
var ErrMaybeSent = errors.New("request may have reached the service")

// ErrResponseTooLarge is matched by errors.Is when a success body was
// larger than the cap set by WithMaxResponseBytes; the error is an
// *APIError with the answer's status.
var ErrResponseTooLarge = errors.New("response body too large")

// errBodyLimit caps how much of an error body is read; errBodyKeep caps how
// much of an undecodable body is kept in APIError.Body.
const (
	errBodyLimit = 1 << 20
	errBodyKeep  = 4 << 10
)

// FieldError describes one problem with one parameter, as the service's
// Errors[] entries do. Code and Message may be empty when the service sends
// only the field name.
type FieldError struct {
	Code      string `json:"ErrorCode,omitempty"`
	FieldName string `json:"FieldName,omitempty"`
	Message   string `json:"Message,omitempty"`
}

// String formats the problem as "Field: message (CODE)".
func (f FieldError) String() string {
	var b strings.Builder
	b.WriteString(f.FieldName)
	if f.Message != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(f.Message)
	}
	if f.Code != "" {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString("(" + f.Code + ")")
	}
	return b.String()
}

// APIError is an error answered by the service, or a response the client
// could not decode. It is returned for every non-2xx status and for a 2xx
// whose body is not the documented JSON.
type APIError struct {
	// Op names the SDK operation, e.g. "Properties.Create".
	Op string
	// StatusCode is the HTTP status; 0 for a per-element batch error.
	StatusCode int
	// Code is the service's ErrorCode, e.g. "UNKNOWN_TIME_ZONE"; empty when
	// the body carried none.
	Code    string
	Message string
	// Fields are the service's Errors[] entries.
	Fields []FieldError
	// Body is the raw body, at most 4 KiB, kept when it could not be
	// decoded (an HTML page from a proxy, say).
	Body []byte
	// RetryAfter is the server's Retry-After of a 429 or 503 answer, read
	// from seconds or an HTTP date and capped at a day; 0 when the answer
	// had none. The Client has already honoured it, within
	// RetryPolicy.MaxWait, for the retries it made. JSON leaves it out
	// when 0, as APIError was printed before it had this field.
	RetryAfter time.Duration `json:",omitempty"`

	err       error // a decode error, for errors.Unwrap
	maybeSent bool  // a non-idempotent call that may have taken effect
}

// Error names the operation, the status, the service's code and message,
// and the fields.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("telco: ")
	if e.Op != "" {
		b.WriteString(e.Op + ": ")
	}
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	} else {
		b.WriteString("rejected")
	}
	if e.Code != "" {
		b.WriteString(": " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if len(e.Fields) > 0 {
		parts := make([]string, len(e.Fields))
		for i, f := range e.Fields {
			parts[i] = f.String()
		}
		b.WriteString(" [" + strings.Join(parts, "; ") + "]")
	}
	if e.err != nil {
		b.WriteString(": " + e.err.Error())
	}
	if e.maybeSent {
		b.WriteString(" (" + ErrMaybeSent.Error() + ")")
	}
	return b.String()
}

// Unwrap returns the decode error behind an undecodable body, if any.
func (e *APIError) Unwrap() error { return e.err }

// Is reports whether e matches ErrMaybeSent: a 5xx answer to a
// non-idempotent call, or a 2xx whose body could not be read.
func (e *APIError) Is(target error) bool { return target == ErrMaybeSent && e.maybeSent }

// ValidationError is returned by client-side validation, before any request
// is sent. Each field problem carries the code the service would use.
type ValidationError struct {
	Op     string // e.g. "Messages.Send"
	Fields []FieldError
}

// Error names the operation and every field problem, each field by the
// name you set in Go and, where the service's differs, that too:
// "DateFrom (Date_From) is required". FieldName and Message keep the
// service's names, as its own errors give them.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		if label := goLabel(f.FieldName); label != f.FieldName {
			if rest, ok := strings.CutPrefix(f.Message, f.FieldName); ok {
				f.Message, f.FieldName = label+rest, ""
			} else {
				f.FieldName = label
			}
		} else if strings.HasPrefix(f.Message, f.FieldName+" ") {
			f.FieldName = "" // the message names it
		}
		parts[i] = f.String()
	}
	return "telco: " + e.Op + ": invalid parameters: " + strings.Join(parts, "; ")
}

// goNames are the params fields whose Go name differs from the wire name
// the service and FieldError use, by wire name.
var goNames = map[string]string{
	"Date_From": "DateFrom", "Date_To": "DateTo",
	"Results_Count": "Count", "Results_Skip": "Skip",
	"ExternalId": "ExternalID", "WebhookUri": "WebhookURI", "DeliveryReceiptWebhookUri": "DeliveryReceiptWebhookURI",
	"WebHookUrl": "WebhookURL", "WebHookMethod": "WebhookMethod", "WebHookURL": "WebhookURL",
	"DeliveryReceiptWebHookUrl": "DeliveryReceiptWebhookURL", "DeliveryReceiptWebHookMethod": "DeliveryReceiptWebhookMethod",
	"Attribution_Source": "AttributionSource", "Attribution_Medium": "AttributionMedium",
	"Attribution_Campaign": "AttributionCampaign", "Attribution_Content": "AttributionContent",
	"DefaultCallerId": "DefaultCallerID", "SipTrunkIpAddresses": "IPAddresses", "SipTrunkCredentials": "Credentials",
	"SipTrunkAllowedCountries": "AllowedCountries", "IncomingActionId": "IncomingActionID", "Diaplan": "Dialplan",
	"Messages": "msgs",
}

// goLabel is a wire field name as "GoName (WireName)" when the two differ,
// each part of an indexed name translated: "Messages[2].ExternalId" is
// "msgs[2].ExternalID (Messages[2].ExternalId)".
func goLabel(wire string) string {
	parts := strings.Split(wire, ".")
	changed := false
	for i, p := range parts {
		name, index, _ := strings.Cut(p, "[")
		if g, ok := goNames[name]; ok {
			if index != "" {
				index = "[" + index
			}
			parts[i], changed = g+index, true
		}
	}
	if !changed {
		return wire
	}
	return strings.Join(parts, ".") + " (" + wire + ")"
}

// ErrorCode returns the service error code found anywhere in err's chain:
// an APIError's Code, else the first code among its Fields, else the first
// field code of a ValidationError (the code the service would have used).
// It returns "" when there is none.
func ErrorCode(err error) string {
	var ae *APIError
	if errors.As(err, &ae) {
		if ae.Code != "" {
			return ae.Code
		}
		return firstFieldCode(ae.Fields)
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return firstFieldCode(ve.Fields)
	}
	return ""
}

func firstFieldCode(fs []FieldError) string {
	for _, f := range fs {
		if f.Code != "" {
			return f.Code
		}
	}
	return ""
}

// wireStatus is the service's error envelope, found either under
// ResponseStatus or at the top level of the body.
type wireStatus struct {
	ErrorCode string       `json:"ErrorCode"`
	Message   string       `json:"Message"`
	Errors    []FieldError `json:"Errors"`
}

type wireError struct {
	ResponseStatus *wireStatus `json:"ResponseStatus"`
	wireStatus
}

// decodeAPIError builds the error for a non-2xx response body. It never
// fails: a body that is not the service's JSON is kept (bounded) in Body.
func decodeAPIError(op string, status int, body []byte) *APIError {
	e := &APIError{Op: op, StatusCode: status}
	var w wireError
	if json.Unmarshal(body, &w) == nil {
		s := w.wireStatus
		if w.ResponseStatus != nil {
			s = *w.ResponseStatus
		}
		if s.ErrorCode != "" || s.Message != "" || len(s.Errors) > 0 {
			e.Code, e.Message, e.Fields = s.ErrorCode, s.Message, s.Errors
			return e
		}
	}
	e.Message = http.StatusText(status)
	e.Body = boundedCopy(body)
	return e
}

func boundedCopy(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if len(b) > errBodyKeep {
		b = b[:errBodyKeep]
	}
	return append([]byte(nil), b...)
}

// MaybeSent returns err marked as a failure of a non-idempotent call that
// may have reached the service: the result matches ErrMaybeSent with
// errors.Is, and still matches whatever err matched with errors.As (an
// *APIError given directly is copied, with the mark). It is for fakes of
// the service interfaces, such as a hand-written MessagesAPI, that must
// fail the way the SDK does; MaybeSent(nil) is nil.
func MaybeSent(err error) error {
	if err == nil {
		return nil
	}
	if ae, ok := err.(*APIError); ok {
		cp := *ae
		cp.maybeSent = true
		return &cp
	}
	return &maybeSentError{err}
}

// maybeSentError marks a transport failure of a non-idempotent call that
// may have reached the service.
type maybeSentError struct{ err error }

func (e *maybeSentError) Error() string   { return e.err.Error() + " (" + ErrMaybeSent.Error() + ")" }
func (e *maybeSentError) Unwrap() []error { return []error{e.err, ErrMaybeSent} }

// UnresolvedError is returned by SendOnce and SendBatchOnce when they
// could not tell whether messages were sent: the rounds of the
// ReconcilePolicy ran out, a look-up kept failing, another caller's
// attempt was still in flight, or the context ended while waiting. The
// ledger keeps the messages in doubt, so that the next call for them
// looks them up before sending. It matches ErrMaybeSent, and through
// Unwrap the last failure (errors.Is(err, context.Canceled) holds after a
// cancellation).
type UnresolvedError struct {
	Op          string   // "Messages.SendOnce" or "Messages.SendBatchOnce"
	ExternalIDs []string // the messages whose fate is unknown, in input order
	Rounds      int      // look-ups made
	Err         error    // the last failure: of a send, a look-up or the context
}

// Error names the ExternalIds and the last failure.
func (e *UnresolvedError) Error() string {
	var b strings.Builder
	b.WriteString("telco: " + e.Op + ": ")
	if len(e.ExternalIDs) == 1 {
		b.WriteString("ExternalId " + strconv.Quote(e.ExternalIDs[0]))
	} else {
		b.WriteString("ExternalIds " + quoteAll(e.ExternalIDs))
	}
	fmt.Fprintf(&b, " unresolved after %d look-ups", e.Rounds)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if !errors.Is(e.Err, ErrMaybeSent) {
		b.WriteString(" (" + ErrMaybeSent.Error() + ")")
	}
	return b.String()
}

// Unwrap returns the last failure.
func (e *UnresolvedError) Unwrap() error { return e.Err }

// Is reports that an UnresolvedError always matches ErrMaybeSent.
func (e *UnresolvedError) Is(target error) bool { return target == ErrMaybeSent }

func quoteAll(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, ", ")
}

// reusedError is an ExternalId met with a message other than the one the
// ledger holds for it.
type reusedError struct {
	op  string
	ids []string
}

func (e *reusedError) Error() string {
	return "telco: " + e.op + ": ExternalId " + quoteAll(e.ids) + ": " + ErrExternalIDReused.Error() +
		" (another To, From, Text or Schedule); nothing sent"
}

func (e *reusedError) Is(target error) bool { return target == ErrExternalIDReused }

// countOf is n and noun for an error's text, in the plural unless n is 1:
// "1 result", "0 results".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
