package telcotest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/telcosdk/telco"
)

type wirePorting struct {
	AuthorisedContactName   string              `json:"AuthorisedContactName"`
	AuthorisedContactEmail  string              `json:"AuthorisedContactEmail"`
	DaytimeContactNumber    string              `json:"DaytimeContactNumber"`
	CurrentCarrier          string              `json:"CurrentCarrier"`
	CurrentCarrierAccountNo string              `json:"CurrentCarrierAccountNo"`
	PreferredPortSchedule   string              `json:"PreferredPortSchedule"`
	PreferredPortDate       string              `json:"PreferredPortDate"`
	CustomerDescription     string              `json:"CustomerDescription"`
	WebhookURL              string              `json:"WebHookURL"`
	PortingNumbers          []wirePortingNumber `json:"PortingNumbers"`
}

type wirePortingNumber struct {
	Number              string `json:"Number"`
	PortType            string `json:"PortType"`
	PortAddress         string `json:"PortAddress"`
	IncomingActionType  string `json:"IncomingActionType"`
	IncomingActionID    string `json:"IncomingActionId"`
	IncomingAnswerPoint string `json:"IncomingAnswerPoint"`
}

// portingSubmitted is the status of a new request and of its numbers.
const portingSubmitted = "Submitted"

func (s *Server) submitPorting(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var wp wirePorting
	if !decodeBody(w, r, &wp) {
		return
	}
	p := telco.PortingRequestParams{
		AuthorisedContactName: wp.AuthorisedContactName, AuthorisedContactEmail: wp.AuthorisedContactEmail,
		DaytimeContactNumber: wp.DaytimeContactNumber, CurrentCarrier: wp.CurrentCarrier,
		CurrentCarrierAccountNo: wp.CurrentCarrierAccountNo, PreferredPortSchedule: telco.PortSchedule(wp.PreferredPortSchedule),
		CustomerDescription: wp.CustomerDescription, WebhookURL: wp.WebhookURL,
	}
	for _, n := range wp.PortingNumbers {
		p.PortingNumbers = append(p.PortingNumbers, telco.PortingNumberParams{Number: n.Number, PortType: n.PortType,
			PortAddress: n.PortAddress, IncomingActionType: n.IncomingActionType, IncomingActionID: n.IncomingActionID,
			IncomingAnswerPoint: n.IncomingAnswerPoint})
	}
	if wp.PreferredPortDate != "" {
		d, err := time.Parse(time.DateOnly, wp.PreferredPortDate)
		if err != nil {
			writeField(w, telco.CodeParameterInvalid, "PreferredPortDate", "PreferredPortDate must be YYYY-MM-DD")
			return
		}
		p.PreferredPortDate = d
	}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		now := s.now()
		ts := telco.TimestampOf(now)
		portDate := p.PreferredPortDate
		if portDate.IsZero() {
			portDate = now.Add(3 * 24 * time.Hour).UTC().Truncate(24 * time.Hour)
		}
		req := telco.PortingRequest{
			PortingNo: fmt.Sprintf("PN%08d", s.st.id()), AccountSid: prop.AccountSid, PropertySid: prop.PropertySid,
			CustomerDescription: p.CustomerDescription, AuthorisedContactName: p.AuthorisedContactName,
			AuthorisedContactEmail: p.AuthorisedContactEmail, DaytimeContactNumber: p.DaytimeContactNumber,
			CurrentCarrier: p.CurrentCarrier, CurrentCarrierAccountNo: p.CurrentCarrierAccountNo,
			PreferredPortSchedule: p.PreferredPortSchedule, PreferredPortDate: telco.TimestampOf(p.PreferredPortDate),
			WebhookURL: p.WebhookURL, Created: ts, PortDate: telco.TimestampOf(portDate), Status: portingSubmitted,
		}
		for _, n := range p.PortingNumbers {
			req.PortingNumbers = append(req.PortingNumbers, telco.PortingNumber{
				Number: n.Number, PortType: n.PortType, PortAddress: n.PortAddress,
				IncomingActionType: n.IncomingActionType, IncomingActionID: n.IncomingActionID,
				IncomingAnswerPoint: n.IncomingAnswerPoint, Status: portingSubmitted,
				StatusHistory: []telco.PortingStatusChange{{FdxStatusTo: portingSubmitted, CarrierPortingStatusTo: "Pending", Created: ts}},
			})
		}
		s.st.porting = append(s.st.porting, &portingRec{req: req, updated: now})
		writeJSON(w, http.StatusOK, map[string]any{"PortingRequest": req})
	})
}

// SetPortingStatus moves a porting request and its numbers to status,
// recording the change in each number's history, as the service does when
// the carriers report progress. Setting the status it already has changes
// nothing (no history entry, no webhook). It reports whether the request
// exists.
func (s *Server) SetPortingStatus(portingNo, status string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setPortingStatus(portingNo, status) != nil
}

// setPortingStatus is SetPortingStatus, returning the request it moved
// (nil when there is none). The caller holds s.mu.
func (s *Server) setPortingStatus(portingNo, status string) *telco.PortingRequest {
	for _, rec := range s.st.porting {
		if rec.req.PortingNo != portingNo {
			continue
		}
		if rec.req.Status == status {
			return &rec.req // no change: no history entry and no webhook
		}
		now := s.now()
		rec.req.Status, rec.updated = status, now
		for i := range rec.req.PortingNumbers {
			n := &rec.req.PortingNumbers[i]
			carrierFrom := ""
			if h := n.StatusHistory; len(h) > 0 {
				carrierFrom = h[len(h)-1].CarrierPortingStatusTo
			}
			n.StatusHistory = append(n.StatusHistory, telco.PortingStatusChange{
				FdxStatusFrom: n.Status, FdxStatusTo: status, CarrierPortingStatusFrom: carrierFrom,
				CarrierPortingStatusTo: status, Created: telco.TimestampOf(now)})
			n.Status = status
		}
		s.hooks.send(CallbackPortingStatus, rec.req.WebhookURL, http.MethodPost, rec.req)
		return &rec.req
	}
	return nil
}

func (s *Server) portingStatus(w http.ResponseWriter, r *http.Request, propertySid string) {
	q := r.URL.Query()
	var p telco.PortingStatusParams
	for _, d := range []struct {
		name string
		t    *time.Time
	}{{"From", &p.From}, {"To", &p.To}} {
		if v := q.Get(d.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				writeField(w, telco.CodeParameterInvalid, d.name, d.name+" must be Unix seconds")
				return
			}
			*d.t = time.Unix(n, 0)
		}
	}
	if v := q.Get("PortingRequestNumbers"); v != "" {
		p.PortingRequestNumbers = strings.Split(v, ",")
	}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if propertySid != "" && s.ownProperty(w, r, propertySid) == nil {
		return
	}
	var found []*telco.PortingRequest // only the page is copied
	for _, rec := range s.st.porting {
		if rec.req.AccountSid != caller(r) || (propertySid != "" && rec.req.PropertySid != propertySid) {
			continue
		}
		if rec.updated.Before(p.From) || !rec.updated.Before(p.To) {
			continue
		}
		if len(p.PortingRequestNumbers) > 0 && !contains(p.PortingRequestNumbers, rec.req.PortingNo) {
			continue
		}
		found = append(found, &rec.req)
	}
	page, next, ok := skipPage(w, q, found, 20)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, listing("PortingRequests", copyPage(page), len(found), next))
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == v {
			return true
		}
	}
	return false
}

func (s *Server) portingStatusByProperty(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.portingStatus(w, r, pp["PropertySid"])
}

func (s *Server) portingStatusByAccount(w http.ResponseWriter, r *http.Request, _ pathParams) {
	s.portingStatus(w, r, "")
}
