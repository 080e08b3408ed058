package telcotest

import (
	"net/http"
	"strings"

	"github.com/telcosdk/telco"
)

type wireOnlineLogin struct {
	Email     string `json:"Email"`
	Password  string `json:"Password"`
	FirstName string `json:"FirstName"`
	LastName  string `json:"LastName"`
	Scopes    string `json:"Scopes"`
	Enabled   bool   `json:"Enabled"`
}

// createOnlineLogin stores the login without its password: the fake, like
// the service, never gives a password back.
func (s *Server) createOnlineLogin(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var wl wireOnlineLogin
	if !decodeBody(w, r, &wl) {
		return
	}
	p := telco.CreateOnlineLoginParams{Email: wl.Email, Password: wl.Password, FirstName: wl.FirstName,
		LastName: wl.LastName, Scopes: telco.ParseScopes(wl.Scopes), Enabled: wl.Enabled}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		for _, l := range s.st.logins {
			if strings.EqualFold(l.Email, p.Email) {
				// E-mail addresses are user names: unique across accounts.
				writeField(w, telco.CodeConflictingParameters, "Email", "A login with this e-mail address already exists.")
				return
			}
		}
		l := &telco.OnlineLogin{
			OnlineLoginSid: newUUID(), Email: p.Email, Enabled: p.Enabled, Created: telco.TimestampOf(s.now()),
			FirstName: p.FirstName, LastName: p.LastName,
			Permissions: []telco.Permission{{PropertySid: prop.PropertySid, Scopes: p.Scopes}},
		}
		s.st.logins = append(s.st.logins, l)
		if s.st.loginOwner == nil {
			s.st.loginOwner = map[string]string{}
		}
		s.st.loginOwner[l.OnlineLoginSid] = prop.AccountSid
		writeJSON(w, http.StatusOK, map[string]any{"OnlineLogin": *l})
	})
}

func (s *Server) getOnlineLogin(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.st.logins {
		if strings.EqualFold(l.OnlineLoginSid, pp["OnlineLoginSid"]) {
			if s.loginOwner(l) != caller(r) {
				forbidden(w, "online login")
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"OnlineLogin": *l})
			return
		}
	}
	notFound(w, "online login")
}

func (s *Server) listOnlineLogins(w http.ResponseWriter, r *http.Request, _ pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := []*telco.OnlineLogin{} // only the page is copied
	for _, l := range s.st.logins {
		if s.loginOwner(l) == caller(r) {
			all = append(all, l)
		}
	}
	page, next, ok := skipPage(w, r.URL.Query(), all, 50)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, listing("OnlineLogins", copyPage(page), len(all), next))
}

// loginOwner is the account of the project a login was created on, which
// an update of its permissions does not change.
func (s *Server) loginOwner(l *telco.OnlineLogin) string {
	if a, ok := s.st.loginOwner[l.OnlineLoginSid]; ok {
		return a
	}
	if len(l.Permissions) == 0 {
		return ""
	}
	return s.st.owner(l.Permissions[0].PropertySid)
}
