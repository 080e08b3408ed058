package telcotest

import (
	"net/http"
	"strings"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/rules"
)

func (st *store) address(sid string) *telco.Address {
	for _, a := range st.addresses {
		if a.AddressSid == sid {
			return a
		}
	}
	return nil
}

// createAddress stores a new address, Approved at once. A CountryCode
// that ISO 3166-1 does not assign is refused with COUNTRY_NOT_FOUND.
func (s *Server) createAddress(w http.ResponseWriter, r *http.Request, _ pathParams) {
	var wa struct {
		Line1       string `json:"Line1"`
		City        string `json:"City"`
		CountryCode string `json:"CountryCode"`
		Friendly    string `json:"Friendly"`
		Reference   string `json:"Reference"`
		Line2       string `json:"Line2"`
		Region      string `json:"Region"`
		PostalCode  string `json:"PostalCode"`
	}
	if !decodeFlat(w, r, &wa) {
		return
	}
	p := telco.CreateAddressParams{Line1: wa.Line1, City: wa.City, CountryCode: wa.CountryCode, Friendly: wa.Friendly,
		Reference: wa.Reference, Line2: wa.Line2, Region: wa.Region, PostalCode: wa.PostalCode}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	// Validate checks the shape; which codes exist only the service knows.
	if !rules.IsAssignedCountryCode(p.CountryCode) {
		writeField(w, telco.CodeCountryNotFound, "CountryCode", "The country "+strings.ToUpper(p.CountryCode)+" was not found.")
		return
	}
	a := &telco.Address{
		AddressSid: newSid("AD"), AccountSid: caller(r), Friendly: p.Friendly, Reference: p.Reference,
		Line1: p.Line1, Line2: p.Line2, City: p.City, Region: p.Region,
		CountryCode: strings.ToUpper(p.CountryCode), PostalCode: p.PostalCode, Status: "Approved",
	}
	s.mu.Lock()
	s.st.addresses = append(s.st.addresses, a)
	out := *a
	s.mu.Unlock()
	// The bare resource: the interface document wraps only where it says so.
	writeJSON(w, http.StatusOK, out)
}

// deleteAddress refuses while a number relies on the address.
func (s *Server) deleteAddress(w http.ResponseWriter, r *http.Request, pp pathParams) {
	sid := pp["AddressSid"]
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.st.address(sid)
	if a == nil {
		notFound(w, "address")
		return
	}
	if a.AccountSid != caller(r) {
		forbidden(w, "address")
		return
	}
	for _, n := range s.st.numbers {
		if n.cfg.AddressSid == sid {
			writeError(w, http.StatusBadRequest, telco.CodeAddressCannotBeDeleted,
				"The address cannot be deleted: number +"+n.cfg.Number+" relies on it for registration.")
			return
		}
	}
	kept := s.st.addresses[:0]
	for _, a := range s.st.addresses {
		if a.AddressSid != sid {
			kept = append(kept, a)
		}
	}
	s.st.addresses = kept
	writeJSON(w, http.StatusOK, map[string]string{"AddressSid": sid})
}

// listAddresses answers the account's addresses that match every filter
// given, exactly, in creation order.
func (s *Server) listAddresses(w http.ResponseWriter, r *http.Request, _ pathParams) {
	q := r.URL.Query()
	p := telco.ListAddressesParams{Friendly: q.Get("Friendly"), Reference: q.Get("Reference"), City: q.Get("City"),
		Region: q.Get("Region"), CountryCode: q.Get("CountryCode"), PostalCode: q.Get("PostalCode")}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []telco.Address
	for _, a := range s.st.addresses {
		if a.AccountSid != caller(r) {
			continue
		}
		match := true
		for _, f := range [][2]string{{p.Friendly, a.Friendly}, {p.Reference, a.Reference}, {p.City, a.City},
			{p.Region, a.Region}, {p.CountryCode, a.CountryCode}, {p.PostalCode, a.PostalCode}} {
			match = match && (f[0] == "" || f[0] == f[1])
		}
		if match {
			out = append(out, *a)
		}
	}
	page, next, ok := skipPage(w, q, out, 200)
	if ok {
		writeJSON(w, http.StatusOK, listing("Addresses", page, len(out), next))
	}
}

// getAddress answers one of the caller's addresses, wrapped as the
// service's single resources are.
func (s *Server) getAddress(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.st.address(pp["AddressSid"])
	if a == nil {
		notFound(w, "address")
		return
	}
	if a.AccountSid != caller(r) {
		forbidden(w, "address")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"Address": *a})
}
