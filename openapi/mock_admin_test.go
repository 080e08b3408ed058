package openapi_test

// The admin API's conformance test: every endpoint of the real admin API
// (telcotest.WithAdmin, which `telco mock` serves), driven with plain
// net/http as a client in another language would, each request and each
// answer checked against mock-admin.yaml by the same checker as the
// service's contract; and the document describes exactly the endpoints
// the API lists at GET /__telcotest/.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// adminSpecFile is the admin API's contract; its messages and porting
// requests refer to the service's (specFile).
const adminSpecFile = "mock-admin.yaml"

// loadAdminContract loads and validates the admin API's contract, its
// references to telco.yaml resolved.
func loadAdminContract(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromFile(adminSpecFile)
	if err != nil {
		t.Fatalf("loading %s: %v", adminSpecFile, err)
	}
	if err := doc.Validate(loader.Context, openapi3.SetRegexCompiler(ecmaRegexp)); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", adminSpecFile, err)
	}
	return doc
}

// adminEndpoints are the document's operations as "METHOD path".
func adminEndpoints(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	sort.Strings(out)
	return out
}

// adminStep is one request to the admin API and the status it must get.
type adminStep struct {
	method, path, body string
	status             int
	// badRequest: the request breaks the contract on purpose (the API
	// must refuse it, 400 or 401), and the checker must say so, naming
	// flags.
	badRequest bool
	flags      string
	// auth is the credentials; the first account's when nil.
	auth *url.Userinfo
}

func TestAdminConformance(t *testing.T) {
	doc := loadAdminContract(t)
	strict(doc)
	srv := telcotest.NewTestServer(t, telcotest.WithAdmin())
	chk := newChecker(t, doc, http.DefaultTransport, srv.Token)
	chk.host, chk.plain = &url.URL{Scheme: "http", Host: "127.0.0.1:8080"}, true
	hc := &http.Client{Transport: chk, Timeout: 10 * time.Second}
	ctx := context.Background()

	// What the steps work on, made through the SDK, unchecked.
	c := srv.Client()
	srv.AddNumber(srv.PropertySid, "+61299990000")
	_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "hi", ExternalID: "e-1"})
	require.NoError(t, err)
	porting, err := c.Porting.Submit(ctx, srv.PropertySid, &telco.PortingRequestParams{AuthorisedContactName: "O",
		AuthorisedContactEmail: "o@example.com", DaytimeContactNumber: "+61299999999", CurrentCarrier: "X",
		CurrentCarrierAccountNo: "1", PreferredPortSchedule: telco.PortASAP,
		PortingNumbers: []telco.PortingNumberParams{{Number: "+61298765432", PortType: telco.PortTypeCatA, PortAddress: "1 St",
			IncomingActionType: telco.IncomingAnsweringPoint, IncomingAnswerPoint: "+61400000000"}}})
	require.NoError(t, err)
	inbound := `{"property_sid": "` + srv.PropertySid + `", "from": "+61400000002", "to": "+61299990000", "text": "in"}`

	steps := []adminStep{
		{method: "GET", path: "/__telcotest/", status: 200},
		{method: "GET", path: "/__telcotest/faults", status: 200},
		{method: "POST", path: "/__telcotest/faults", body: `{"op": "Properties.Get", "kind": "status", "status": 503, "retry_after": 2}`, status: 201},
		{method: "POST", path: "/__telcotest/faults", body: `{"kind": "latency", "delay_ms": "5", "count": 3}`, status: 201},
		{method: "GET", path: "/__telcotest/faults", status: 200},
		{method: "GET", path: "/__telcotest/faults/1", status: 200},
		{method: "DELETE", path: "/__telcotest/faults/1", status: 200},
		{method: "GET", path: "/__telcotest/faults/1", status: 404},
		{method: "DELETE", path: "/__telcotest/faults/1", status: 404},
		{method: "POST", path: "/__telcotest/faults", body: `{"kind": "status", "status": 200}`, status: 400},
		{method: "POST", path: "/__telcotest/faults", body: `{"kind": "explode"}`, status: 400, badRequest: true, flags: "kind"},
		{method: "DELETE", path: "/__telcotest/faults", status: 200},
		{method: "GET", path: "/__telcotest/ops", status: 200},
		{method: "GET", path: "/__telcotest/messages", status: 200},
		{method: "GET", path: "/__telcotest/messages?property_sid=" + srv.PropertySid + "&direction=Transmit&external_id=e-1", status: 200},
		{method: "GET", path: "/__telcotest/messages?direction=Sideways", status: 400},
		{method: "GET", path: "/__telcotest/messages?colour=red", status: 400, badRequest: true, flags: "colour"},
		{method: "POST", path: "/__telcotest/inbound", body: inbound, status: 201},
		{method: "POST", path: "/__telcotest/inbound", body: strings.Replace(inbound, srv.PropertySid, "PRNONE", 1), status: 400},
		{method: "POST", path: "/__telcotest/inbound", body: `{"to": "61299990000"}`, status: 400, badRequest: true, flags: "to"},
		{method: "GET", path: "/__telcotest/message-failures", status: 200},
		{method: "POST", path: "/__telcotest/message-failures", body: `{"to": "+61400000013"}`, status: 201},
		{method: "POST", path: "/__telcotest/message-failures", body: `{"to": "61400000013"}`, status: 400, badRequest: true, flags: "to"},
		{method: "GET", path: "/__telcotest/message-failures", status: 200},
		{method: "POST", path: "/__telcotest/porting-status", body: `{"porting_no": "` + porting.PortingNo + `", "status": "Approved"}`, status: 200},
		{method: "POST", path: "/__telcotest/porting-status", body: `{"porting_no": "PN-NONE", "status": "Approved"}`, status: 400},
		{method: "GET", path: "/__telcotest/clock", status: 200},
		{method: "POST", path: "/__telcotest/clock", body: `{"advance_ms": 1801000}`, status: 200},
		{method: "POST", path: "/__telcotest/clock", body: `{"advance_ms": -1}`, status: 400, badRequest: true, flags: "advance_ms"},
		{method: "GET", path: "/__telcotest/messages", status: 200},
		{method: "GET", path: "/__telcotest/requests", status: 200},
		{method: "POST", path: "/__telcotest/reset", status: 200},
		{method: "GET", path: "/__telcotest/requests", status: 200},
		{method: "GET", path: "/__telcotest/messages", status: 401, auth: url.UserPassword(srv.AccountSid, "wrong")},
		{method: "GET", path: "/__telcotest/messages", status: 401, auth: url.User(""), badRequest: true, flags: "security"},
	}
	// Every endpoint refuses wrong credentials, to a request that is
	// otherwise right, with the answer the document gives it.
	bodies := map[string]string{
		"POST /__telcotest/faults":           `{"kind": "none"}`,
		"POST /__telcotest/inbound":          inbound,
		"POST /__telcotest/message-failures": `{"to": "+61400000013"}`,
		"POST /__telcotest/porting-status":   `{"porting_no": "` + porting.PortingNo + `", "status": "Done"}`,
		"POST /__telcotest/clock":            `{"advance_ms": 1}`,
	}
	for _, ep := range adminEndpoints(doc) {
		method, path, _ := strings.Cut(ep, " ")
		steps = append(steps, adminStep{method: method, path: strings.Replace(path, "{id}", "1", 1), body: bodies[ep], status: 401,
			auth: url.UserPassword(srv.AccountSid, "wrong")})
	}

	met := map[string]bool{} // operations answered 2xx with nothing wrong
	for i, s := range steps {
		var rd io.Reader
		if s.body != "" {
			rd = strings.NewReader(s.body)
		}
		req, err := http.NewRequestWithContext(ctx, s.method, srv.URL+s.path, rd)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		switch {
		case s.auth == nil:
			req.SetBasicAuth(srv.AccountSid, srv.Token)
		case s.auth.Username() != "":
			pass, _ := s.auth.Password()
			req.SetBasicAuth(s.auth.Username(), pass)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err, "step %d %s %s", i, s.method, s.path)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := s.method + " " + s.path
		assert.Equal(t, s.status, resp.StatusCode, "step %d %s: %s", i, name, body)
		seen := chk.take()
		require.Len(t, seen, 1, "step %d %s", i, name)
		ex := seen[0]
		if s.badRequest {
			assert.NotEmpty(t, ex.request, "step %d %s breaks the contract, which did not notice", i, name)
			assert.Contains(t, strings.Join(ex.request, "\n"), s.flags, "step %d %s", i, name)
		} else {
			assert.Empty(t, ex.request, "step %d %s: the request breaks the contract", i, name)
		}
		assert.Empty(t, ex.answer, "step %d %s: the answer breaks the contract", i, name)
		assert.NotContains(t, string(body), srv.Token, "step %d %s: never a token", i, name)
		if ex.status >= 200 && ex.status < 300 && len(ex.request)+len(ex.answer) == 0 {
			met[ex.op] = true
		}
	}

	t.Run("every operation is answered 2xx", func(t *testing.T) {
		for _, item := range doc.Paths.Map() {
			for _, op := range item.Operations() {
				assert.True(t, met[op.OperationID], "no step met %s with a 2xx answer", op.OperationID)
			}
		}
	})
	t.Run("the document describes exactly the endpoints the API lists", func(t *testing.T) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+telcotest.AdminPath, nil)
		require.NoError(t, err)
		req.SetBasicAuth(srv.AccountSid, srv.Token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var idx struct {
			Endpoints []struct{ Method, Path string }
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&idx))
		var listed []string
		for _, e := range idx.Endpoints {
			listed = append(listed, e.Method+" "+e.Path)
		}
		sort.Strings(listed)
		assert.Equal(t, listed, adminEndpoints(doc))
	})
}
