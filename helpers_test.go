package telco

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testSid   = "ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL"
	testToken = "tok-S3cret-9f8e7d"
	testBase  = "https://api.telco.test"
	testProp  = "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS"
)

// fixture reads a wire sample from testdata/.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// newMockClient returns a client whose transport is an httpmock transport,
// with retries off unless opts say otherwise.
func newMockClient(t testing.TB, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	all := append([]Option{
		WithBaseURL(testBase),
		WithHTTPClient(&http.Client{Transport: mt}),
		WithRetryPolicy(RetryPolicy{MaxRetries: 0}),
		// Every mock Client has the same address and account: a ledger of
		// its own keeps one test's sends from answering another's.
		WithLedger(NewMemoryLedger()),
	}, opts...)
	c, err := NewClient(testSid, testToken, all...)
	require.NoError(t, err)
	return c, mt
}

// seen is what a mock responder saw of the last request.
type seen struct {
	mu     sync.Mutex
	n      int
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	Bodies [][]byte
	Querys []url.Values
}

func (s *seen) record(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.Method, s.Path, s.Query, s.Header = r.Method, r.URL.EscapedPath(), r.URL.Query(), r.Header.Clone()
	s.Body = nil
	if r.Body != nil {
		s.Body, _ = io.ReadAll(r.Body)
	}
	s.Bodies = append(s.Bodies, s.Body)
	s.Querys = append(s.Querys, s.Query)
}

// bodyMap decodes the last JSON body into a map, to assert keys and values.
func (s *seen) bodyMap(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(s.Body, &m), "body: %s", s.Body)
	return m
}

// reply registers a responder for method and path (any query) that records
// the request into the returned *seen and answers status with body.
func reply(mt *httpmock.MockTransport, method, path string, status int, body []byte) *seen {
	s := &seen{}
	mt.RegisterResponder(method, testBase+path, func(r *http.Request) (*http.Response, error) {
		s.record(r)
		resp := httpmock.NewBytesResponse(status, body)
		if len(body) > 0 {
			resp.Header.Set("Content-Type", "application/json")
		}
		return resp, nil
	})
	return s
}

// sequence registers a responder that answers each request with the next
// body of bodies, all with status 200.
func sequence(mt *httpmock.MockTransport, method, path string, bodies ...string) *seen {
	s := &seen{}
	mt.RegisterResponder(method, testBase+path, func(r *http.Request) (*http.Response, error) {
		s.record(r)
		s.mu.Lock()
		i := s.n - 1
		s.mu.Unlock()
		if i >= len(bodies) {
			i = len(bodies) - 1
		}
		return httpmock.NewStringResponse(200, bodies[i]), nil
	})
	return s
}

// assertCommonHeaders checks what every request carries.
func assertCommonHeaders(t testing.TB, h http.Header) {
	t.Helper()
	user, pass, ok := (&http.Request{Header: h}).BasicAuth()
	assert.True(t, ok, "Basic auth")
	assert.Equal(t, testSid, user)
	assert.Equal(t, testToken, pass)
	assert.Equal(t, "application/json", h.Get("Accept"))
	assert.Regexp(t, `^telco-go/`+regexp.QuoteMeta(Version)+`( |$)`, h.Get("User-Agent"))
}

// requireValidation asserts err is a *ValidationError naming field with
// code, and that mt saw no request.
func requireValidation(t testing.TB, mt *httpmock.MockTransport, err error, op, field, code string) {
	t.Helper()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, op, ve.Op)
	found := false
	for _, f := range ve.Fields {
		if f.FieldName == field && f.Code == code {
			found = true
		}
	}
	assert.True(t, found, "want %s on %s, got %+v", code, field, ve.Fields)
	if mt != nil {
		assert.Zero(t, mt.GetTotalCallCount(), "no request may be sent")
	}
}
