package telco

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The spec shows a whole-request failure as {"ResponseStatus": {...}}
// without naming its status; these tests answer it with a 2xx.

const refusalBody = `{"ResponseStatus":{"ErrorCode":"SerializationException","Message":"Could not deserialize",` +
	`"Errors":[{"ErrorCode":"PARAMETER_INVALID","FieldName":"Messages","Message":"bad"}]}}`

// Every operation, those that expect no body included, turns a 2xx holding
// only the service's error envelope into that error, instead of a zero
// resource, an empty page or a success.
func TestRefusalIn2xxForEveryOperation(t *testing.T) {
	t.Parallel()
	ops := []struct {
		op   string
		call func(c *Client) error
	}{
		// Validation is off: the answer, not the parameters, is under test.
		{"Messages.Send", func(c *Client) error {
			_, err := c.Messages.Send(bg, testProp, &SendMessageParams{To: "+61499999999", Text: "x"})
			return err
		}},
		{"Messages.Get", func(c *Client) error { _, err := c.Messages.Get(bg, "MG1"); return err }},
		{"Messages.Find", func(c *Client) error {
			_, err := c.Messages.Find(bg, testProp, &FindMessagesParams{})
			return err
		}},
		{"Properties.Get", func(c *Client) error { _, err := c.Properties.Get(bg, testProp); return err }},
		{"Properties.List", func(c *Client) error { _, err := c.Properties.List(bg, nil); return err }},
		{"Properties.Create", func(c *Client) error {
			_, err := c.Properties.Create(bg, &CreatePropertyParams{Name: "a"})
			return err
		}},
		{"OnlineLogins.List", func(c *Client) error { _, err := c.OnlineLogins.List(bg, nil); return err }},
		{"SipTrunks.List", func(c *Client) error { _, err := c.SipTrunks.List(bg, testProp, nil); return err }},
		{"SipTrunks.Create", func(c *Client) error {
			_, err := c.SipTrunks.Create(bg, testProp, &CreateSipTrunkParams{Name: "T"})
			return err
		}},
		{"Addresses.Delete", func(c *Client) error { return c.Addresses.Delete(bg, "AD1") }},
		{"Properties.Update", func(c *Client) error {
			return c.Properties.Update(bg, testProp, &UpdatePropertyParams{Name: Ptr("b")})
		}},
		{"Lookup.NumberDetails", func(c *Client) error { _, err := c.Lookup.NumberDetails(bg, "0299999999"); return err }},
		{"OnlineLogins.Create", func(c *Client) error {
			_, err := c.OnlineLogins.Create(bg, testProp, &CreateOnlineLoginParams{Email: "a@b.example"})
			return err
		}},
		{"OnlineLogins.Get", func(c *Client) error { _, err := c.OnlineLogins.Get(bg, "OL1"); return err }},
		{"Porting.Submit", func(c *Client) error {
			_, err := c.Porting.Submit(bg, testProp, &PortingRequestParams{})
			return err
		}},
		{"Porting.StatusByAccount", func(c *Client) error {
			_, err := c.Porting.StatusByAccount(bg, testSid, &PortingStatusParams{})
			return err
		}},
		{"SipTrunks.GetByProperty", func(c *Client) error {
			_, err := c.SipTrunks.GetByProperty(bg, testProp, "ST1")
			return err
		}},
		{"Numbers.Configure", func(c *Client) error {
			_, err := c.Numbers.Configure(bg, "61299999999", &NumberConfigParams{})
			return err
		}},
		{"Addresses.Create", func(c *Client) error {
			_, err := c.Addresses.Create(bg, testSid, &CreateAddressParams{Line1: "1 Main St"})
			return err
		}},
		{"NumberBlocks.Search", func(c *Client) error {
			_, err := c.NumberBlocks.Search(bg, &NumberBlockSearchParams{AccountSid: testSid})
			return err
		}},
		{"NumberBlocks.ListByProperty", func(c *Client) error {
			_, err := c.NumberBlocks.ListByProperty(bg, testProp, nil)
			return err
		}},
		{"OnlineLogins.Update", func(c *Client) error {
			return c.OnlineLogins.Update(bg, testLogin, &UpdateOnlineLoginParams{Enabled: Ptr(true)})
		}},
		{"SipTrunks.Update", func(c *Client) error {
			return c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{Name: Ptr("x")})
		}},
		{"NumberBlocks.Purchase", func(c *Client) error {
			_, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299999999"})
			return err
		}},
		{"NumberBlocks.Configure", func(c *Client) error {
			_, err := c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F1"})
			return err
		}},
		{"Client.Do", func(c *Client) error { return c.Do(bg, "POST", "/v2/Things", map[string]int{"a": 1}, nil) }},
	}
	for _, o := range ops {
		t.Run(o.op, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, WithClientValidation(false))
			mt.RegisterNoResponder(httpmock.NewStringResponder(http.StatusOK, refusalBody))
			err := o.call(c)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, o.op, ae.Op)
			assert.Equal(t, http.StatusOK, ae.StatusCode)
			assert.Equal(t, "SerializationException", ae.Code)
			assert.Equal(t, "Could not deserialize", ae.Message)
			require.Len(t, ae.Fields, 1)
			assert.Equal(t, "Messages", ae.Fields[0].FieldName)
			assert.NotErrorIs(t, err, ErrMaybeSent, "the service refused the request")
		})
	}
}

// A decoded value must not share memory with the pooled body buffer: the
// next call reuses it.
func TestDecodedValuesOutliveThePooledBuffer(t *testing.T) {
	c, mt := newMockClient(t)
	bodies := []string{
		`{"Property":{"PropertySid":"PRFIRST","Name":"First"}}`,
		`{"Property":{"PropertySid":"PRSECOND","Name":"` + strings.Repeat("x", 4096) + `"}}`,
	}
	n := 0
	mt.RegisterResponder(http.MethodGet, `=~^`+testBase+`/v2/Properties/`, func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(http.StatusOK, bodies[n%2])
		n++
		return r, nil
	})
	first, err := c.Properties.Get(context.Background(), "PRFIRST")
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		_, err := c.Properties.Get(context.Background(), "PRSECOND")
		require.NoError(t, err)
	}
	assert.Equal(t, "PRFIRST", first.PropertySid)
	assert.Equal(t, "First", first.Name)
}

func TestMaxResponseBytes(t *testing.T) {
	t.Parallel()
	body := []byte(`{"Property":{"PropertySid":"` + testProp + `","Name":"` + strings.Repeat("n", 200) + `"}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			_, _ = w.Write([]byte(`{"Message":{"MessageSid":"MG1","Text":"` + strings.Repeat("t", 400) + `"}}`))
			return
		}
		_, _ = w.Write(body)
	}))
	defer srv.Close()

	// At the cap, the body is read.
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithMaxResponseBytes(int64(len(body))))
	require.NoError(t, err)
	_, err = c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err)

	// One byte over, a clear error that keeps the status; not retried.
	c, err = NewClient(testSid, testToken, WithBaseURL(srv.URL), WithMaxResponseBytes(int64(len(body)-1)))
	require.NoError(t, err)
	_, err = c.Properties.Get(context.Background(), testProp)
	require.ErrorIs(t, err, ErrResponseTooLarge)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusOK, ae.StatusCode)
	assert.Contains(t, err.Error(), fmt.Sprint(len(body)-1))
	assert.False(t, errors.Is(err, ErrMaybeSent))

	// A send whose answer is too large did take effect.
	_, err = c.Messages.Send(context.Background(), testProp, &SendMessageParams{To: "+61400000001", Text: "hi"})
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.ErrorIs(t, err, ErrMaybeSent)

	for _, n := range []int64{0, -1} {
		_, err = NewClient(testSid, testToken, WithMaxResponseBytes(n))
		assert.Error(t, err, "%d", n)
	}
	c, err = NewClient(testSid, testToken)
	require.NoError(t, err)
	assert.EqualValues(t, DefaultMaxResponseBytes, c.maxBody)
}

// TestEverySuccessBodyReadIsBounded: an endless success body is read up to
// the cap and no further (error bodies: TestErrorBodyIsBounded's kin in
// errors_test.go).
func TestEverySuccessBodyReadIsBounded(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	body := &countingReader{left: 1 << 40}
	c, mt := newMockClient(t, WithMaxResponseBytes(limit))
	mt.RegisterResponder("GET", testBase+"/v2/Properties/"+testProp, func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: body, Header: http.Header{}}, nil
	})
	_, err := c.Properties.Get(context.Background(), testProp)
	require.ErrorIs(t, err, ErrResponseTooLarge, "an endless body ends")
	assert.LessOrEqual(t, body.n, int64(limit+1), "read %d bytes", body.n)
}

func TestPathSegmentEscapesDotSegments(t *testing.T) {
	assert.Equal(t, "%2E", pathSegment("."))
	assert.Equal(t, "%2E%2E", pathSegment(".."))
	assert.Equal(t, "a.b", pathSegment("a.b"))
	assert.Equal(t, "a%2Fb", pathSegment("a/b"))

	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/numberblocks/%2E%2E", 200, []byte(`{"Data":[]}`))
	_, err := c.NumberBlocks.SearchText(bg, "..", nil)
	assert.NoError(t, err)
	assert.Equal(t, "/v2/numberblocks/%2E%2E", got.Path)
}

func TestPathSegmentsAreEscaped(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Properties/a%2Fb%3Fc", 200, fixture(t, "get_property.json"))
	_, err := c.Properties.Get(context.Background(), "a/b?c")
	require.NoError(t, err)
	assert.Equal(t, "/v2/Properties/a%2Fb%3Fc", got.Path)
}

func TestCanceledContextSendsNothing(t *testing.T) {
	c, mt := newMockClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Properties.Get(ctx, testProp)
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, mt.GetTotalCallCount())
	assert.Contains(t, err.Error(), "Properties.Get")
}

func TestNilContextDoesNotPanic(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Properties/"+testProp, 200, fixture(t, "get_property.json"))
	//lint:ignore SA1012 a nil context must not panic
	_, err := c.Properties.Get(nil, testProp)
	assert.NoError(t, err)
}

// getBodyRecorder answers every request with a canned success and records,
// per method and path, whether net/http could rewind the request's body by
// itself (Request.GetBody set).
type getBodyRecorder struct {
	mu      sync.Mutex
	rewinds map[string]bool
}

func (g *getBodyRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	g.mu.Lock()
	g.rewinds[req.Method+" "+req.URL.Path] = req.GetBody != nil
	g.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}, nil
}

// TestNonIdempotentRequestsCannotBeRewoundByNetHTTP: net/http's HTTP/2
// transport resends a request on its own (RST_STREAM PROTOCOL_ERROR,
// REFUSED_STREAM, GOAWAY) whenever GetBody can rewind its body, even after
// the service acted on it. Sends and creates must not give it that means;
// idempotent calls with a body may keep it.
func TestNonIdempotentRequestsCannotBeRewoundByNetHTTP(t *testing.T) {
	t.Parallel()
	rec := &getBodyRecorder{rewinds: map[string]bool{}}
	c, err := NewClient(testSid, testToken, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: rec}),
		WithClientValidation(false))
	require.NoError(t, err)
	ctx := context.Background()
	_ = unsafeCall(c)
	_, _ = c.Properties.Create(ctx, &CreatePropertyParams{Name: "P"})
	_ = c.Properties.Update(ctx, testProp, &UpdatePropertyParams{Name: Ptr("Q")})

	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, k := range []string{"POST /v2/Properties/" + testProp + "/Messages", "POST /v2/Properties"} {
		v, ok := rec.rewinds[k]
		require.True(t, ok, "%s was sent", k)
		assert.False(t, v, "%s: GetBody is set, so net/http may resend it by itself", k)
	}
	v, ok := rec.rewinds["PATCH /v2/Properties/"+testProp]
	require.True(t, ok, "the update was sent")
	assert.True(t, v, "an idempotent update keeps GetBody (same-origin 307/308 are still followed)")
}

// TestCompressedAnswerOverTheCapCostsAboutTheCap: net/http inflates a gzip
// answer transparently, so a small compressed body can stand for any size.
// Reading it stops one byte past the cap, and what the call allocates on
// the way stays near the cap, where a doubling buffer held twice the cap
// after allocating as much again.
func TestCompressedAnswerOverTheCapCostsAboutTheCap(t *testing.T) {
	const limit = 8 << 20
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zeros := make([]byte, 1<<20)
	for range 64 { // 64 MiB inflated, 64 KiB on the wire
		_, _ = zw.Write(zeros)
	}
	require.NoError(t, zw.Close())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(gz.Bytes())
	}))
	defer srv.Close()
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithMaxResponseBytes(limit),
		WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	defer c.CloseIdleConnections()

	for name, call := range map[string]func() error{
		"read": func() error { _, err := c.Properties.Get(context.Background(), testProp); return err },
		"send": func() error { return unsafeCall(c) },
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := call()
		runtime.ReadMemStats(&after)
		require.ErrorIs(t, err, ErrResponseTooLarge, name)
		alloc := after.TotalAlloc - before.TotalAlloc
		assert.Less(t, alloc, uint64(limit+2<<20), "%s: %d MiB allocated for a cap of %d MiB", name, alloc>>20, limit>>20)
	}
}

// TestReadBodyAroundItsSteps: readBody gives every body up to the cap back
// whole, across its chunks, and refuses one byte more having read no
// further.
func TestReadBodyAroundItsSteps(t *testing.T) {
	t.Parallel()
	const k = 4 << 10
	sizes := []int{0, 1, k - 1, k, k + 1, 3*k - 1, 3 * k, 3*k + 1, 1 << 20, 3<<20 + 7}
	for _, limit := range []int{10, k, k + 1, 3 * k, 1 << 20, 3 << 20} {
		for i, n := range append(sizes, limit-1, limit, limit+1, limit+k) {
			if n < 0 {
				continue
			}
			// The announced length: unknown, right, or wrong either way.
			hint := [...]int64{-1, int64(n), int64(n) / 2, int64(n) + 100}[i%4]
			want := make([]byte, n)
			for i := range want {
				want[i] = byte(i*7 + i>>9)
			}
			src := &readCounter{r: iotest.HalfReader(bytes.NewReader(want))}
			got, err := readBody(src, int64(limit), hint)
			if n > limit {
				require.ErrorIs(t, err, errBodyTooLarge, "limit %d, body %d", limit, n)
				assert.Nil(t, got)
				assert.EqualValues(t, limit+1, src.n, "limit %d, body %d: read past the cap", limit, n)
				continue
			}
			require.NoError(t, err, "limit %d, body %d", limit, n)
			assert.True(t, bytes.Equal(want, got), "limit %d, body %d: the body changed", limit, n)
		}
	}
	_, err := readBody(iotest.ErrReader(io.ErrClosedPipe), 10, -1)
	assert.ErrorIs(t, err, io.ErrClosedPipe)
	_, err = readBody(io.MultiReader(bytes.NewReader(make([]byte, 5*k)), iotest.ErrReader(io.ErrClosedPipe)), 1<<20, -1)
	assert.ErrorIs(t, err, io.ErrClosedPipe, "an error past the first chunk")
}

// readCounter counts the bytes read through it.
type readCounter struct {
	r io.Reader
	n int64
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestCommaList(t *testing.T) {
	t.Parallel()
	cases := []struct {
		list commaList[string]
		want url.Values
	}{
		{nil, url.Values{}},
		{commaList[string]{}, url.Values{}},
		{commaList[string]{""}, url.Values{}}, // joins to "": an empty filter is not sent
		{commaList[string]{"a"}, url.Values{"K": {"a"}}},
		{commaList[string]{"a", "b c", ""}, url.Values{"K": {"a,b c,"}}},
	}
	for _, tc := range cases {
		v := url.Values{}
		require.NoError(t, tc.list.EncodeValues("K", &v))
		assert.Equal(t, tc.want, v, "%q", tc.list)
	}
}

// The URL carries a ? only before a query that is not empty.
func TestRequestURL(t *testing.T) {
	t.Parallel()
	c := &Client{baseURL: "https://api.example.com"}
	cases := []struct {
		r    call
		want string
	}{
		{call{path: "/v2/Properties"}, "https://api.example.com/v2/Properties"},
		{call{path: "/v2/Properties", query: &ListParams{}}, "https://api.example.com/v2/Properties"},
		{call{path: "/v2/Properties", query: &ListParams{Count: 50, Skip: 100}},
			"https://api.example.com/v2/Properties?Results_Count=50&Results_Skip=100"},
		{call{path: "/v2/SipTrunks", query: &wireListSipTrunks{ListParams: ListParams{Skip: 3}}},
			"https://api.example.com/v2/SipTrunks?Results_Skip=3"},
		{call{path: "/v2/Flows", rawQuery: "Results_Count=10"}, "https://api.example.com/v2/Flows?Results_Count=10"},
		{call{path: "/v2/Properties"}, "https://api.example.com/v2/Properties"},
	}
	for _, tc := range cases {
		got, err := c.requestURL(&tc.r)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}

// A RoundTripper that adds to a header, as tracing middleware may, changes
// only its request.
func TestSharedHeaderValuesStayUnchanged(t *testing.T) {
	t.Parallel()
	var seen []http.Header
	var mu sync.Mutex
	rec := func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			seen = append(seen, r.Header.Clone())
			mu.Unlock()
			r.Header.Add("Accept", "text/plain")
			r.Header.Add("User-Agent", "middleware/1")
			r.Header.Add("Authorization", "Bearer x")
			return &http.Response{StatusCode: 200, Request: r, Header: http.Header{},
				Body: io.NopCloser(strings.NewReader(`{"Property":{"PropertySid":"PR1"}}`))}, nil
		})
	}
	c, err := NewClient(testSid, testToken, WithBaseURL("https://telco.invalid"), WithTransport(rec))
	require.NoError(t, err)
	for range 3 {
		_, err := c.Properties.Get(bg, testProp)
		require.NoError(t, err)
	}
	require.Len(t, seen, 3)
	for _, h := range seen {
		assert.Equal(t, []string{"application/json"}, h.Values("Accept"))
		assert.Len(t, h.Values("User-Agent"), 1)
		assert.Len(t, h.Values("Authorization"), 1)
	}
}
