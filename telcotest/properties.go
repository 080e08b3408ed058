package telcotest

import (
	"mime"
	"net/http"
	"strings"

	"github.com/telcosdk/telco"
)

// legacyTimeZones are two Windows IDs the CLDR table does not map: Windows
// retired them (Mid-Atlantic for UTC-02, Kamchatka for Russia Time Zone 11)
// but still ships them so that old settings keep working, and the service
// takes any ID Windows knows. The fake accepted them before it took its
// zones from the SDK's table, so tests that use them keep passing.
// telco.IANAZone and LoadWindowsZone do not know them.
var legacyTimeZones = []string{"Mid-Atlantic Standard Time", "Kamchatka Standard Time"}

// timeZones maps each Windows ID a project accepts, in lower case, to its
// canonical spelling: the SDK's CLDR table plus legacyTimeZones.
var timeZones = func() map[string]string {
	m := map[string]string{}
	for _, z := range append(telco.WindowsZones(), legacyTimeZones...) {
		m[strings.ToLower(z)] = z
	}
	return m
}()

// timeZone returns the canonical spelling of a Windows zone ID, matched
// without regard to case or surrounding space, or "" when the service
// would not know it.
func timeZone(id string) string {
	return timeZones[strings.ToLower(strings.TrimSpace(id))]
}

// checkTimeZone answers UNKNOWN_TIME_ZONE for a zone the service does not
// know and returns its canonical spelling otherwise.
func checkTimeZone(w http.ResponseWriter, id string) (string, bool) {
	z := timeZone(id)
	if z == "" {
		writeField(w, telco.CodeUnknownTimeZone, "TimeZone", "'"+id+"' is not a recognised time zone ID.")
		return "", false
	}
	return z, true
}

func (s *Server) createProperty(w http.ResponseWriter, r *http.Request, _ pathParams) {
	var wp struct {
		Name                 string `json:"Name"`
		MainDomain           string `json:"MainDomain"`
		TimeZone             string `json:"TimeZone"`
		SmsEnabled           bool   `json:"SmsEnabled"`
		CallRecordingEnabled bool   `json:"CallRecordingEnabled"`
		IntegrationsEnabled  bool   `json:"IntegrationsEnabled"`
		Active               *bool  `json:"Active"` // nil: true
	}
	if !decodeBody(w, r, &wp) {
		return
	}
	p := telco.CreatePropertyParams{Name: wp.Name, MainDomain: wp.MainDomain, TimeZone: wp.TimeZone,
		SmsEnabled: wp.SmsEnabled, CallRecordingEnabled: wp.CallRecordingEnabled,
		IntegrationsEnabled: wp.IntegrationsEnabled, Active: wp.Active}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	tz, ok := checkTimeZone(w, p.TimeZone)
	if !ok {
		return
	}
	active := true
	if p.Active != nil {
		active = *p.Active
	}
	prop := &telco.Property{
		AccountSid: caller(r), PropertySid: newSid("PR"), Name: p.Name, MainDomain: p.MainDomain,
		TimeZone: tz, SmsEnabled: p.SmsEnabled, CallRecordingEnabled: p.CallRecordingEnabled,
		IntegrationsEnabled: p.IntegrationsEnabled, Active: active,
	}
	s.mu.Lock()
	s.st.addProperty(prop)
	out := *prop
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"Property": out})
}

func (s *Server) getProperty(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		writeJSON(w, http.StatusOK, map[string]any{"Property": *prop})
	})
}

func (s *Server) listProperties(w http.ResponseWriter, r *http.Request, _ pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.st.accountProperties(caller(r))
	page, next, ok := skipPage(w, r.URL.Query(), all, 50)
	if !ok {
		return
	}
	env := listing("Properties", copyPage(page), len(all), next)
	if next == "" {
		env["NextPageToken"] = nil // op 11 alone types it "string or null"
	}
	writeJSON(w, http.StatusOK, env)
}

// updateProperty applies a JSON merge patch and answers 204. The body
// must be JSON: application/merge-patch+json (what the SDK sends) or plain
// application/json. Anything else is refused as the service refuses every
// bad request, 400 in its error shape, naming Content-Type.
func (s *Server) updateProperty(w http.ResponseWriter, r *http.Request, pp pathParams) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/merge-patch+json" && mt != "application/json" {
		writeField(w, telco.CodeParameterInvalid, "Content-Type",
			"Content-Type must be application/merge-patch+json or application/json.")
		return
	}
	var wp struct { // a merge patch: only the fields given change
		Name                 *string `json:"Name"`
		MainDomain           *string `json:"MainDomain"`
		TimeZone             *string `json:"TimeZone"`
		SmsEnabled           *bool   `json:"SmsEnabled"`
		CallRecordingEnabled *bool   `json:"CallRecordingEnabled"`
		IntegrationsEnabled  *bool   `json:"IntegrationsEnabled"`
		Active               *bool   `json:"Active"`
	}
	if !decodeBody(w, r, &wp) {
		return
	}
	p := telco.UpdatePropertyParams{Name: wp.Name, MainDomain: wp.MainDomain, TimeZone: wp.TimeZone,
		SmsEnabled: wp.SmsEnabled, CallRecordingEnabled: wp.CallRecordingEnabled,
		IntegrationsEnabled: wp.IntegrationsEnabled, Active: wp.Active}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	tz := ""
	if p.TimeZone != nil {
		var ok bool
		if tz, ok = checkTimeZone(w, *p.TimeZone); !ok {
			return
		}
	}
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		setIf(&prop.Name, p.Name)
		setIf(&prop.MainDomain, p.MainDomain)
		if tz != "" {
			prop.TimeZone = tz
		}
		setIf(&prop.SmsEnabled, p.SmsEnabled)
		setIf(&prop.CallRecordingEnabled, p.CallRecordingEnabled)
		setIf(&prop.IntegrationsEnabled, p.IntegrationsEnabled)
		setIf(&prop.Active, p.Active)
		w.WriteHeader(http.StatusNoContent)
	})
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
