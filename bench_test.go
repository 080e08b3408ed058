package telco

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The call benchmarks compare the SDK with a hand-written net/http +
// encoding/json call doing the same work against the same loopback server,
// in the same run: a guard against gross regressions of the SDK's own
// work (BENCHMARKS.md), not a budget on microseconds no user can see.
// BenchmarkCalls has the sub-benchmarks call=X/impl=Y for benchstat -col
// /impl; scripts/bench.sh runs the sides in alternating pairs and reports
// the median of the per-pair ratios. Read the results as ratios, never as
// bare times.

// benchServer answers every request with body, after reading the request.
// It counts the connections clients open to it (conns), so a test can
// check that every side keeps its connection between calls.
type benchServer struct {
	*httptest.Server
	conns atomic.Int64
}

func newBenchServer(b testing.TB, body []byte) *benchServer {
	bs := &benchServer{}
	bs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	bs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			bs.conns.Add(1)
		}
	}
	bs.Start()
	b.Cleanup(bs.Close)
	return bs
}

// benchClient is an SDK client for srv with the default transport and
// retry policy, as an application would have it.
func benchClient(b testing.TB, srv *benchServer) *Client {
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// baselineClient is the hand-written side: a stock transport.
func baselineClient() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

// guardedClient is the pooled side's client with what a careful engineer
// adds before production: a time limit on every request
// (http.Client.Timeout) and on the wait for an answer's header
// (ResponseHeaderTimeout). The SDK has both limits, kept by its watchdog;
// this side shows what net/http's way of keeping them costs, beside the
// budgets, which are against the pooled side.
func guardedClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// baselineDo sends a request as a careful hand-written client would (Basic
// auth, Accept, Content-Type for a body), decodes a 200 answer into out as
// most code does, with json.NewDecoder on the body, then drains the body so
// that the connection is reused: a decoder stops at the end of the value,
// and closing a body with bytes left in it closes the connection.
func baselineDo(b testing.TB, hc *http.Client, method, u string, body []byte, out any) {
	resp := baselineSend(b, hc, method, u, body)
	err := json.NewDecoder(resp.Body).Decode(out)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatal("baseline:", resp.StatusCode, err)
	}
}

// baselineBuffers are the pooled side's reusable body buffers.
var baselineBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// baselinePooledDo is the best hand-written client we know: the body read
// to its end into a pooled buffer, then one json.Unmarshal, which decodes
// faster than a streaming decoder and leaves the connection reusable.
func baselinePooledDo(b testing.TB, hc *http.Client, method, u string, body []byte, out any) {
	resp := baselineSend(b, hc, method, u, body)
	buf := baselineBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	_, err := buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err == nil {
		err = json.Unmarshal(buf.Bytes(), out)
	}
	baselineBuffers.Put(buf)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatal("baseline:", resp.StatusCode, err)
	}
}

// baselineSend sends the request of either hand-written side.
func baselineSend(b testing.TB, hc *http.Client, method, u string, body []byte) *http.Response {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, u, rd)
	if err != nil {
		b.Fatal(err)
	}
	req.SetBasicAuth(testSid, testToken)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

func benchMessage(i int) Message {
	return Message{
		MessageSid: fmt.Sprintf("MG%030d", i), AccountSid: testSid, PropertySid: testProp,
		From: "+61499999999", To: fmt.Sprintf("+614%08d", i), Text: "Your order has shipped and will arrive on Tuesday",
		DeliveryReceipt: true, NumSegments: 1, Status: MessageDelivered, Direction: DirectionTransmit,
		Scheduled: 1577836800, Created: 1577836800, Submitted: 1577836801, Delivered: 1577836805,
		ExternalID: "order-" + strconv.Itoa(i),
	}
}

func mustJSON(b testing.TB, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// callCase is one operation done three ways: by hand with a streaming
// decoder (baseline), by hand with a pooled buffer (pooled), and by the
// SDK. Each function makes one call and fails the benchmark if the answer
// is not the expected one. do is the hand-written call, baselineDo or
// baselinePooledDo; srv is the case's server.
type callCase struct {
	name string
	hand func(b testing.TB, hc *http.Client, do handDo)
	sdk  func(b testing.TB)
	srv  *benchServer
	hcs  [3]*http.Client // the baseline's, the pooled side's and the guarded side's
}

func newCallCase(srv *benchServer, name string, hand func(testing.TB, *http.Client, handDo), sdk func(testing.TB)) callCase {
	return callCase{name: name, hand: hand, sdk: sdk, srv: srv, hcs: [3]*http.Client{baselineClient(), baselineClient(), guardedClient()}}
}

// handDo is one of the two hand-written ways to make a call.
type handDo func(b testing.TB, hc *http.Client, method, u string, body []byte, out any)

// sides are the ways to make a case's call, in the order of
// BenchmarkCalls' impl values: the SDK third, the guarded pooled client
// (a timeout on every request, as the SDK has) fourth.
func (c callCase) sides() []benchSide {
	return []benchSide{
		{"baseline", func(b testing.TB) { c.hand(b, c.hcs[0], baselineDo) }},
		{"pooled", func(b testing.TB) { c.hand(b, c.hcs[1], baselinePooledDo) }},
		{"sdk", c.sdk},
		{"guarded", func(b testing.TB) { c.hand(b, c.hcs[2], baselinePooledDo) }},
	}
}

type benchSide struct {
	impl string
	call func(b testing.TB)
}

// callCases builds the servers and every side of every call benchmark.
// Each hand-written side has its own connections, as the SDK has.
func callCases(b testing.TB) []callCase {
	ctx := context.Background()
	var cases []callCase

	// The small call: one project, about 300 bytes.
	{
		srv := newBenchServer(b, fixture(b, "get_property.json"))
		c := benchClient(b, srv)
		u := srv.URL + "/v2/Properties/" + url.PathEscape(testProp)
		cases = append(cases, newCallCase(srv, "PropertiesGet",
			func(b testing.TB, hc *http.Client, do handDo) {
				var out struct{ Property Property }
				do(b, hc, http.MethodGet, u, nil, &out)
				if out.Property.PropertySid == "" {
					b.Fatal("no property")
				}
			},
			func(b testing.TB) {
				p, err := c.Properties.Get(ctx, testProp)
				if err != nil || p.PropertySid == "" {
					b.Fatal(err)
				}
			}))
	}

	// One page of 200 messages, about 90 kB.
	{
		msgs := make([]Message, 200)
		for i := range msgs {
			msgs[i] = benchMessage(i)
		}
		srv := newBenchServer(b, mustJSON(b, map[string]any{"Messages": msgs}))
		c := benchClient(b, srv)
		from, to := time.Unix(1577836800, 0), time.Unix(1577836800+86400, 0)
		p := &FindMessagesParams{DateFrom: from, DateTo: to, ListParams: ListParams{Count: 200}}
		cases = append(cases, newCallCase(srv, "MessagesFind200",
			func(b testing.TB, hc *http.Client, do handDo) {
				q := url.Values{}
				q.Set("Date_From", strconv.FormatInt(from.Unix(), 10))
				q.Set("Date_To", strconv.FormatInt(to.Unix(), 10))
				q.Set("Results_Count", "200")
				var out struct{ Messages []Message }
				do(b, hc, http.MethodGet, srv.URL+"/v2/Properties/"+url.PathEscape(testProp)+"/Messages?"+q.Encode(), nil, &out)
				if len(out.Messages) != 200 {
					b.Fatal("short page")
				}
			},
			func(b testing.TB) {
				page, err := c.Messages.Find(ctx, testProp, p)
				if err != nil || len(page.Items) != 200 {
					b.Fatal(err)
				}
			}))
	}

	// 1,000 messages in one request, and their 1,000 results: the request
	// body is about 100 kB, the answer 450 kB.
	{
		const n = 1000
		params := make([]SendMessageParams, n)
		answer := make([]Message, n)
		for i := range params {
			m := benchMessage(i)
			params[i] = SendMessageParams{From: m.From, To: m.To, Text: m.Text, ExternalID: m.ExternalID}
			answer[i] = m
		}
		srv := newBenchServer(b, mustJSON(b, answer))
		c := benchClient(b, srv)
		u := srv.URL + "/v2/Properties/" + url.PathEscape(testProp) + "/BatchMessages"
		cases = append(cases, newCallCase(srv, "SendBatch1000",
			func(b testing.TB, hc *http.Client, do handDo) {
				wire := make([]baselineWire, len(params))
				for j, p := range params {
					wire[j] = baselineWire{From: p.From, To: p.To, Text: p.Text, ExternalID: p.ExternalID}
				}
				body, err := json.Marshal(struct{ Messages []baselineWire }{wire})
				if err != nil {
					b.Fatal(err)
				}
				var out []Message
				do(b, hc, http.MethodPost, u, body, &out)
				if len(out) != n {
					b.Fatal("short answer")
				}
			},
			func(b testing.TB) {
				res, err := c.Messages.SendBatch(ctx, testProp, params)
				if err != nil || len(res) != n || res[n-1].Message == nil {
					b.Fatal(err)
				}
			}))
	}

	// One SMS, a small POST.
	{
		srv := newBenchServer(b, fixture(b, "send_message.json"))
		c := benchClient(b, srv)
		params := &SendMessageParams{From: "Acme", To: "+61499999999", Text: "Your order has shipped", ExternalID: "order-1042"}
		u := srv.URL + "/v2/Properties/" + url.PathEscape(testProp) + "/Messages"
		cases = append(cases, newCallCase(srv, "MessagesSend",
			func(b testing.TB, hc *http.Client, do handDo) {
				body, err := json.Marshal(baselineWire{From: params.From, To: params.To, Text: params.Text, ExternalID: params.ExternalID})
				if err != nil {
					b.Fatal(err)
				}
				var out struct{ Message Message }
				do(b, hc, http.MethodPost, u, body, &out)
				if out.Message.MessageSid == "" {
					b.Fatal("no message")
				}
			},
			func(b testing.TB) {
				if _, err := c.Messages.Send(ctx, testProp, params); err != nil {
					b.Fatal(err)
				}
			}))
	}

	// One page of 50 projects.
	{
		var buf bytes.Buffer
		buf.WriteString(`{"Properties":[`)
		for i := 0; i < 50; i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"AccountSid":"%s","PropertySid":"PR%030d","Name":"Project %d","MainDomain":"p%d.example.com","TimeZone":"AUS Eastern Standard Time","SmsEnabled":true,"Active":true}`, testSid, i, i, i)
		}
		buf.WriteString(`],"TotalCount":50,"NextPageToken":null}`)
		srv := newBenchServer(b, buf.Bytes())
		c := benchClient(b, srv)
		cases = append(cases, newCallCase(srv, "PropertiesList50",
			func(b testing.TB, hc *http.Client, do handDo) {
				var out struct {
					Properties []Property
					TotalCount int
				}
				do(b, hc, http.MethodGet, srv.URL+"/v2/Properties?Results_Count=50", nil, &out)
				if len(out.Properties) != 50 {
					b.Fatal("short page")
				}
			},
			func(b testing.TB) {
				page, err := c.Properties.List(ctx, &ListParams{Count: 50})
				if err != nil || len(page.Items) != 50 {
					b.Fatal(err)
				}
			}))
	}
	return cases
}

// BenchmarkCalls measures each call every way, the hand-written sides
// first: time, bytes and allocations per call (the server's, in the same
// process, are counted on every side alike). scripts/bench.sh runs one
// sub-benchmark per process, sides alternating, and takes the median of
// the per-pair ratios.
func BenchmarkCalls(b *testing.B) {
	for _, c := range callCases(b) {
		for _, side := range c.sides() {
			b.Run("call="+c.name+"/impl="+side.impl, func(b *testing.B) {
				side.call(b) // warm the connection outside the timing
				b.ReportAllocs()
				b.ResetTimer()
				c0, ok0 := processCPU()
				for i := 0; i < b.N; i++ {
					side.call(b)
				}
				reportCPU(b, c0, ok0)
			})
		}
	}
}

// reportCPU reports "cpu-ns/op", the process's CPU time per op since c0
// (client and in-process server together): unlike ns/op, it does not grow
// while the benchmark waits for a core other work holds, which makes it
// the steadier figure on a shared machine.
func reportCPU(b *testing.B, c0 time.Duration, ok0 bool) {
	c1, ok1 := processCPU()
	if ok0 && ok1 && b.N > 0 {
		b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
	}
}

// TestBenchCallsKeepConnections checks that every side of every call
// benchmark keeps its connection between calls: a side that opened one per
// call would pay for connecting, and its ratio to the others would mislead.
// (It measures no time.)
func TestBenchCallsKeepConnections(t *testing.T) {
	for _, c := range callCases(t) {
		for _, side := range c.sides() {
			before := c.srv.conns.Load()
			for i := 0; i < 4; i++ {
				side.call(t)
			}
			assert.Equal(t, int64(1), c.srv.conns.Load()-before, "%s/%s: new connections for 4 calls", c.name, side.impl)
		}
	}
}

// baselineWire is how a hand-written client would spell a send request.
type baselineWire struct {
	From       string `json:"From,omitempty"`
	To         string `json:"To"`
	Text       string `json:"Text"`
	ExternalID string `json:"ExternalId,omitempty"`
}
