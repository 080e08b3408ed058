package telco

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/google/go-querystring/query"
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

func TestBodyBufferPoolKeepsOnlyModestBuffers(t *testing.T) {
	small := getBodyBuffer()
	small.WriteString("leftover")
	putBodyBuffer(small)
	again := getBodyBuffer()
	assert.Zero(t, again.Len(), "a buffer from the pool starts empty")
	putBodyBuffer(again)

	big := bytes.NewBuffer(make([]byte, 0, maxPooledBody+1))
	putBodyBuffer(big)
	for i := 0; i < 10; i++ {
		b := getBodyBuffer()
		assert.NotSame(t, big, b, "a buffer over maxPooledBody is dropped")
		defer putBodyBuffer(b)
	}
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
// whole, through its pooled head and its chunks alike, and refuses one
// byte more having read no further.
func TestReadBodyAroundItsSteps(t *testing.T) {
	t.Parallel()
	sizes := []int{0, 1, bodyHead - 1, bodyHead, bodyHead + 1, 2*bodyHead - 1, 2 * bodyHead, 2*bodyHead + 1,
		bodyHead + bodyChunk, bodyHead + 2*bodyChunk + 7}
	for _, limit := range []int{10, bodyHead, bodyHead + 1, 2*bodyHead - 1, 2 * bodyHead, bodyHead + bodyChunk, 3 << 20} {
		for _, n := range append(sizes, limit-1, limit, limit+1, limit+bodyChunk) {
			if n < 0 {
				continue
			}
			want := make([]byte, n)
			for i := range want {
				want[i] = byte(i*7 + i>>9)
			}
			src := &readCounter{r: iotest.HalfReader(bytes.NewReader(want))}
			buf, err := readBody(src, int64(limit), new(io.LimitedReader))
			if n > limit {
				require.ErrorIs(t, err, errBodyTooLarge, "limit %d, body %d", limit, n)
				assert.Nil(t, buf)
				assert.EqualValues(t, limit+1, src.n, "limit %d, body %d: read past the cap", limit, n)
				continue
			}
			require.NoError(t, err, "limit %d, body %d", limit, n)
			assert.True(t, bytes.Equal(want, buf.Bytes()), "limit %d, body %d: the body changed", limit, n)
			putBodyBuffer(buf)
		}
	}
	_, err := readBody(iotest.ErrReader(io.ErrClosedPipe), 10, new(io.LimitedReader))
	assert.ErrorIs(t, err, io.ErrClosedPipe)
	_, err = readBody(io.MultiReader(bytes.NewReader(make([]byte, bodyHead+10)), iotest.ErrReader(io.ErrClosedPipe)), 1<<20, new(io.LimitedReader))
	assert.ErrorIs(t, err, io.ErrClosedPipe, "an error past the head")
}

// TestReadBodyHeadHoldsABatchAnswer: a body that fits in the room the
// pooled buffer has grown to (the answer to a batch of a thousand
// messages, about 450 kB, among them) is read into that buffer, not
// joined from chunks into a buffer of its exact size, and the buffer is
// small enough for the pool to take back. Not parallel, and the pool
// emptied first: a buffer some other test put back at an exact size has
// less spare room than one grown by doubling.
func TestReadBodyHeadHoldsABatchAnswer(t *testing.T) {
	runtime.GC()
	runtime.GC() // a collection moves pooled buffers aside; the second drops them
	for _, n := range []int{90 << 10, 450 << 10, 2*bodyHead - 1} {
		buf, err := readBody(iotest.HalfReader(bytes.NewReader(make([]byte, n))), DefaultMaxResponseBytes, new(io.LimitedReader))
		require.NoError(t, err)
		require.Equal(t, n, buf.Len())
		assert.Greater(t, buf.Cap(), n, "body of %d bytes: joined from chunks", n)
		assert.LessOrEqual(t, buf.Cap(), maxPooledBody, "body of %d bytes: a buffer of %d bytes is too large for the pool", n, buf.Cap())
		putBodyBuffer(buf)
	}
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

// encodeQuery is the query string do sends for the wire query q.
func encodeQuery(q any) (string, error) {
	b, err := encodeQueryTo(nil, q)
	return string(b), err
}

// wireQueries holds every wire query type of the package, a pointer to
// each. TestWireQueryTypesAreListed keeps it whole, so that a new wire
// query is checked against go-querystring like the others.
var wireQueries = []any{
	&ListParams{}, &wirePage{}, &wireFindMessages{}, &wireLookup{}, &wireListCalls{}, &wireListNumbers{},
	&wireListAddresses{}, &wirePortingStatus{}, &wireListSipTrunks{}, &wireBlockList{}, &wireBlockSearch{},
}

// byteSource hands out the bytes of a fuzz input or a random seed, then
// zeros.
type byteSource struct{ b []byte }

func (s *byteSource) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

// fillWire sets every exported field of v from src: nil or set pointers,
// lists of 0 to 3 elements, strings of any bytes (empty ones included),
// integers zero, small, negative or large.
func fillWire(v reflect.Value, src *byteSource) {
	switch v.Kind() {
	case reflect.Pointer:
		if src.next()%3 == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fillWire(p.Elem(), src)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillWire(v.Field(i), src)
			}
		}
	case reflect.Slice:
		n := int(src.next() % 4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fillWire(s.Index(i), src)
		}
		v.Set(s)
	case reflect.String:
		b := make([]byte, src.next()%7)
		for i := range b {
			b[i] = src.next()
		}
		v.SetString(string(b))
	case reflect.Bool:
		v.SetBool(src.next()%2 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var n int64
		switch src.next() % 4 {
		case 1:
			n = int64(int8(src.next()))
		case 2:
			for range 8 {
				n = n<<8 | int64(src.next())
			}
		case 3:
			n = -1
		}
		if v.OverflowInt(n) {
			n = int64(int8(n))
		}
		v.SetInt(n)
	default:
		panic("fillWire: no filler for " + v.Type().String())
	}
}

// checkWireQuery fails unless every wire query filled from src encodes, on
// its own and after a URL's prefix, as go-querystring encodes it.
func checkWireQuery(t *testing.T, src []byte) {
	t.Helper()
	for _, proto := range wireQueries {
		v := reflect.New(reflect.TypeOf(proto).Elem())
		fillWire(v.Elem(), &byteSource{src})
		q := v.Interface()
		ref, err := query.Values(q)
		require.NoError(t, err)
		want := ref.Encode()
		got, err := encodeQuery(q)
		require.NoError(t, err)
		if got != want {
			t.Fatalf("%T %+v:\n  encoded        %q\n  go-querystring %q", q, v.Elem(), got, want)
		}
		prefix := "http://127.0.0.1/v2/Properties?"
		b, err := encodeQueryTo([]byte(prefix), q)
		require.NoError(t, err)
		if string(b) != prefix+want {
			t.Fatalf("%T %+v after a prefix: %q", q, v.Elem(), b)
		}
	}
}

// Every wire query, those with a fast path among them, encodes byte for
// byte as go-querystring does, on a thousand random values of each.
func TestWireQueriesEncodeAsGoQuerystring(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 1))
	for range 1000 {
		src := make([]byte, 96)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		checkWireQuery(t, src)
	}
	checkWireQuery(t, nil) // every field zero
}

// FuzzWireQueries: as TestWireQueriesEncodeAsGoQuerystring, on the
// fuzzer's values.
func FuzzWireQueries(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x01\x02\x03a b&c=d/\xc3\xa9\x05,,+%\x00\xff"))
	f.Fuzz(func(t *testing.T, src []byte) { checkWireQuery(t, src) })
}

// The list above is every struct of the package with url tags, and a
// multi-value filter in any of them is a commaList (one comma-separated
// value), never a slice go-querystring would send as repeated keys.
func TestWireQueryTypesAreListed(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	require.NoError(t, err)
	var tagged []string
	defined := map[string]string{} // type X Y: X's name to Y's
	for _, f := range pkgs["telco"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			switch tt := ts.Type.(type) {
			case *ast.StructType:
				for _, fl := range tt.Fields.List {
					if fl.Tag != nil && strings.Contains(fl.Tag.Value, `url:"`) {
						tagged = append(tagged, ts.Name.Name)
						break
					}
				}
			case *ast.Ident:
				defined[ts.Name.Name] = tt.Name
			}
			return true
		})
	}
	for x, y := range defined { // a type defined as a tagged struct has its tags
		if slices.Contains(tagged, y) {
			tagged = append(tagged, x)
		}
	}
	var listed []string
	encoder := reflect.TypeFor[query.Encoder]()
	var noSlices func(st reflect.Type)
	noSlices = func(st reflect.Type) {
		for i := range st.NumField() {
			f := st.Field(i)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch {
			case f.Anonymous && ft.Kind() == reflect.Struct:
				noSlices(ft)
			case ft.Kind() == reflect.Slice && !ft.Implements(encoder):
				t.Errorf("%s.%s is a %s: go-querystring would repeat its key; use commaList", st.Name(), f.Name, ft)
			}
		}
	}
	for _, q := range wireQueries {
		rt := reflect.TypeOf(q).Elem()
		listed = append(listed, rt.Name())
		noSlices(rt)
	}
	assert.ElementsMatch(t, tagged, listed, "wireQueries lists every struct with url tags")
}

// appendQueryEscape escapes as url.QueryEscape does.
func FuzzAppendQueryEscape(f *testing.F) {
	for _, s := range []string{"", "a b", "+61299999999,0299999999", "é~-_.*'()!", "\x00\xff%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := string(appendQueryEscape([]byte("x="), s)); got != "x="+url.QueryEscape(s) {
			t.Fatalf("%q: %q, url.QueryEscape %q", s, got, url.QueryEscape(s))
		}
	})
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

// The URL carries a ? only before a query that is not empty, and a query
// built in a pooled buffer does not leak into the next one.
func TestRequestURL(t *testing.T) {
	t.Parallel()
	c := &Client{baseURL: "https://api.example.com"}
	cases := []struct {
		r    call
		want string
	}{
		{call{path: "/v2/Properties"}, "https://api.example.com/v2/Properties"},
		{call{path: "/v2/Properties", query: &wirePage{}}, "https://api.example.com/v2/Properties"},
		{call{path: "/v2/Properties", query: &wirePage{Count: 50, Skip: 100}},
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

// Requests share their header values (headerValue): a RoundTripper that
// adds to a header, as tracing middleware may, changes only its request.
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
