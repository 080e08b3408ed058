package telcotest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
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
	// Decoded twice: once for the values, once for which keys came with an
	// empty string, which empties the field (NumberConfigParams.Clear).
	var raw map[string]json.RawMessage
	if !decodeFlat(w, r, &raw) {
		return
	}
	b, _ := json.Marshal(raw)
	var p telco.NumberConfigParams
	if err := json.Unmarshal(b, &p); err != nil {
		writeError(w, http.StatusBadRequest, "SerializationException", "Could not deserialize request: "+err.Error())
		return
	}
	cleared := map[string]bool{}
	for k, v := range raw {
		if string(v) == `""` {
			cleared[strings.ToLower(k)] = true // names are matched as the decoder does, in any case
		}
	}
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
	c := &rec.cfg
	for _, f := range []struct {
		dst  *string
		v    string
		wire telco.NumberField // "" for a field that cannot be emptied
	}{
		{&c.Friendly, p.Friendly, telco.NumberFieldFriendly}, {&c.AddressSid, p.AddressSid, telco.NumberFieldAddressSid},
		{&c.AttributionSource, p.AttributionSource, telco.NumberFieldAttributionSource},
		{&c.AttributionMedium, p.AttributionMedium, telco.NumberFieldAttributionMedium},
		{&c.AttributionCampaign, p.AttributionCampaign, telco.NumberFieldAttributionCampaign},
		{&c.AttributionContent, p.AttributionContent, telco.NumberFieldAttributionContent},
		{&c.EndpointNumber, p.EndpointNumber, ""}, {&c.Flow, p.Flow, ""},
		{&c.SendSmsFrom, p.SendSmsFrom, telco.NumberFieldSendSmsFrom}, {&c.SendSmsTo, p.SendSmsTo, telco.NumberFieldSendSmsTo},
		{&c.SendEmailFrom, p.SendEmailFrom, telco.NumberFieldSendEmailFrom}, {&c.SendEmailTo, p.SendEmailTo, telco.NumberFieldSendEmailTo},
		{&c.WebhookURL, p.WebhookURL, telco.NumberFieldWebhookURL},
		{&c.WebhookMethod, strings.ToUpper(p.WebhookMethod), telco.NumberFieldWebhookMethod},
		{&c.DeliveryReceiptWebhookURL, p.DeliveryReceiptWebhookURL, telco.NumberFieldDeliveryReceiptWebhookURL},
		{&c.DeliveryReceiptWebhookMethod, strings.ToUpper(p.DeliveryReceiptWebhookMethod), telco.NumberFieldDeliveryReceiptWebhookMethod},
	} {
		switch {
		case f.v != "":
			*f.dst = f.v
		case f.wire != "" && cleared[strings.ToLower(string(f.wire))]:
			*f.dst = ""
		}
	}
	if p.RoutingMethod != "" {
		c.RoutingMethod = p.RoutingMethod
	}
	if p.Recording != "" {
		c.Recording = p.Recording
	}
	// The bare resource: the interface document wraps only where it says so.
	writeJSON(w, http.StatusOK, *c)
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
