package telco

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Client.Do: one test per method. Each is answered 502 and then 200: the
// idempotent methods retry and succeed, POST stops after one attempt with
// ErrMaybeSent, as a send does.
func TestDoEveryMethod(t *testing.T) {
	for _, tc := range []struct {
		method      string
		body        any
		contentType string // "" when no body is sent
		idempotent  bool
	}{
		{"GET", nil, "", true},
		{"HEAD", nil, "", true},
		{"PUT", map[string]any{"Name": "PBX"}, "application/json", true},
		{"PATCH", map[string]any{"Name": "PBX"}, "application/merge-patch+json", true},
		{"DELETE", nil, "", true},
		{"POST", json.RawMessage(`{"Name":"PBX"}`), "application/json", false},
	} {
		t.Run(tc.method, func(t *testing.T) {
			c, mt := newMockClient(t, WithRetryPolicy(RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
			s := &seen{}
			n := 0
			mt.RegisterResponder(tc.method, testBase+"/v2/Properties/"+testProp+"/Widgets",
				func(r *http.Request) (*http.Response, error) {
					s.record(r)
					if n++; n == 1 {
						return httpmock.NewStringResponse(http.StatusBadGateway, "bad gateway"), nil
					}
					return httpmock.NewStringResponse(http.StatusOK, `{"WidgetSid":"W1"}`), nil
				})
			var out struct{ WidgetSid string }
			err := c.Do(bg, tc.method, "/v2/Properties/"+testProp+"/Widgets?Results_Count=5", tc.body, &out)
			assert.Equal(t, tc.method, s.Method)
			assertCommonHeaders(t, s.Header)
			assert.Equal(t, url.Values{"Results_Count": {"5"}}, s.Query)
			assert.Equal(t, tc.contentType, s.Header.Get("Content-Type"))
			if tc.body != nil {
				assert.JSONEq(t, `{"Name":"PBX"}`, string(s.Body))
			} else {
				assert.Empty(t, s.Body)
			}
			if !tc.idempotent {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrMaybeSent)
				var ae *APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, "Client.Do", ae.Op)
				assert.Equal(t, http.StatusBadGateway, ae.StatusCode)
				assert.Equal(t, 1, mt.GetTotalCallCount(), "never repeated")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 2, mt.GetTotalCallCount(), "retried once")
			if tc.method != "HEAD" { // httpmock answers HEAD with the body too; net/http would not
				assert.Equal(t, "W1", out.WidgetSid)
			}
		})
	}
}

func TestDoPaths(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Properties", 200, []byte(`{"Properties":[]}`))
	for _, p := range []string{"Properties", "/Properties", "/v2/Properties", "v2/Properties", " /v2/Properties "} {
		require.NoError(t, c.Do(bg, "get", p, nil, nil), p)
		assert.Equal(t, "/v2/Properties", got.Path, p)
	}
	esc := reply(mt, "GET", "/v2/numberblocks/Spring%20Sale", 200, []byte(`{}`))
	require.NoError(t, c.Do(bg, "GET", "/v2/numberblocks/Spring%20Sale", nil, nil))
	assert.Equal(t, "/v2/numberblocks/Spring%20Sale", esc.Path, "the path is sent as escaped by the caller")

	for _, tc := range []struct {
		method, path string
		body         any
		field, code  string
	}{
		{"GET", "", nil, "path", CodeParameterRequired},
		{"GET", "https://evil.example/v2/Properties", nil, "path", CodeParameterInvalid},
		{"GET", "//evil.example/v2/Properties", nil, "path", CodeParameterInvalid},
		{"GET", "/v2/Properties#x", nil, "path", CodeParameterInvalid},
		{"GET", "/v2/Properties/../Accounts", nil, "path", CodeParameterInvalid},
		{"GET", "/v2/Properties/%2e%2e/Accounts", nil, "path", CodeParameterInvalid},
		{"GET", "/v2/Properties with space", nil, "path", CodeParameterInvalid},
		{"CONNECT", "/v2/Properties", nil, "method", CodeParameterInvalid},
		{"", "/v2/Properties", nil, "method", CodeParameterInvalid},
		{"GET", "/v2/Properties", map[string]any{"a": 1}, "body", CodeParameterInvalid},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			c, mt := newMockClient(t, WithClientValidation(false))
			requireValidation(t, mt, c.Do(bg, tc.method, tc.path, tc.body, nil), "Client.Do", tc.field, tc.code)
		})
	}
}

func TestDoOutForms(t *testing.T) {
	const body = `{"Message":{"MessageSid":"MG1","ErrorCode":"UNDELIVERABLE"}}`
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Messages/MG1", 200, []byte(body))

	var raw json.RawMessage
	require.NoError(t, c.Do(bg, "GET", "/v2/Messages/MG1", nil, &raw))
	assert.JSONEq(t, body, string(raw), "a resource's own ErrorCode is no refusal")
	var b []byte
	require.NoError(t, c.Do(bg, "GET", "/v2/Messages/MG1", nil, &b))
	assert.JSONEq(t, body, string(b))
	var m map[string]map[string]string
	require.NoError(t, c.Do(bg, "GET", "/v2/Messages/MG1", nil, &m))
	assert.Equal(t, "MG1", m["Message"]["MessageSid"])
	require.NoError(t, c.Do(bg, "GET", "/v2/Messages/MG1", nil, nil))

	// A 204 leaves out as it was.
	reply(mt, "DELETE", "/v2/Addresses/AD1", http.StatusNoContent, nil)
	keep := json.RawMessage(`"untouched"`)
	require.NoError(t, c.Do(bg, "DELETE", "/v2/Addresses/AD1", nil, &keep))
	assert.Equal(t, `"untouched"`, string(keep))

	// A 2xx holding the error envelope is the service's refusal.
	reply(mt, "POST", "/v2/Properties", 200, []byte(refusalBody))
	err := c.Do(bg, "POST", "/v2/Properties", map[string]string{"Name": "x"}, &m)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "SerializationException", ae.Code)
	assert.NotErrorIs(t, err, ErrMaybeSent, "the service said it did not act")

	// A body that is not JSON is refused before anything is sent.
	before := mt.GetTotalCallCount()
	require.Error(t, c.Do(bg, "POST", "/v2/Properties", []byte("not json"), nil))
	assert.Equal(t, before, mt.GetTotalCallCount())
}

func TestDoErrorsAreDecodedAndRedacted(t *testing.T) {
	const pw = "Raw-Passw0rd!-9f8e"
	var logs bytes.Buffer
	c, mt := newMockClient(t, WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	reply(mt, "POST", "/v2/Properties/"+testProp+"/OnlineLogins", 400, []byte(
		`{"ResponseStatus":{"ErrorCode":"PARAMETER_INVALID","Message":"password `+pw+` and token `+testToken+` rejected",`+
			`"Errors":[{"FieldName":"Password"}]}}`))
	err := c.Do(bg, "POST", "/v2/Properties/"+testProp+"/OnlineLogins",
		map[string]any{"Email": "a@b.example", "Login": map[string]string{"NewPassword": pw}}, nil)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeParameterInvalid, ae.Code)
	assert.Equal(t, "Password", ae.Fields[0].FieldName)
	assert.NotContains(t, err.Error(), pw, "a password field of the body, at any depth, is redacted")
	assert.NotContains(t, err.Error(), testToken)
	assert.NotErrorIs(t, err, ErrMaybeSent, "a 400 is the service's refusal")

	assert.Contains(t, logs.String(), `"op":"Client.Do"`, "one record per attempt")
	assert.NotContains(t, logs.String(), pw)
}

func TestRawPathVersions(t *testing.T) {
	for in, want := range map[string]string{
		"Properties":        "/v2/Properties",
		"/v2/Properties":    "/v2/Properties",
		"/V2/Properties":    "/V2/Properties",
		"/v3/Things":        "/v3/Things",
		"/vx/Things":        "/v2/vx/Things",
		"/v/Things":         "/v2/v/Things",
		"Calls?Token=a%2Bb": "/v2/Calls",
	} {
		p, _, problem := rawPath(in)
		assert.Empty(t, problem, in)
		assert.Equal(t, want, p, in)
	}
	_, q, _ := rawPath("Calls?Token=a%2Bb&Disposition=Answered,Busy")
	assert.Equal(t, url.Values{"Token": {"a+b"}, "Disposition": {"Answered,Busy"}}, q)
}

// FuzzRawPath: Do's path check never panics, and what it accepts stays on
// the base URL: a path, never a scheme, host, fragment or dot segment.
func FuzzRawPath(f *testing.F) {
	for _, s := range []string{"Properties", "/v2/Properties?Results_Count=5", "//evil", "https://x/", "/v2/a/../b",
		"/v2/%2e%2e/x", "a b", "/v2/x#f", "?", "/v2/%zz", "v2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, _, problem := rawPath(s)
		if problem != "" {
			return
		}
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "#? \t\r\n") ||
			strings.Contains(p, "://") {
			t.Fatalf("accepted %q as %q", s, p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("accepted a dot segment in %q", p)
			}
		}
		if !versioned(p) {
			t.Fatalf("%q has no version segment", p)
		}
	})
}

// A raw body whose numbers exceed a float64 is still valid JSON and is
// sent; its password must still be redacted from the error that echoes it.
// Before, the walk gave up on the number and redacted nothing.
func TestDoRedactsPasswordsBesideHugeNumbers(t *testing.T) {
	const pw = "Huge-Passw0rd!-77aa"
	c, mt := newMockClient(t)
	reply(mt, "POST", "/v2/Properties/"+testProp+"/OnlineLogins", 400, []byte(
		`{"ResponseStatus":{"ErrorCode":"PARAMETER_INVALID","Message":"password `+pw+` rejected"}}`))
	body := []byte(`{"Email":"a@b.example","Password":"` + pw + `","Quota":1e999}`)
	err := c.Do(bg, "POST", "/v2/Properties/"+testProp+"/OnlineLogins", body, nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), pw)
}
