package telcotest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzServeRequest: the fake reads whatever a client in any language
// sends it. Any method, path, query and body, authenticated, gets an
// answer with a status the service could give and, unless it is empty, a
// JSON body; nothing panics.
func FuzzServeRequest(f *testing.F) {
	for _, seed := range []struct{ method, target, body string }{
		{"POST", "/v2/Properties/{prop}/Messages", `{"From":"Acme","To":"+61499999999","Text":"hi","ExternalId":"x"}`},
		{"POST", "/v2/Properties/{prop}/BatchMessages", `{"Messages":[{"To":"+61499999999","Text":"a"},{"To":"bad","Text":"b"}]}`},
		{"GET", "/v2/Properties/{prop}/Messages?Date_From=0&Date_To=9999999999&Results_Count=2&Results_Skip=1", ``},
		{"PATCH", "/v2/Properties/{prop}", `{"Name":"x","TimeZone":"AUS Eastern Standard Time"}`},
		{"POST", "/v2/Properties", `{"Name":"n","MainDomain":"d","TimeZone":"Nowhere"}`},
		{"POST", "/v2/Properties/{prop}/SipTrunk", `{"Name":"t","Type":0,"SipTrunkIpAddresses":[{"IpAddress":"203.0.113.0/24"}]}`},
		{"GET", "/v2/Numbers/Details?Numbers=0299999999,%2B61299999999", ``},
		{"DELETE", "/v2/Addresses/..%2F", ``},
		{"POST", "/v2/Properties/{prop}/Messages", `{"Schedule":"soon","To":17}`},
	} {
		f.Add(seed.method, seed.target, []byte(seed.body))
	}
	s := NewServer()
	defer s.Close()
	f.Fuzz(func(t *testing.T, method, target string, body []byte) {
		target = strings.ReplaceAll(target, "{prop}", s.PropertySid)
		if !strings.HasPrefix(target, "/") {
			target = "/" + target
		}
		r, err := http.NewRequest(method, "http://telcotest"+target, bytes.NewReader(body))
		if err != nil {
			return // not a request net/http would deliver
		}
		r.SetBasicAuth(s.AccountSid, s.Token)
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.serveHTTP(w, r)
		if w.Code < 200 || w.Code > 599 {
			t.Fatalf("%s %s: status %d", method, target, w.Code)
		}
		if b := bytes.TrimSpace(w.Body.Bytes()); len(b) > 0 && !json.Valid(b) {
			t.Fatalf("%s %s: %d answered with a body that is not JSON: %q", method, target, w.Code, b)
		}
	})
}
