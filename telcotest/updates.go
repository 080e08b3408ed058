package telcotest

// The operations of the service's pages beyond the interface document that
// change what the fake stores: the login and trunk merge patches, and the
// purchase and configuration of number blocks.

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/telcosdk/telco"
)

// mergePatch reports whether the request carries a JSON body, answering
// 400 naming Content-Type when it does not, as updateProperty does.
func mergePatch(w http.ResponseWriter, r *http.Request) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/merge-patch+json" && mt != "application/json" {
		writeField(w, telco.CodeParameterInvalid, "Content-Type",
			"Content-Type must be application/merge-patch+json or application/json.")
		return false
	}
	return true
}

type wirePermission struct {
	AccountSid  string `json:"AccountSid"`
	PropertySid string `json:"PropertySid"`
	Scopes      string `json:"Scopes"`
}

type wireLoginPatch struct {
	Email       *string           `json:"Email"`
	FirstName   *string           `json:"FirstName"`
	LastName    *string           `json:"LastName"`
	Enabled     *bool             `json:"Enabled"`
	Password    *string           `json:"Password"`
	Permissions *[]wirePermission `json:"Permissions"`
}

// updateOnlineLogin applies a merge patch to a login and answers 204.
// Permissions, when sent, replace the login's; each must name the caller's
// account or one of its projects. The password is checked, never stored.
func (s *Server) updateOnlineLogin(w http.ResponseWriter, r *http.Request, pp pathParams) {
	if !mergePatch(w, r) {
		return
	}
	var wl wireLoginPatch
	if !decodeBody(w, r, &wl) {
		return
	}
	p := telco.UpdateOnlineLoginParams{Email: wl.Email, FirstName: wl.FirstName, LastName: wl.LastName, Enabled: wl.Enabled}
	if wl.Password != nil {
		if *wl.Password == "" {
			writeField(w, telco.CodeParameterInvalid, "Password", "Password must not be empty")
			return
		}
		p.Password = *wl.Password
	}
	if wl.Permissions != nil {
		p.Permissions = []telco.Permission{}
		for _, pm := range *wl.Permissions {
			p.Permissions = append(p.Permissions, telco.Permission{AccountSid: pm.AccountSid, PropertySid: pm.PropertySid,
				Scopes: telco.ParseScopes(pm.Scopes)})
		}
	}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.st.login(pp["OnlineLoginSid"])
	if l == nil {
		notFound(w, "online login")
		return
	}
	owner := s.loginOwner(l)
	if owner != caller(r) {
		forbidden(w, "online login")
		return
	}
	for i, pm := range p.Permissions {
		field := fmt.Sprintf("Permissions[%d]", i)
		if pm.AccountSid != "" && pm.AccountSid != owner {
			writeError(w, http.StatusForbidden, telco.CodeForbidden, field+": the account is not yours.")
			return
		}
		if pm.PropertySid != "" && s.ownProperty(w, r, pm.PropertySid) == nil {
			return
		}
	}
	if p.Email != nil {
		for _, o := range s.st.logins {
			if o != l && strings.EqualFold(o.Email, strings.TrimSpace(*p.Email)) {
				writeField(w, telco.CodeConflictingParameters, "Email", "A login with this e-mail address already exists.")
				return
			}
		}
		l.Email = strings.TrimSpace(*p.Email)
	}
	setIf(&l.FirstName, p.FirstName)
	setIf(&l.LastName, p.LastName)
	setIf(&l.Enabled, p.Enabled)
	if p.Permissions != nil {
		l.Permissions = p.Permissions
	}
	w.WriteHeader(http.StatusNoContent)
}

// login finds a login by its SID, in any case.
func (st *store) login(sid string) *telco.OnlineLogin {
	for _, l := range st.logins {
		if strings.EqualFold(l.OnlineLoginSid, sid) {
			return l
		}
	}
	return nil
}

type wireTrunkPatch struct {
	Name            *string `json:"Name"`
	DefaultCallerID *string `json:"DefaultCallerId"`
	Type            *int    `json:"Type"`
	IPAddresses     *[]struct {
		IPAddress string `json:"IpAddress"`
	} `json:"SipTrunkIpAddresses"`
	Credentials *struct {
		Realm    string `json:"Realm"`
		Password string `json:"Password"`
	} `json:"SipTrunkCredentials"`
	AllowedCountries *[]struct {
		CountryCode string `json:"CountryCode"`
	} `json:"SipTrunkAllowedCountries"`
	ChannelLimit      *int    `json:"ChannelLimit"`
	CustomerReference *string `json:"CustomerReference"`
}

func (wt *wireTrunkPatch) params() telco.UpdateSipTrunkParams {
	p := telco.UpdateSipTrunkParams{Name: wt.Name, DefaultCallerID: wt.DefaultCallerID, ChannelLimit: wt.ChannelLimit,
		CustomerReference: wt.CustomerReference}
	if wt.Type != nil {
		t := telco.SipTrunkType(*wt.Type)
		p.Type = &t
	}
	if wt.IPAddresses != nil {
		p.IPAddresses = []string{}
		for _, a := range *wt.IPAddresses {
			p.IPAddresses = append(p.IPAddresses, a.IPAddress)
		}
	}
	if wt.Credentials != nil {
		p.Credentials = &telco.SipCredentials{Realm: wt.Credentials.Realm, Password: wt.Credentials.Password}
	}
	if wt.AllowedCountries != nil {
		p.AllowedCountries = []string{}
		for _, c := range *wt.AllowedCountries {
			p.AllowedCountries = append(p.AllowedCountries, c.CountryCode)
		}
	}
	return p
}

func (s *Server) updateSipTrunkByProperty(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.updateSipTrunk(w, r, pp["PropertySid"], pp["SipTrunkSid"])
}

func (s *Server) updateSipTrunkByAccount(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.updateSipTrunk(w, r, "", pp["SipTrunkSid"])
}

// updateSipTrunk applies a merge patch to a trunk and answers 204. Lists
// replace the trunk's; the trunk must end up with what its type needs: an
// address for IP to IP, credentials for Authenticated.
func (s *Server) updateSipTrunk(w http.ResponseWriter, r *http.Request, propertySid, sid string) {
	if !mergePatch(w, r) {
		return
	}
	var wt wireTrunkPatch
	if !decodeBody(w, r, &wt) {
		return
	}
	p := wt.params()
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if propertySid != "" && s.ownProperty(w, r, propertySid) == nil {
		return
	}
	var rec *trunkRec
	for _, t := range s.st.trunks {
		if t.trunk.SipTrunkSid == sid && (propertySid == "" || t.propertySid == propertySid) {
			rec = t
		}
	}
	if rec == nil {
		notFound(w, "sip trunk")
		return
	}
	if s.st.owner(rec.propertySid) != caller(r) {
		forbidden(w, "sip trunk")
		return
	}
	now := telco.TimestampOf(s.now())
	t := rec.trunk // a copy: committed only when the result is sound
	setIf(&t.Name, p.Name)
	setIf(&t.DefaultCallerID, p.DefaultCallerID)
	setIf(&t.Type, p.Type)
	setIf(&t.ChannelLimit, p.ChannelLimit)
	setIf(&t.CustomerReference, p.CustomerReference)
	if p.IPAddresses != nil {
		t.SipTrunkIPAddresses = nil
		for _, a := range p.IPAddresses {
			if !strings.Contains(a, "/") {
				a += "/32"
			}
			t.SipTrunkIPAddresses = append(t.SipTrunkIPAddresses, telco.SipTrunkIPAddress{Created: now, Modified: now, IPAddress: a})
		}
	}
	if p.AllowedCountries != nil {
		t.SipTrunkAllowedCountries = nil
		for _, c := range p.AllowedCountries {
			t.SipTrunkAllowedCountries = append(t.SipTrunkAllowedCountries,
				telco.SipTrunkCountry{Created: now, Modified: now, CountryCode: strings.ToUpper(c)})
		}
	}
	if p.Credentials != nil && t.Type == telco.SipTrunkIPToIP {
		writeField(w, telco.CodeConflictingParameters, "SipTrunkCredentials",
			"SipTrunkCredentials are not used by an IP to IP trunk (Type 0): leave them out")
		return
	}
	if c := p.Credentials; c != nil {
		creds := telco.SipTrunkCredentials{Created: now}
		if t.SipTrunkCredentials != nil {
			creds = *t.SipTrunkCredentials
		} else if c.Password == "" {
			writeField(w, telco.CodeParameterRequired, "SipTrunkCredentials.Password",
				"SipTrunkCredentials needs a password: the trunk has none yet")
			return
		}
		if c.Realm != "" {
			creds.Realm = c.Realm
		}
		if creds.Realm == "" {
			creds.Realm = strings.ToLower(t.SipTrunkSid) + ".sip.telcotest.invalid"
		}
		creds.Modified = now
		t.SipTrunkCredentials = &creds
	}
	if t.Type == telco.SipTrunkIPToIP {
		// The fake's choice, undocumented by the service: a trunk that now
		// admits by address keeps no credentials.
		t.SipTrunkCredentials = nil
	}
	switch {
	case t.Type == telco.SipTrunkIPToIP && len(t.SipTrunkIPAddresses) == 0:
		writeField(w, telco.CodeParameterRequired, "SipTrunkIpAddresses", "SipTrunkIpAddresses is required for an IP to IP trunk (Type 0)")
		return
	case t.Type == telco.SipTrunkAuthenticated && t.SipTrunkCredentials == nil:
		writeField(w, telco.CodeParameterRequired, "SipTrunkCredentials", "SipTrunkCredentials with a password is required for an authenticated trunk (Type 1)")
		return
	}
	t.Modified = now
	rec.trunk = t
	w.WriteHeader(http.StatusNoContent)
}

type wireBlockPurchase struct {
	AnswerPoint   string `json:"AnswerPoint"`
	AccountSid    string `json:"AccountSid"`
	PropertySid   string `json:"PropertySid"`
	GroupType     *int   `json:"GroupType"`
	Preamble      *int   `json:"Preamble"`
	RoutingAction *int   `json:"RoutingAction"`
	Diaplan       string `json:"Diaplan"`
}

// purchaseNumberBlock adds a new block of 100 numbers to the project,
// routed to the answer point, and answers with its SID and the block. The
// service's answer is not documented ("a confirmation"); this one is the
// fake's choice.
func (s *Server) purchaseNumberBlock(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var wb wireBlockPurchase
	if !decodeBody(w, r, &wb) {
		return
	}
	p := telco.PurchaseNumberBlockParams{AnswerPoint: wb.AnswerPoint, AccountSid: wb.AccountSid, PropertySid: wb.PropertySid,
		GroupType: wb.GroupType, Preamble: wb.Preamble, RoutingAction: wb.RoutingAction, Dialplan: wb.Diaplan}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	if wb.AccountSid == "" && wb.PropertySid == "" {
		writeField(w, telco.CodeParameterRequired, "AccountSid", "AccountSid or PropertySid is required")
		return
	}
	if wb.PropertySid != "" && wb.PropertySid != pp["PropertySid"] {
		writeField(w, telco.CodeConflictingParameters, "PropertySid", "PropertySid must be the project of the path")
		return
	}
	if wb.AccountSid != "" && wb.AccountSid != caller(r) {
		forbidden(w, "account")
		return
	}
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		id := s.st.id()
		b := telco.NumberBlock{ID: id, NumberBlockSid: newSid("NB"), NumberPattern: fmt.Sprintf("6128%05dXX", id),
			Name: "Block " + fmt.Sprint(id), RoutingMethod: string(telco.BlockRoutingEndpoint),
			TerminationNumber: strings.TrimPrefix(wb.AnswerPoint, "+"), Active: true, BlockSize: 100,
			SupportsVoice: true, Created: telco.DateTime{Time: s.now().In(utcOffset).Truncate(time.Millisecond)}}
		b.Number = b.NumberPattern
		s.st.blocks = append(s.st.blocks, &blockRec{propertySid: prop.PropertySid, block: b})
		writeJSON(w, http.StatusOK, map[string]any{"NumberBlockSid": b.NumberBlockSid, "NumberBlock": b})
	})
}

type wireBlockConfigure struct {
	RoutingMethod  string `json:"RoutingMethod"`
	EndpointNumber string `json:"EndpointNumber"`
	Flow           string `json:"Flow"`
	Application    string `json:"Application"`
}

// configuredBlock is a block as Configure answers it: with the flow or
// application it routes to, which NumberBlock has no field for.
type configuredBlock struct {
	telco.NumberBlock
	Flow        string `json:"Flow,omitempty"`
	Application string `json:"Application,omitempty"`
}

// configureNumberBlock routes a block and answers with it. Configuring
// the same routing twice leaves the block as once. A Flow the block's
// project does not have is refused with FLOW_NOT_FOUND, as
// Numbers.Configure refuses it.
func (s *Server) configureNumberBlock(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var wc wireBlockConfigure
	if !decodeBody(w, r, &wc) {
		return
	}
	p := telco.ConfigureNumberBlockParams{RoutingMethod: telco.BlockRoutingMethod(wc.RoutingMethod),
		EndpointNumber: wc.EndpointNumber, Flow: wc.Flow, Application: wc.Application}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var rec *blockRec
	for _, b := range s.st.blocks {
		if strings.EqualFold(b.block.NumberBlockSid, pp["NumberBlockSid"]) {
			rec = b
		}
	}
	if rec == nil {
		notFound(w, "number block")
		return
	}
	if s.st.owner(rec.propertySid) != caller(r) {
		forbidden(w, "number block")
		return
	}
	if telco.BlockRoutingMethod(strings.ToLower(wc.RoutingMethod)) == telco.BlockRoutingFlow {
		// As Numbers.Configure: only a flow of the block's own project.
		s.seedFlows(rec.propertySid)
		if s.st.flow(rec.propertySid, wc.Flow) == nil {
			writeField(w, telco.CodeFlowNotFound, "Flow", "The flow "+wc.Flow+" was not found in the number block's project.")
			return
		}
	}
	b := &rec.block
	b.RoutingMethod = strings.ToLower(wc.RoutingMethod)
	rec.flow, rec.application = "", ""
	switch telco.BlockRoutingMethod(b.RoutingMethod) {
	case telco.BlockRoutingEndpoint:
		digits := strings.TrimPrefix(wc.EndpointNumber, "+")
		if strings.HasPrefix(digits, "0") {
			digits = "61" + digits[1:]
		}
		b.TerminationNumber = digits
	case telco.BlockRoutingFlow:
		rec.flow = wc.Flow
	case telco.BlockRoutingApplication:
		rec.application = wc.Application
	}
	mod := telco.DateTime{Time: s.now().In(utcOffset).Truncate(time.Millisecond)}
	b.Modified = &mod
	writeJSON(w, http.StatusOK, map[string]any{"NumberBlock": configuredBlock{*b, rec.flow, rec.application}})
}
