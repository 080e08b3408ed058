package telcotest

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/rules"
)

func (s *Server) configureNumber(w http.ResponseWriter, r *http.Request, pp pathParams) {
	digits := pp["Number"]
	if !rules.IsE164("+" + digits) {
		writeField(w, telco.CodeInvalidPhoneNumberFormat, "Number", "The Number is not in E.164 format.")
		return
	}
	var wc wireNumberConfig
	if !decodeFlat(w, r, &wc) {
		return
	}
	p := wc.params()
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.st.numbers[digits]
	if rec == nil {
		notFound(w, "number")
		return
	}
	if rec.cfg.AccountSid != caller(r) {
		forbidden(w, "number")
		return
	}
	if a := s.st.address(p.AddressSid); p.AddressSid != "" && (a == nil || a.AccountSid != caller(r)) {
		// Another account's address is as good as unknown here.
		writeField(w, telco.CodeAddressNotFound, "AddressSid", "The address was not found.")
		return
	}
	s.seedFlows(rec.propertySid)
	if p.Flow != "" && s.st.flow(rec.propertySid, p.Flow) == nil {
		// Flows.List shows the ConfigIds a number of this project can take.
		writeField(w, telco.CodeFlowNotFound, "Flow", "The flow "+p.Flow+" was not found in the number's project.")
		return
	}
	wc.apply(&rec.cfg)
	// The bare resource: the interface document wraps only where it says so.
	writeJSON(w, http.StatusOK, rec.cfg)
}

// wireNumberConfig is the body of Numbers.Configure, with the interface
// document's names (operation 3). Every field is optional; a field given
// as "" is emptied, when it is one that can be (see apply), which is how
// a client detaches an address or stops a forward.
type wireNumberConfig struct {
	Friendly                     *string `json:"Friendly"`
	AddressSid                   *string `json:"AddressSid"`
	AttributionSource            *string `json:"Attribution_Source"`
	AttributionMedium            *string `json:"Attribution_Medium"`
	AttributionCampaign          *string `json:"Attribution_Campaign"`
	AttributionContent           *string `json:"Attribution_Content"`
	RoutingMethod                *string `json:"RoutingMethod"`
	EndpointNumber               *string `json:"EndpointNumber"`
	Flow                         *string `json:"Flow"`
	Recording                    *string `json:"Recording"`
	SendSmsFrom                  *string `json:"SendSmsFrom"`
	SendSmsTo                    *string `json:"SendSmsTo"`
	SendEmailFrom                *string `json:"SendEmailFrom"`
	SendEmailTo                  *string `json:"SendEmailTo"`
	WebHookURL                   *string `json:"WebHookUrl"`
	WebHookMethod                *string `json:"WebHookMethod"`
	DeliveryReceiptWebHookURL    *string `json:"DeliveryReceiptWebHookUrl"`
	DeliveryReceiptWebHookMethod *string `json:"DeliveryReceiptWebHookMethod"`
}

// params is the request as the SDK's params, for its Validate: the
// values set, without the fields emptied, which have nothing to check.
func (wc *wireNumberConfig) params() *telco.NumberConfigParams {
	v := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return &telco.NumberConfigParams{
		Friendly: v(wc.Friendly), AddressSid: v(wc.AddressSid),
		AttributionSource: v(wc.AttributionSource), AttributionMedium: v(wc.AttributionMedium),
		AttributionCampaign: v(wc.AttributionCampaign), AttributionContent: v(wc.AttributionContent),
		RoutingMethod: telco.RoutingMethod(v(wc.RoutingMethod)), EndpointNumber: v(wc.EndpointNumber),
		Flow: v(wc.Flow), Recording: telco.Recording(v(wc.Recording)),
		SendSmsFrom: v(wc.SendSmsFrom), SendSmsTo: v(wc.SendSmsTo),
		SendEmailFrom: v(wc.SendEmailFrom), SendEmailTo: v(wc.SendEmailTo),
		WebhookURL: v(wc.WebHookURL), WebhookMethod: v(wc.WebHookMethod),
		DeliveryReceiptWebhookURL: v(wc.DeliveryReceiptWebHookURL), DeliveryReceiptWebhookMethod: v(wc.DeliveryReceiptWebHookMethod),
	}
}

// apply sets the fields given with a value and empties those given as ""
// that can be emptied: all but the routing (RoutingMethod,
// EndpointNumber, Flow) and Recording, which always hold a setting, so
// that "" there leaves them as they are. Webhook methods are stored in
// upper case, as the service sends them.
func (wc *wireNumberConfig) apply(c *telco.NumberConfig) {
	for _, f := range []struct {
		dst       *string
		v         *string
		clearable bool
	}{
		{&c.Friendly, wc.Friendly, true}, {&c.AddressSid, wc.AddressSid, true},
		{&c.AttributionSource, wc.AttributionSource, true}, {&c.AttributionMedium, wc.AttributionMedium, true},
		{&c.AttributionCampaign, wc.AttributionCampaign, true}, {&c.AttributionContent, wc.AttributionContent, true},
		{&c.EndpointNumber, wc.EndpointNumber, false}, {&c.Flow, wc.Flow, false},
		{&c.SendSmsFrom, wc.SendSmsFrom, true}, {&c.SendSmsTo, wc.SendSmsTo, true},
		{&c.SendEmailFrom, wc.SendEmailFrom, true}, {&c.SendEmailTo, wc.SendEmailTo, true},
		{&c.WebhookURL, wc.WebHookURL, true}, {&c.WebhookMethod, upper(wc.WebHookMethod), true},
		{&c.DeliveryReceiptWebhookURL, wc.DeliveryReceiptWebHookURL, true},
		{&c.DeliveryReceiptWebhookMethod, upper(wc.DeliveryReceiptWebHookMethod), true},
	} {
		switch {
		case f.v == nil:
		case *f.v != "":
			*f.dst = *f.v
		case f.clearable:
			*f.dst = ""
		}
	}
	if m := wc.RoutingMethod; m != nil && *m != "" {
		c.RoutingMethod = telco.RoutingMethod(*m)
	}
	if r := wc.Recording; r != nil && *r != "" {
		c.Recording = telco.Recording(*r)
	}
}

// upper is s in upper case, nil for nil.
func upper(s *string) *string {
	if s == nil {
		return nil
	}
	u := strings.ToUpper(*s)
	return &u
}

// carriers are the fake's carriers, by carrier access code.
var carriers = []telco.Carrier{{CAC: 1, Name: "Telstra"}, {CAC: 2, Name: "Optus"}, {CAC: 3, Name: "Vodafone"}}

// numberDetails answers a lookup with made-up but stable data: the same
// number always gets the same carriers, and about one in four has been
// ported.
func (s *Server) numberDetails(w http.ResponseWriter, r *http.Request, _ pathParams) {
	raw := r.URL.Query().Get("Numbers")
	if strings.TrimSpace(raw) == "" {
		writeField(w, telco.CodeParameterRequired, "Numbers", "Numbers is required")
		return
	}
	// "+61..., 0299..." is a list a person writes: each item is trimmed.
	numbers := strings.Split(raw, ",")
	for i := range numbers {
		numbers[i] = strings.TrimSpace(numbers[i])
	}
	if fs := rules.LookupNumbers(numbers, fieldError); len(fs) > 0 {
		writeInvalid(w, &telco.ValidationError{Op: "Lookup.NumberDetails", Fields: fs})
		return
	}
	out := make([]telco.NumberDetail, len(numbers))
	for i, n := range numbers {
		digits := strings.TrimPrefix(n, "+")
		if !strings.HasPrefix(n, "+") && strings.HasPrefix(n, "0") {
			digits = "61" + n[1:] // local Australian form
		}
		e164, _ := strconv.ParseInt(digits, 10, 64)
		h := fnv.New32a()
		_, _ = h.Write([]byte(digits))
		v := h.Sum32()
		assigned := carriers[v%3]
		current := assigned
		ported := ""
		if v%4 == 0 {
			current = carriers[(v+1)%3]
			ported = "Y"
		}
		area := "Sydney"
		if strings.HasPrefix(digits, "614") {
			area = "Mobile"
		}
		out[i] = telco.NumberDetail{E164: e164, AssignedCarrier: assigned, CurrentCarrier: current,
			NumberingArea: area, PortedActionIndicator: ported, ThirdParty: false, AlreadyPorting: -1,
			Reason: fmt.Sprintf("Found in the numbering register (%s)", area)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"numbers": out})
}

// addNumber stores a number of the project, its type and capabilities
// told by its prefix (see numberKind). The caller holds s.mu.
func (st *store) addNumber(prop *telco.Property, digits, addressSid string, status telco.NumberStatus) *numberRec {
	typ, caps := numberKind(digits)
	rec := &numberRec{propertySid: prop.PropertySid, typ: typ, caps: caps, status: status, cfg: telco.NumberConfig{
		Number: digits, AccountSid: prop.AccountSid, PropertySid: prop.PropertySid, AddressSid: addressSid,
		RoutingMethod: telco.RoutingEndpoint, Recording: telco.RecordingOff,
	}}
	st.numbers[digits] = rec
	return rec
}

// numberKind is the fake's numbering plan, Australian as the service's:
// 611800 and 611802 (1800, 1802) are toll-free and voice only, 6113 (13
// and 1300) shared-rate and voice only, 614 mobile (National, with SMS),
// anything else local with voice and SMS.
func numberKind(digits string) (telco.NumberType, telco.NumberCapabilities) {
	voice := telco.NumberCapabilities{telco.CapabilityVoice}
	switch {
	case strings.HasPrefix(digits, "611800"), strings.HasPrefix(digits, "611802"):
		return telco.NumberTollFree, voice
	case strings.HasPrefix(digits, "6113"):
		return telco.NumberSharedRate, voice
	case strings.HasPrefix(digits, "614"):
		return telco.NumberNational, telco.NumberCapabilities{telco.CapabilityVoice, telco.CapabilitySMS}
	}
	return telco.NumberLocal, telco.NumberCapabilities{telco.CapabilityVoice, telco.CapabilitySMS}
}

// view is the number as Get Numbers answers it.
func (n *numberRec) view() telco.Number {
	country, _ := countryOf(n.cfg.Number)
	return telco.Number{NumberConfig: n.cfg, Type: n.typ, Capabilities: append(telco.NumberCapabilities(nil), n.caps...),
		Status: n.status, CountryCode: country}
}

// countryOf is the ISO code of a number's country, for the few country
// codes the fake knows, and whether it knows it.
func countryOf(digits string) (string, bool) {
	for _, c := range []struct{ prefix, iso string }{{"61", "AU"}, {"64", "NZ"}, {"44", "GB"}, {"1", "US"}} {
		if strings.HasPrefix(digits, c.prefix) {
			return c.iso, true
		}
	}
	return "", false
}

// getNumber answers a number of the caller's account, bare as
// configureNumber answers it.
func (s *Server) getNumber(w http.ResponseWriter, r *http.Request, pp pathParams) {
	digits := pp["Number"]
	if !rules.IsE164("+" + digits) {
		writeField(w, telco.CodeInvalidPhoneNumberFormat, "Number", "The Number is not in E.164 format.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.st.numbers[digits]
	if rec == nil {
		notFound(w, "number")
		return
	}
	if rec.cfg.AccountSid != caller(r) {
		forbidden(w, "number")
		return
	}
	writeJSON(w, http.StatusOK, rec.view())
}

func (s *Server) listNumbersByProperty(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		s.listNumbers(w, r, func(n *numberRec) bool { return n.propertySid == prop.PropertySid })
	})
}

func (s *Server) listNumbersByAccount(w http.ResponseWriter, r *http.Request, _ pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	acct := caller(r)
	s.listNumbers(w, r, func(n *numberRec) bool { return n.cfg.AccountSid == acct })
}

// listNumbers answers the numbers that pass keep and the query's Type and
// Capabilites filters (a number has one of the types asked and every
// capability asked), in number order. The caller holds s.mu.
func (s *Server) listNumbers(w http.ResponseWriter, r *http.Request, keep func(*numberRec) bool) {
	q := r.URL.Query()
	var p telco.ListNumbersParams
	for _, t := range splitList(q.Get("Type"), ",") {
		p.Types = append(p.Types, telco.NumberType(t))
	}
	for _, c := range splitList(q.Get("Capabilites"), ",") {
		p.Capabilities = append(p.Capabilities, telco.NumberCapability(c))
	}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	if count, ok := queryInt(w, q, "Results_Count", 0); !ok {
		return
	} else if count > telco.MaxNumbersCount {
		writeField(w, telco.CodeParameterInvalid, "Results_Count", "Results_Count must be at most 200")
		return
	}
	var out []telco.Number
	for _, n := range s.st.numbers {
		if !keep(n) || (len(p.Types) > 0 && !slices.Contains(p.Types, n.typ)) {
			continue
		}
		all := true
		for _, c := range p.Capabilities {
			all = all && n.caps.Has(c)
		}
		if all {
			out = append(out, n.view())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	page, next, ok := skipPage(w, q, out, telco.MaxNumbersCount)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, listing("Numbers", page, len(out), next))
}

// splitList splits a comma- or semicolon-separated filter, trimming each
// item and dropping empty ones.
func splitList(v, sep string) []string {
	var out []string
	for _, s := range strings.Split(v, sep) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// purchaseNumber adds the number to the project. With an AddressSid (the
// caller's) the number is registered with it and Active; without, the
// first of the account's addresses in the number's country is assigned,
// and the number is Pending when there is none.
func (s *Server) purchaseNumber(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var wp struct {
		Number     string `json:"Number"`
		AddressSid string `json:"AddressSid"`
	}
	if !decodeBody(w, r, &wp) {
		return
	}
	p := telco.PurchaseNumberParams{Number: wp.Number, AddressSid: wp.AddressSid}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	digits := strings.TrimPrefix(strings.TrimSpace(p.Number), "+")
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		if rec := s.st.numbers[digits]; rec != nil {
			if rec.propertySid == prop.PropertySid {
				writeField(w, telco.CodeNumberAlreadyPurchased, "Number", "The project already has +"+digits+".")
				return
			}
			writeField(w, telco.CodeNumberBelongsToDifferentProperty, "Number", "+"+digits+" belongs to another project.")
			return
		}
		address := strings.TrimSpace(p.AddressSid)
		if address != "" {
			if a := s.st.address(address); a == nil || a.AccountSid != caller(r) {
				writeField(w, telco.CodeAddressNotFound, "AddressSid", "The address was not found.")
				return
			}
		} else {
			country, known := countryOf(digits)
			for _, a := range s.st.addresses {
				if a.AccountSid == prop.AccountSid && (!known || a.CountryCode == country) {
					address = a.AddressSid
					break
				}
			}
		}
		status := telco.NumberActive
		if address == "" {
			status = telco.NumberPending
		}
		rec := s.st.addNumber(prop, digits, address, status)
		writeJSON(w, http.StatusOK, map[string]any{"Number": "+" + rec.cfg.Number, "Status": rec.status})
	})
}
