package telco

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"
)

// PortingService submits number porting requests and reads their status.
type PortingService service

// PortingAPI is the method set of PortingService, for code that wants to
// substitute a fake.
type PortingAPI interface {
	Submit(ctx context.Context, propertySid string, p *PortingRequestParams) (*PortingRequest, error)
	StatusByProperty(ctx context.Context, propertySid string, p *PortingStatusParams) (*Page[PortingRequest], error)
	StatusByAccount(ctx context.Context, accountSid string, p *PortingStatusParams) (*Page[PortingRequest], error)
	StatusByPropertyAll(ctx context.Context, propertySid string, p *PortingStatusParams) iter.Seq2[PortingRequest, error]
	StatusByAccountAll(ctx context.Context, accountSid string, p *PortingStatusParams) iter.Seq2[PortingRequest, error]
}

var _ PortingAPI = (*PortingService)(nil)

// PortSchedule is when a port should happen.
type PortSchedule string

// Port schedules.
const (
	PortASAP   PortSchedule = "ASAP"
	PortOnDate PortSchedule = "Date" // on PreferredPortDate
)

// Porting number values the service defines.
const (
	PortTypeCatA           = "Cat-A"           // the only port type supported
	IncomingAnsweringPoint = "Answering Point" // calls go to IncomingAnswerPoint
	IncomingFlow           = "Flow"            // calls go to the flow IncomingActionID
)

// PortingRequest is a number porting request.
type PortingRequest struct {
	PortingNo               string       `json:"PortingNo"`
	AccountSid              string       `json:"AccountSid,omitempty"`
	PropertySid             string       `json:"PropertySid,omitempty"`
	CustomerDescription     string       `json:"CustomerDescription,omitempty"`
	AuthorisedContactName   string       `json:"AuthorisedContactName,omitempty"`
	AuthorisedContactEmail  string       `json:"AuthorisedContactEmail,omitempty"`
	DaytimeContactNumber    string       `json:"DaytimeContactNumber,omitempty"`
	CurrentCarrier          string       `json:"CurrentCarrier,omitempty"`
	CurrentCarrierAccountNo string       `json:"CurrentCarrierAccountNo,omitempty"`
	PreferredPortSchedule   PortSchedule `json:"PreferredPortSchedule,omitempty"`
	// PreferredPortDate is read as Unix seconds or, tolerantly, as the
	// YYYY-MM-DD form it is submitted in.
	PreferredPortDate Timestamp       `json:"PreferredPortDate,omitempty"`
	WebhookURL        string          `json:"WebHookURL,omitempty"`
	Created           Timestamp       `json:"Created,omitempty"`
	PortDate          Timestamp       `json:"PortDate,omitempty"` // the scheduled port date
	Status            string          `json:"Status,omitempty"`   // the service's label
	PortingNumbers    []PortingNumber `json:"PortingNumbers,omitempty"`
}

// PortingNumber is one number of a porting request.
type PortingNumber struct {
	Number              string                `json:"Number"` // E.164
	PortType            string                `json:"PortType,omitempty"`
	PortAddress         string                `json:"PortAddress,omitempty"`
	IncomingActionType  string                `json:"IncomingActionType,omitempty"`
	IncomingActionID    string                `json:"IncomingActionId,omitempty"`
	IncomingAnswerPoint string                `json:"IncomingAnswerPoint,omitempty"`
	Status              string                `json:"Status,omitempty"`
	StatusHistory       []PortingStatusChange `json:"StatusHistory,omitempty"`
}

// PortingStatusChange is one recorded status change of a porting number.
type PortingStatusChange struct {
	FdxStatusFrom            string    `json:"FdxStatusFrom,omitempty"` // the service's internal status before
	FdxStatusTo              string    `json:"FdxStatusTo,omitempty"`   // and after
	CarrierPortingStatusFrom string    `json:"CarrierPortingStatusFrom,omitempty"`
	CarrierPortingStatusTo   string    `json:"CarrierPortingStatusTo,omitempty"`
	Created                  Timestamp `json:"Created,omitempty"`
}

// PortingRequestParams is a porting request to submit (Porting.Submit):
//   - AuthorisedContactName, AuthorisedContactEmail (a valid address),
//     DaytimeContactNumber, CurrentCarrier, CurrentCarrierAccountNo and
//     PreferredPortSchedule (PortASAP or PortOnDate) are required;
//   - PreferredPortDate is required with PortOnDate (with PortASAP it is
//     sent when set, and the service decides); it is sent as YYYY-MM-DD,
//     the date in its own location;
//   - each porting number has an E.164 Number, PortType "Cat-A" (the only
//     type supported) and a PortAddress; IncomingActionType is optional,
//     "Flow" needs IncomingActionID and "Answering Point" needs
//     IncomingAnswerPoint.
type PortingRequestParams struct {
	AuthorisedContactName   string
	AuthorisedContactEmail  string
	DaytimeContactNumber    string
	CurrentCarrier          string
	CurrentCarrierAccountNo string
	PreferredPortSchedule   PortSchedule // PortASAP or PortOnDate
	PreferredPortDate       time.Time    // required with PortOnDate; wire "YYYY-MM-DD"
	CustomerDescription     string
	WebhookURL              string // status notifications; wire WebHookURL
	PortingNumbers          []PortingNumberParams
}

// PortingNumberParams is one number to port; see PortingRequestParams.
type PortingNumberParams struct {
	Number              string // E.164
	PortType            string // PortTypeCatA
	PortAddress         string // the service address of the number
	IncomingActionType  string // IncomingAnsweringPoint or IncomingFlow
	IncomingActionID    string // required for Flow; wire IncomingActionId
	IncomingAnswerPoint string // required for Answering Point
}

// wirePortingNumber is PortingNumberParams as the service reads it.
type wirePortingNumber struct {
	Number              string `json:"Number"`
	PortType            string `json:"PortType"`
	PortAddress         string `json:"PortAddress"`
	IncomingActionType  string `json:"IncomingActionType,omitempty"`
	IncomingActionID    string `json:"IncomingActionId,omitempty"`
	IncomingAnswerPoint string `json:"IncomingAnswerPoint,omitempty"`
}

type wirePortingRequest struct {
	AuthorisedContactName   string              `json:"AuthorisedContactName"`
	AuthorisedContactEmail  string              `json:"AuthorisedContactEmail"`
	DaytimeContactNumber    string              `json:"DaytimeContactNumber"`
	CurrentCarrier          string              `json:"CurrentCarrier"`
	CurrentCarrierAccountNo string              `json:"CurrentCarrierAccountNo"`
	PreferredPortSchedule   PortSchedule        `json:"PreferredPortSchedule"`
	PreferredPortDate       string              `json:"PreferredPortDate,omitempty"`
	CustomerDescription     string              `json:"CustomerDescription,omitempty"`
	WebhookURL              string              `json:"WebHookURL,omitempty"`
	PortingNumbers          []wirePortingNumber `json:"PortingNumbers,omitempty"`
}

func (p *PortingRequestParams) wire() *wirePortingRequest {
	w := &wirePortingRequest{
		AuthorisedContactName:   p.AuthorisedContactName,
		AuthorisedContactEmail:  p.AuthorisedContactEmail,
		DaytimeContactNumber:    p.DaytimeContactNumber,
		CurrentCarrier:          p.CurrentCarrier,
		CurrentCarrierAccountNo: p.CurrentCarrierAccountNo,
		PreferredPortSchedule:   p.PreferredPortSchedule,
		CustomerDescription:     p.CustomerDescription,
		WebhookURL:              p.WebhookURL,
	}
	for _, n := range p.PortingNumbers {
		w.PortingNumbers = append(w.PortingNumbers, wirePortingNumber(n))
	}
	if !p.PreferredPortDate.IsZero() {
		w.PreferredPortDate = p.PreferredPortDate.Format(time.DateOnly)
	}
	return w
}

// The shapes of the answers: a request under PortingRequest or bare, the
// status listing under PortingRequests.
var (
	portingShape = resourceOf[PortingRequest]("PortingNo", "PortingRequest")
	portingList  = listOf[PortingRequest]("PortingRequests")
)

// Submit submits a porting request for the project:
// POST /v2/Properties/{PropertySid}/Porting. It is not retried once the
// request may have reached the service.
func (s *PortingService) Submit(ctx context.Context, propertySid string, p *PortingRequestParams) (*PortingRequest, error) {
	const op = "Porting.Submit"
	if err := s.client.precheck(op, "PropertySid", propertySid, p != nil, p.check); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodPost,
		path: escapedPath("/v2/Properties/{PropertySid}/Porting", propertySid), body: p.wire()}, portingShape)
}

// PortingStatusParams selects porting requests by the window of their
// status updates (GET .../Porting/Status). From and To are required, From
// before To.
type PortingStatusParams struct {
	From, To              time.Time // wire Unix seconds
	PortingRequestNumbers []string  // filter by request number; sent comma-separated
	ListParams                      // Results_Count default 20
}

// wirePortingStatus is PortingStatusParams as the query carries it.
type wirePortingStatus struct {
	From                  int64             `url:"From"`
	To                    int64             `url:"To"`
	PortingRequestNumbers commaList[string] `url:"PortingRequestNumbers,omitempty"`
	ListParams
}

func (p *PortingStatusParams) wire() *wirePortingStatus {
	return &wirePortingStatus{From: p.From.Unix(), To: p.To.Unix(),
		PortingRequestNumbers: p.PortingRequestNumbers, ListParams: p.ListParams}
}

// defaultPortingCount is the service's page size for porting status.
const defaultPortingCount = 20

// StatusByProperty returns one page of the project's porting requests
// updated in the window: GET /v2/Properties/{PropertySid}/Porting/Status.
func (s *PortingService) StatusByProperty(ctx context.Context, propertySid string, p *PortingStatusParams) (*Page[PortingRequest], error) {
	return s.status(ctx, "Porting.StatusByProperty", "PropertySid", propertySid,
		"/v2/Properties/{PropertySid}/Porting/Status", p)
}

// StatusByAccount returns one page of the account's porting requests
// updated in the window: GET /v2/Accounts/{AccountSid}/Porting/Status.
func (s *PortingService) StatusByAccount(ctx context.Context, accountSid string, p *PortingStatusParams) (*Page[PortingRequest], error) {
	return s.status(ctx, "Porting.StatusByAccount", "AccountSid", accountSid,
		"/v2/Accounts/{AccountSid}/Porting/Status", p)
}

func (s *PortingService) status(ctx context.Context, op, ownerName, owner, pattern string, p *PortingStatusParams) (*Page[PortingRequest], error) {
	if err := s.client.precheck(op, ownerName, owner, p != nil, p.check); err != nil {
		return nil, err
	}
	return getList(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath(pattern, owner), query: p.wire()}, portingList)
}

// StatusByPropertyAll iterates over every request StatusByProperty finds.
func (s *PortingService) StatusByPropertyAll(ctx context.Context, propertySid string, p *PortingStatusParams) iter.Seq2[PortingRequest, error] {
	return s.statusAll(ctx, "Porting.StatusByPropertyAll", p, func(ctx context.Context, q *PortingStatusParams) (*Page[PortingRequest], error) {
		return s.StatusByProperty(ctx, propertySid, q)
	})
}

// StatusByAccountAll iterates over every request StatusByAccount finds.
func (s *PortingService) StatusByAccountAll(ctx context.Context, accountSid string, p *PortingStatusParams) iter.Seq2[PortingRequest, error] {
	return s.statusAll(ctx, "Porting.StatusByAccountAll", p, func(ctx context.Context, q *PortingStatusParams) (*Page[PortingRequest], error) {
		return s.StatusByAccount(ctx, accountSid, q)
	})
}

func (s *PortingService) statusAll(ctx context.Context, op string, p *PortingStatusParams,
	get func(context.Context, *PortingStatusParams) (*Page[PortingRequest], error)) iter.Seq2[PortingRequest, error] {
	q := deref(p)
	q.PortingRequestNumbers = append([]string(nil), q.PortingRequestNumbers...)
	return skipIterate(ctx, op, q.ListParams, defaultPortingCount,
		func(ctx context.Context, lp ListParams) (*Page[PortingRequest], error) {
			r := q
			r.ListParams = lp
			return get(ctx, &r)
		})
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Validate checks the rules of Porting.Submit; see PortingRequestParams.
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
// position is not negative. It serves two methods and reports its problems
// under the operation name "Porting.StatusByProperty"; StatusByAccount
// applies the same rules under its own name.
func (p *PortingStatusParams) Validate() error {
	const op = "Porting.StatusByProperty"
	if p == nil {
		return nilParams(op)
	}
	return p.check().err(op)
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
