package telcotest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// newServer starts a fake service that is closed when the test ends.
func newServer(t *testing.T, opts ...telcotest.ServerOption) *telcotest.Server {
	t.Helper()
	return telcotest.NewTestServer(t, opts...)
}

// newClockServer starts a fake service on a manual clock.
func newClockServer(t *testing.T, opts ...telcotest.ServerOption) (*telcotest.Server, *telcotest.Clock) {
	t.Helper()
	clock := telcotest.NewClock(time.Time{})
	return newServer(t, append(opts, telcotest.WithClock(clock))...), clock
}

// testCtx is a context that ends with the test, bounded so that a hung
// request fails the test instead of the whole run.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// rawResp is an answer to a plain net/http request.
type rawResp struct {
	Status int
	Header http.Header
	Body   []byte
}

// authFunc sets (or leaves out) credentials on a raw request.
type authFunc func(*http.Request)

func basicAuth(user, pass string) authFunc {
	return func(r *http.Request) { r.SetBasicAuth(user, pass) }
}

func noAuth(*http.Request) {}

// rawDo sends one request to the server without the SDK.
func rawDo(t *testing.T, srv *telcotest.Server, auth authFunc, method, path, contentType, body string) rawResp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(testCtx(t), method, srv.URL+path, rd)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	auth(req)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return rawResp{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// raw sends an authenticated request with a JSON body (when body is set).
func raw(t *testing.T, srv *telcotest.Server, method, path, body string) rawResp {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	return rawDo(t, srv, basicAuth(srv.AccountSid, srv.Token), method, path, ct, body)
}

// wireError is the service's error envelope.
type wireError struct {
	ResponseStatus *struct {
		ErrorCode string
		Message   string
		Errors    []struct {
			ErrorCode string
			FieldName string
			Message   string
		}
	}
}

// errorBody decodes the ResponseStatus envelope and fails the test when
// the body is not one.
func errorBody(t *testing.T, r rawResp) wireError {
	t.Helper()
	assert.Contains(t, r.Header.Get("Content-Type"), "application/json")
	var w wireError
	require.NoError(t, json.Unmarshal(r.Body, &w), "body: %s", r.Body)
	require.NotNil(t, w.ResponseStatus, "no ResponseStatus in %s", r.Body)
	assert.NotEmpty(t, w.ResponseStatus.Message, "empty Message in %s", r.Body)
	return w
}

// requireStatus asserts err is an *telco.APIError with the status and some
// service code, and returns it.
func requireStatus(t *testing.T, err error, status int) *telco.APIError {
	t.Helper()
	var ae *telco.APIError
	require.ErrorAs(t, err, &ae, "want an *APIError, got %v", err)
	assert.Equal(t, status, ae.StatusCode, "status of %v", err)
	assert.NotEmpty(t, ae.Code, "code of %v", err)
	return ae
}

// requireAPIError asserts err is an *telco.APIError with the status and
// service code, and returns it.
func requireAPIError(t *testing.T, err error, status int, code string) *telco.APIError {
	t.Helper()
	var ae *telco.APIError
	require.ErrorAs(t, err, &ae, "want an *APIError, got %v", err)
	assert.Equal(t, status, ae.StatusCode, "status of %v", err)
	assert.Equal(t, code, ae.Code, "code of %v", err)
	return ae
}

// fieldNames lists the FieldNames of an error's Fields.
func fieldNames(fs []telco.FieldError) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.FieldName
	}
	return out
}

// countingTransport counts the requests a client sends.
type countingTransport struct {
	next  http.RoundTripper
	mu    sync.Mutex
	n     int
	paths []string
}

func newCountingTransport(t *testing.T) *countingTransport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &countingTransport{next: tr}
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n++
	c.paths = append(c.paths, r.URL.Path)
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

func (c *countingTransport) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// window is a message search around now.
func window() *telco.FindMessagesParams {
	return &telco.FindMessagesParams{DateFrom: time.Now().Add(-time.Hour), DateTo: time.Now().Add(time.Hour)}
}

func TestNewServer_SeedsAccountAndProject(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, srv.URL)
	assert.Regexp(t, `^[A-Z0-9]{32}$`, srv.AccountSid)
	assert.Regexp(t, `^[A-Z0-9]{32}$`, srv.PropertySid)
	assert.NotEmpty(t, srv.Token)

	other := newServer(t)
	assert.NotEqual(t, srv.AccountSid, other.AccountSid, "each server has its own account")
	assert.NotEqual(t, srv.Token, other.Token)

	prop, err := srv.Client().Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, srv.AccountSid, prop.AccountSid)
	assert.True(t, prop.Active)

	// One server's credentials are not the other's.
	c, err := telco.NewClient(srv.AccountSid, srv.Token, telco.WithBaseURL(other.URL))
	require.NoError(t, err)
	_, err = c.Properties.Get(testCtx(t), other.PropertySid)
	requireStatus(t, err, http.StatusUnauthorized)
}

func TestAuth_WrongCredentialsAnswer401(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct {
		name string
		auth authFunc
	}{
		{"wrong token", basicAuth(srv.AccountSid, srv.Token+"x")},
		{"wrong SID", basicAuth("AC"+strings.Repeat("Z", 30), srv.Token)},
		{"SID and token swapped", basicAuth(srv.Token, srv.AccountSid)},
		{"no auth", noAuth},
		{"bearer instead of basic", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+srv.Token) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rawDo(t, srv, tc.auth, http.MethodGet, "/v2/Properties/"+srv.PropertySid, "", "")
			assert.Equal(t, http.StatusUnauthorized, r.Status)
			assert.True(t, strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic"),
				"WWW-Authenticate: %q", r.Header.Get("WWW-Authenticate"))
			w := errorBody(t, r)
			assert.NotEmpty(t, w.ResponseStatus.ErrorCode)
			assert.NotContains(t, string(r.Body), srv.Token, "the body must not echo the token")
		})
	}
}

func TestAuth_SDKGetsAPIError401(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct{ name, sid, token string }{
		{"wrong token", srv.AccountSid, "not-the-token"},
		{"wrong SID", "AC" + strings.Repeat("Q", 30), srv.Token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := telco.NewClient(tc.sid, tc.token, telco.WithBaseURL(srv.URL))
			require.NoError(t, err)
			_, err = c.Properties.Get(testCtx(t), srv.PropertySid)
			ae := requireStatus(t, err, http.StatusUnauthorized)
			assert.NotEmpty(t, ae.Message)
			assert.NotErrorIs(t, err, telco.ErrMaybeSent)
		})
	}
}

func TestAuth_RejectedRequestChangesNothing(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	body := `{"Name":"Sneaky","MainDomain":"x.example","TimeZone":"UTC"}`
	r := rawDo(t, srv, basicAuth(srv.AccountSid, "wrong"), http.MethodPost, "/v2/Properties", "application/json", body)
	require.Equal(t, http.StatusUnauthorized, r.Status)

	page, err := srv.Client().Properties.List(testCtx(t), nil)
	require.NoError(t, err)
	assert.Equal(t, 1, page.TotalCount, "only the seeded project exists")
}

func TestRouting_PathsIgnoreCase(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Number: "6129000XXXX", Name: "Case block"})
	msg, err := srv.Client().Messages.Send(testCtx(t), srv.PropertySid,
		&telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "hi"})
	require.NoError(t, err)

	r := raw(t, srv, http.MethodGet, "/V2/PROPERTIES/"+srv.PropertySid, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var one struct{ Property telco.Property }
	require.NoError(t, json.Unmarshal(r.Body, &one))
	assert.Equal(t, srv.PropertySid, one.Property.PropertySid)

	r = raw(t, srv, http.MethodGet, "/v2/NumberBlocks?PropertySid="+srv.PropertySid, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var page telco.NumberBlockPage
	require.NoError(t, json.Unmarshal(r.Body, &page))
	require.Len(t, page.Data, 1)
	assert.Equal(t, "Case block", page.Data[0].Name)

	r = raw(t, srv, http.MethodGet, "/v2/mEsSaGeS/"+msg.MessageSid, "")
	assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	r = raw(t, srv, http.MethodGet, "/v2/numbers/DETAILS?Numbers=0412345678", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), "61412345678")

	r = raw(t, srv, http.MethodGet, "/v2/properties/"+srv.PropertySid+"/NUMBERBLOCKS", "")
	assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

}

func TestRouting_UnknownPath404(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, path := range []string{
		"/v2/Nothing",
		"/v1/Properties",
		"/",
		"/v2/Properties/" + srv.PropertySid + "/Unknown",
		"/v2/Properties/" + srv.PropertySid + "/SipTrunk/ST1/Details/More",
	} {
		t.Run(path, func(t *testing.T) {
			r := raw(t, srv, http.MethodGet, path, "")
			assert.Equal(t, http.StatusNotFound, r.Status)
			errorBody(t, r)
		})
	}
}

func TestRouting_WrongMethod405(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct{ method, path string }{
		{http.MethodDelete, "/v2/Properties/" + srv.PropertySid},
		{http.MethodPut, "/v2/Properties"},
		{http.MethodGet, "/v2/Properties/" + srv.PropertySid + "/SipTrunk"},
		{http.MethodPost, "/v2/numberblocks"},
		{http.MethodPost, "/v2/Numbers/Details"},
		{http.MethodPut, "/v2/Numbers/61299999999"},
		{http.MethodPatch, "/v2/Addresses/AD123"},
		{http.MethodDelete, "/v2/Calls/CA123"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := raw(t, srv, tc.method, tc.path, "")
			assert.Equal(t, http.StatusMethodNotAllowed, r.Status, "%s", r.Body)
			errorBody(t, r)
		})
	}
}

func TestRouting_OtherAccountNotFound(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	other := "AC" + strings.Repeat("X", 30)
	now := time.Now().Unix()
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodGet, "/v2/Accounts/" + other + "/numberblocks", ""},
		{http.MethodPost, "/v2/Accounts/" + other + "/Addresses", `{"Line1":"1 St","City":"Sydney","CountryCode":"AU"}`},
		{http.MethodGet, fmt.Sprintf("/v2/Accounts/%s/Porting/Status?From=%d&To=%d", other, now-60, now+60), ""},
		{http.MethodGet, "/v2/Accounts/" + other + "/SipTrunk/ST123/Details", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := raw(t, srv, tc.method, tc.path, tc.body)
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			assert.Equal(t, telco.CodeAccountNotFound, errorBody(t, r).ResponseStatus.ErrorCode)
		})
	}

	// Through the SDK too.
	c := srv.Client()
	_, err := c.NumberBlocks.ListByAccount(testCtx(t), other, nil)
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAccountNotFound)
	_, err = c.Addresses.Create(testCtx(t), other, &telco.CreateAddressParams{Line1: "1 St", City: "Sydney", CountryCode: "AU"})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAccountNotFound)
}

func TestRouting_UnknownProjectIs400(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	nope := "PR" + strings.Repeat("N", 30)

	_, err := c.Properties.Get(ctx, nope)
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
	_, err = c.Messages.Send(ctx, nope, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x"})
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
	_, err = c.Messages.Find(ctx, nope, window())
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
	_, err = c.SipTrunks.List(ctx, nope, nil)
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
}

func TestWithCredentials(t *testing.T) {
	t.Parallel()
	const sid, token = "ACFIXEDFIXEDFIXEDFIXEDFIXEDFIXED", "fixed-token-123"
	srv := newServer(t, telcotest.WithCredentials(sid, token))
	assert.Equal(t, sid, srv.AccountSid)
	assert.Equal(t, token, srv.Token)

	c, err := telco.NewClient(sid, token, telco.WithBaseURL(srv.URL))
	require.NoError(t, err)
	prop, err := c.Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, sid, prop.AccountSid)

	_, err = srv.Client().NumberBlocks.ListByAccount(testCtx(t), sid, nil)
	assert.NoError(t, err, "the account in paths is the configured one")

	r := rawDo(t, srv, basicAuth(sid, "other-token"), http.MethodGet, "/v2/Properties", "", "")
	assert.Equal(t, http.StatusUnauthorized, r.Status)
}

func TestWithAddr(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAddr("127.0.0.1:0"))
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	assert.Equal(t, "http", u.Scheme)
	assert.Equal(t, "127.0.0.1", u.Hostname())
	assert.NotEqual(t, "0", u.Port(), "the URL carries the port actually chosen")
	assert.NotEmpty(t, u.Port())

	_, err = srv.Client().Properties.Get(testCtx(t), srv.PropertySid)
	assert.NoError(t, err)
}

func TestWithAddr_BusyAddressPanics(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	assert.Panics(t, func() { telcotest.NewServer(telcotest.WithAddr(ln.Addr().String())).Close() })
}

// NewTestServer's server serves while the test runs and is closed by the
// test's cleanup: afterwards nothing listens at its URL.
func TestNewTestServer_ClosesWhenTheTestEnds(t *testing.T) {
	t.Parallel()
	var srv *telcotest.Server
	t.Run("inner", func(t *testing.T) {
		srv = telcotest.NewTestServer(t, telcotest.WithCredentials("AC"+strings.Repeat("T", 30), "tok"))
		assert.Equal(t, "AC"+strings.Repeat("T", 30), srv.AccountSid, "options apply")
		_, err := srv.Client().Properties.Get(testCtx(t), srv.PropertySid)
		require.NoError(t, err)
	})
	require.NotNil(t, srv)
	_, err := srv.Client(telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0})).Properties.Get(testCtx(t), srv.PropertySid)
	require.Error(t, err, "the server was closed with the subtest")
	var ae *telco.APIError
	assert.False(t, errors.As(err, &ae), "no answer at all, not a service error: %v", err)
}

// fatalTB records what NewTestServer does with a testing.TB, so the test
// can see a failed listen reported with Fatalf rather than a panic.
type fatalTB struct {
	testing.TB
	fatal    string
	cleanups int
}

func (f *fatalTB) Helper()                        {}
func (f *fatalTB) Cleanup(func())                 { f.cleanups++ }
func (f *fatalTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }

func TestNewTestServer_BusyAddressFailsTheTest(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	tb := &fatalTB{TB: t}
	assert.NotPanics(t, func() {
		assert.Nil(t, telcotest.NewTestServer(tb, telcotest.WithAddr(ln.Addr().String())))
	})
	assert.Contains(t, tb.fatal, "listen on "+ln.Addr().String())
	assert.Zero(t, tb.cleanups, "nothing to close")
}

func TestClient_RetriesIdempotentCallAfterFailNext(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ct := newCountingTransport(t)
	c := srv.Client(telco.WithHTTPClient(&http.Client{Transport: ct}))

	srv.FailNext(2, http.StatusServiceUnavailable)
	prop, err := c.Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, srv.PropertySid, prop.PropertySid)
	assert.Equal(t, 3, ct.count(), "two failed attempts and one that succeeded")
}

func TestClient_RetriesUpToMaxThenFails(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ct := newCountingTransport(t)
	c := srv.Client(telco.WithHTTPClient(&http.Client{Transport: ct}))

	srv.FailNext(10, http.StatusBadGateway)
	_, err := c.Properties.Get(testCtx(t), srv.PropertySid)
	requireStatus(t, err, http.StatusBadGateway)
	assert.Equal(t, 4, ct.count(), "Client() retries 3 times")
}

func TestClient_SendAfter503IsMaybeSentAndNotCreated(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ct := newCountingTransport(t)
	c := srv.Client(telco.WithHTTPClient(&http.Client{Transport: ct}))
	ctx := testCtx(t)

	srv.FailNext(1, http.StatusServiceUnavailable)
	_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "once", ExternalID: "x-503"})
	require.Error(t, err)
	assert.True(t, errors.Is(err, telco.ErrMaybeSent), "want ErrMaybeSent, got %v", err)
	requireStatus(t, err, http.StatusServiceUnavailable)
	assert.Equal(t, 1, ct.count(), "a send is not retried after a 503")

	page, err := c.Messages.Find(ctx, srv.PropertySid, window())
	require.NoError(t, err)
	assert.Empty(t, page.Items, "the injected failure happened before the message was created")

	// The fault is used up: the next send goes through.
	_, err = c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "again"})
	assert.NoError(t, err)
}

func TestClient_SendRetriedAfter429(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ct := newCountingTransport(t)
	c := srv.Client(telco.WithHTTPClient(&http.Client{Transport: ct}))
	ctx := testCtx(t)

	srv.FailNext(1, http.StatusTooManyRequests)
	msg, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "retried", ExternalID: "x-429"})
	require.NoError(t, err)
	assert.Equal(t, "x-429", msg.ExternalID)
	assert.Equal(t, 2, ct.count())

	page, err := c.Messages.Find(ctx, srv.PropertySid, window())
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "exactly one message: the 429 was not acted on")
	assert.Equal(t, msg.MessageSid, page.Items[0].MessageSid)
}

func TestFailNext_AnswersStatusWithErrorBodyInOrder(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.FailNext(1, http.StatusInternalServerError)
	srv.FailNext(1, http.StatusBadGateway)

	// Unauthenticated requests do not use up a fault.
	r := rawDo(t, srv, noAuth, http.MethodGet, "/v2/Properties", "", "")
	assert.Equal(t, http.StatusUnauthorized, r.Status)

	r = raw(t, srv, http.MethodGet, "/v2/Properties", "")
	assert.Equal(t, http.StatusInternalServerError, r.Status)
	assert.NotEmpty(t, errorBody(t, r).ResponseStatus.ErrorCode)

	r = raw(t, srv, http.MethodGet, "/v2/Properties", "")
	assert.Equal(t, http.StatusBadGateway, r.Status)
	errorBody(t, r)

	r = raw(t, srv, http.MethodGet, "/v2/Properties", "")
	assert.Equal(t, http.StatusOK, r.Status)
}

func TestServer_SeedingCreatesUnknownProjects(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	fresh := "PR" + strings.Repeat("N", 30)
	srv.AddNumber(fresh, "+61299999999")
	srv.AddNumberBlock(fresh, telco.NumberBlock{Number: "612XXXX"})
	in := srv.Receive(fresh, "+61400000001", "+61400000002", "hi")
	assert.Equal(t, fresh, in.PropertySid)

	p, err := c.Properties.Get(testCtx(t), fresh)
	require.NoError(t, err, "seeding under a new SID creates the project")
	assert.True(t, p.SmsEnabled)
	cfg, err := c.Numbers.Configure(testCtx(t), "61299999999", &telco.NumberConfigParams{Friendly: "ok"})
	require.NoError(t, err)
	assert.Equal(t, fresh, cfg.PropertySid)
	blocks, err := c.NumberBlocks.ListByProperty(testCtx(t), fresh, nil)
	require.NoError(t, err)
	assert.Len(t, blocks.Data, 1)

	// Seeding twice under the same SID makes one project, not two.
	srv.AddNumber(fresh, "+61299999998")
	page, err := c.Properties.List(testCtx(t), nil)
	require.NoError(t, err)
	n := 0
	for _, it := range page.Items {
		if it.PropertySid == fresh {
			n++
		}
	}
	assert.Equal(t, 1, n)
}

func TestServer_ConcurrentUse(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	const n = 50

	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	sids := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{
				From: "Acme", To: fmt.Sprintf("+614000000%02d", i), Text: fmt.Sprintf("message %d", i),
				ExternalID: fmt.Sprintf("conc-%d", i)})
			if err != nil {
				errs <- err
				return
			}
			sids[i] = m.MessageSid
			if _, err := c.Messages.Get(ctx, m.MessageSid); err != nil {
				errs <- err
			}
			if _, err := c.Messages.Find(ctx, srv.PropertySid, window()); err != nil {
				errs <- err
			}
			// Other state changes at the same time.
			srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Number: fmt.Sprintf("61290%02dXXXX", i)})
			srv.Receive(srv.PropertySid, fmt.Sprintf("+614100000%02d", i), "+61400000000", "reply")
			if _, err := c.Properties.List(ctx, nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}

	seen := map[string]bool{}
	for m, err := range c.Messages.FindAll(ctx, srv.PropertySid, &telco.FindMessagesParams{
		DateFrom: time.Now().Add(-time.Hour), DateTo: time.Now().Add(time.Hour), Direction: telco.DirectionTransmit,
		ListParams: telco.ListParams{Count: 7}}) {
		require.NoError(t, err)
		assert.False(t, seen[m.MessageSid], "message %s seen twice", m.MessageSid)
		seen[m.MessageSid] = true
	}
	assert.Len(t, seen, n)
	for i, sid := range sids {
		assert.True(t, seen[sid], "message %d (%s) not found", i, sid)
	}

	blocks, err := c.NumberBlocks.Search(ctx, &telco.NumberBlockSearchParams{PropertySid: srv.PropertySid})
	require.NoError(t, err)
	assert.Equal(t, n, blocks.TotalCount)
	received, err := c.Messages.Find(ctx, srv.PropertySid, &telco.FindMessagesParams{
		DateFrom: time.Now().Add(-time.Hour), DateTo: time.Now().Add(time.Hour), Direction: telco.DirectionReceive})
	require.NoError(t, err)
	assert.Len(t, received.Items, n)
}

func TestAccounts_WithAccountAndAddAccount(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAccount("AC"+strings.Repeat("B", 30), "token-b"))
	b, ok := srv.Account("AC" + strings.Repeat("B", 30))
	require.True(t, ok)
	assert.Equal(t, "token-b", b.Token)
	assert.Regexp(t, `^PR[A-Z0-9]{30}$`, b.PropertySid)
	assert.NotEqual(t, srv.PropertySid, b.PropertySid, "each account has its own seeded project")

	first, ok := srv.Account(srv.AccountSid)
	require.True(t, ok)
	assert.Equal(t, telcotest.Account{AccountSid: srv.AccountSid, Token: srv.Token, PropertySid: srv.PropertySid}, first)

	c := srv.AddAccount("", "")
	assert.Regexp(t, `^AC[A-Z0-9]{30}$`, c.AccountSid)
	assert.NotEmpty(t, c.Token)
	assert.Equal(t, c, srv.AddAccount(c.AccountSid, "another token"), "adding an existing SID changes nothing")
	_, ok = srv.Account("AC" + strings.Repeat("Z", 30))
	assert.False(t, ok)
	assert.Panics(t, func() { srv.ClientFor("AC" + strings.Repeat("Z", 30)) })

	// Each client sees only its own account's projects.
	ctx := testCtx(t)
	for _, a := range []telcotest.Account{first, b, c} {
		var sids []string
		for p, err := range srv.ClientFor(a.AccountSid).Properties.ListAll(ctx, nil) {
			require.NoError(t, err)
			assert.Equal(t, a.AccountSid, p.AccountSid)
			sids = append(sids, p.PropertySid)
		}
		assert.Equal(t, []string{a.PropertySid}, sids)
	}
	// A token of one account does not open another.
	r := rawDo(t, srv, basicAuth(b.AccountSid, srv.Token), http.MethodGet, "/v2/Properties", "", "")
	assert.Equal(t, http.StatusUnauthorized, r.Status)
}

const formType = "application/x-www-form-urlencoded"

// rawForm sends an authenticated form-encoded request.
func rawForm(t *testing.T, srv *telcotest.Server, method, path string, form url.Values) rawResp {
	t.Helper()
	return rawDo(t, srv, basicAuth(srv.AccountSid, srv.Token), method, path, formType, form.Encode())
}

// Operations whose encoding the service leaves open take a form body too.
func TestForm_ConfigureNumberAndCreateAddress(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := rawForm(t, srv, http.MethodPost, "/v2/Accounts/"+srv.AccountSid+"/Addresses",
		url.Values{"Line1": {"1 Form St"}, "City": {"Sydney"}, "CountryCode": {"AU"}, "PostalCode": {"2000"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	// Both answer the bare resource, as the interface document shows it.
	var a telco.Address
	require.NoError(t, json.Unmarshal(r.Body, &a))
	assert.Equal(t, "1 Form St", a.Line1)
	assert.Equal(t, "2000", a.PostalCode)

	srv.AddNumber(srv.PropertySid, "+61255550001")
	r = rawForm(t, srv, http.MethodPost, "/v2/Numbers/61255550001", url.Values{
		"Friendly": {"Front desk"}, "AddressSid": {a.AddressSid}, "Attribution_Source": {"google"},
		"WebHookUrl": {"https://hooks.example/in"}, "WebHookMethod": {"get"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var n telco.NumberConfig
	require.NoError(t, json.Unmarshal(r.Body, &n), "a bare resource: Number is the number, not an envelope")
	assert.Equal(t, "61255550001", n.Number)
	assert.Equal(t, "Front desk", n.Friendly)
	assert.Equal(t, a.AddressSid, n.AddressSid)
	assert.Equal(t, "google", n.AttributionSource)
	assert.Equal(t, "GET", n.WebhookMethod)

	// The rules apply to form bodies as to JSON ones.
	r = rawForm(t, srv, http.MethodPost, "/v2/Accounts/"+srv.AccountSid+"/Addresses", url.Values{"Line1": {"1 St"}, "CountryCode": {"AU"}})
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, telco.CodeParameterRequired, errorBody(t, r).ResponseStatus.ErrorCode)
	r = rawDo(t, srv, basicAuth(srv.AccountSid, srv.Token), http.MethodPost, "/v2/Numbers/61255550001", formType, "Friendly=%zz")
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, "SerializationException", errorBody(t, r).ResponseStatus.ErrorCode)
}

// The batch (and the other operations documented with JSON bodies) refuse
// a form body with the service's whole-request error.
func TestForm_JSONOnlyOperationsRefuseForms(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, path := range []string{
		"/v2/Properties/" + srv.PropertySid + "/BatchMessages",
		"/v2/Properties/" + srv.PropertySid + "/Messages",
		"/v2/Properties",
	} {
		r := rawForm(t, srv, http.MethodPost, path, url.Values{"To": {"+61400000001"}, "From": {"Acme"}, "Text": {"x"}, "Name": {"x"}})
		assert.Equal(t, http.StatusBadRequest, r.Status, path)
		e := errorBody(t, r).ResponseStatus
		assert.Equal(t, "SerializationException", e.ErrorCode, path)
		assert.Contains(t, e.Message, "application/json", path)
	}
	page, err := srv.Client().Messages.Find(testCtx(t), srv.PropertySid, window())
	require.NoError(t, err)
	assert.Empty(t, page.Items, "nothing was sent")
}

// Many goroutines of two accounts send, list and read while the clock
// moves and webhooks go out; run with -race.
func TestConcurrency_AccountsClockAndWebhooks(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	b := srv.AddAccount("", "")
	clients := map[string]*telco.Client{srv.PropertySid: srv.Client(), b.PropertySid: srv.ClientFor(b.AccountSid)}
	ctx := testCtx(t)
	const n = 20

	var wg sync.WaitGroup
	errs := make(chan error, 8*n)
	for i := range n {
		for prop, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				to := fmt.Sprintf("+614000001%02d", i%7)
				m, err := c.Messages.Send(ctx, prop, &telco.SendMessageParams{To: to, Text: "leased",
					DeliveryReceiptWebhookURI: rc.URL + "/dr", WebhookURI: rc.URL + "/lease"})
				if err != nil {
					errs <- err
					return
				}
				srv.Receive(prop, to, m.From, "reply")
				if _, err := c.Messages.Get(ctx, m.MessageSid); err != nil {
					errs <- err
				}
				if _, err := c.Messages.Find(ctx, prop, window()); err != nil {
					errs <- err
				}
				if _, err := c.Properties.List(ctx, nil); err != nil {
					errs <- err
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			clock.Advance(100 * time.Millisecond)
			srv.Flush() // may run while other callbacks start
			srv.Callbacks()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	clock.Advance(time.Minute)
	srv.Flush()

	kinds := map[telcotest.CallbackKind]int{}
	for _, cb := range srv.Callbacks() {
		assert.True(t, cb.OK(), cb.Err)
		kinds[cb.Kind]++
	}
	assert.Equal(t, 2*n, kinds[telcotest.CallbackDeliveryReceipt], "one receipt per message")
	assert.Equal(t, 2*n, kinds[telcotest.CallbackLeaseResponse], "one response per reply")

	// Each account leased its own sender per recipient: 7 recipients each.
	for prop, c := range clients {
		senders := map[string]map[string]bool{}
		for m, err := range c.Messages.FindAll(ctx, prop, &telco.FindMessagesParams{
			DateFrom: clock.Now().Add(-time.Hour), DateTo: clock.Now().Add(time.Hour), Direction: telco.DirectionTransmit}) {
			require.NoError(t, err)
			assert.Equal(t, telco.MessageDelivered, m.Status)
			if senders[m.To] == nil {
				senders[m.To] = map[string]bool{}
			}
			senders[m.To][m.From] = true
		}
		assert.Len(t, senders, 7)
		for to, s := range senders {
			assert.Len(t, s, 1, "one lease reused for %s", to)
		}
	}
}
