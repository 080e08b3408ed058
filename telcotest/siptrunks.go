package telcotest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/telcosdk/telco"
)

type wireSipTrunk struct {
	Name            string `json:"Name"`
	DefaultCallerID string `json:"DefaultCallerId"`
	Type            *int   `json:"Type"`
	IPAddresses     []struct {
		IPAddress string `json:"IpAddress"`
	} `json:"SipTrunkIpAddresses"`
	Credentials *struct {
		Realm    string `json:"Realm"`
		Password string `json:"Password"`
	} `json:"SipTrunkCredentials"`
	AllowedCountries []struct {
		CountryCode string `json:"CountryCode"`
	} `json:"SipTrunkAllowedCountries"`
	ChannelLimit      int    `json:"ChannelLimit"`
	CustomerReference string `json:"CustomerReference"`
}

// createSipTrunk stores the trunk without its password, which the service
// never returns. A new trunk reads as Provisioning once, then as Active.
func (s *Server) createSipTrunk(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var wt wireSipTrunk
	if !decodeBody(w, r, &wt) {
		return
	}
	if wt.Type == nil {
		writeField(w, telco.CodeParameterRequired, "Type", "Type is required")
		return
	}
	p := telco.CreateSipTrunkParams{Name: wt.Name, DefaultCallerID: wt.DefaultCallerID, Type: telco.SipTrunkType(*wt.Type),
		ChannelLimit: wt.ChannelLimit, CustomerReference: wt.CustomerReference}
	for _, a := range wt.IPAddresses {
		p.IPAddresses = append(p.IPAddresses, a.IPAddress)
	}
	if wt.Credentials != nil {
		p.Credentials = &telco.SipCredentials{Realm: wt.Credentials.Realm, Password: wt.Credentials.Password}
	}
	for _, c := range wt.AllowedCountries {
		p.AllowedCountries = append(p.AllowedCountries, c.CountryCode)
	}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		now := telco.TimestampOf(s.now())
		t := telco.SipTrunk{SipTrunkSid: newSid("ST"), Created: now, Modified: now, Name: p.Name, Type: p.Type,
			ChannelLimit: max(p.ChannelLimit, 1), CustomerReference: p.CustomerReference,
			ExternalReference: "EXT-" + strconv.Itoa(s.st.id()), DefaultCallerID: p.DefaultCallerID,
			ProvisioningState: telco.ProvisioningProvisioning}
		countries := p.AllowedCountries
		if len(countries) == 0 {
			countries = []string{"AU"}
		}
		for _, c := range countries {
			t.SipTrunkAllowedCountries = append(t.SipTrunkAllowedCountries,
				telco.SipTrunkCountry{Created: now, Modified: now, CountryCode: strings.ToUpper(c)})
		}
		for _, a := range p.IPAddresses {
			if !strings.Contains(a, "/") {
				a += "/32"
			}
			t.SipTrunkIPAddresses = append(t.SipTrunkIPAddresses, telco.SipTrunkIPAddress{Created: now, Modified: now, IPAddress: a})
		}
		if p.Credentials != nil {
			realm := p.Credentials.Realm
			if realm == "" {
				realm = strings.ToLower(t.SipTrunkSid) + ".sip.telcotest.invalid"
			}
			t.SipTrunkCredentials = &telco.SipTrunkCredentials{Created: now, Modified: now, Realm: realm}
		}
		s.st.trunks = append(s.st.trunks, &trunkRec{propertySid: prop.PropertySid, trunk: t})
		writeJSON(w, http.StatusOK, map[string]string{"SipTrunkSid": t.SipTrunkSid})
	})
}

// view is the trunk as its next read shows it: Provisioning on the first
// read, Active from the second on. read commits that.
func (t *trunkRec) view() telco.SipTrunk {
	v := t.trunk
	if t.reads >= 1 && v.ProvisioningState == telco.ProvisioningProvisioning {
		v.ProvisioningState = telco.ProvisioningActive
	}
	return v
}

func (t *trunkRec) read() telco.SipTrunk {
	t.trunk = t.view()
	t.reads++
	return t.trunk
}

func (s *Server) listSipTrunks(w http.ResponseWriter, r *http.Request, pp pathParams) {
	q := r.URL.Query()
	var typ, state *int
	for _, f := range []struct {
		name string
		dst  **int
		max  int
	}{{"Type", &typ, 1}, {"ProvisioningState", &state, 3}} {
		if v := q.Get(f.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > f.max {
				writeField(w, telco.CodeParameterInvalid, f.name, f.name+" must be 0 to "+strconv.Itoa(f.max))
				return
			}
			*f.dst = &n
		}
	}
	active, ok := queryBool(w, q, "Active")
	if !ok {
		return
	}
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		// Filter on how each trunk would read now; only those returned are read.
		var found []*trunkRec
		for _, t := range s.st.trunks {
			if t.propertySid != prop.PropertySid {
				continue
			}
			v := t.view()
			isActive := v.ProvisioningState == telco.ProvisioningActive && v.EndDate == 0
			if (typ != nil && int(v.Type) != *typ) || (state != nil && int(v.ProvisioningState) != *state) ||
				(active != nil && *active != isActive) {
				continue
			}
			found = append(found, t)
		}
		page, next, ok := skipPage(w, q, found, 50)
		if !ok {
			return
		}
		base := make([]telco.SipTrunk, len(page))
		for i, t := range page {
			base[i] = t.read()
			base[i].SipTrunkAllowedCountries, base[i].SipTrunkNumberRanges = nil, nil
			base[i].SipTrunkIPAddresses, base[i].SipTrunkCredentials = nil, nil
		}
		writeJSON(w, http.StatusOK, listing("SipTrunks", base, len(found), next))
	})
}

func (s *Server) trunkDetails(w http.ResponseWriter, r *http.Request, propertySid, sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if propertySid != "" && s.ownProperty(w, r, propertySid) == nil {
		return
	}
	for _, t := range s.st.trunks {
		if t.trunk.SipTrunkSid == sid && (propertySid == "" || t.propertySid == propertySid) {
			if s.st.owner(t.propertySid) != caller(r) {
				forbidden(w, "sip trunk")
				return
			}
			writeJSON(w, http.StatusOK, t.read())
			return
		}
	}
	notFound(w, "sip trunk")
}

func (s *Server) sipTrunkDetailsByProperty(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.trunkDetails(w, r, pp["PropertySid"], pp["SipTrunkSid"])
}

func (s *Server) sipTrunkDetailsByAccount(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.trunkDetails(w, r, "", pp["SipTrunkSid"])
}
