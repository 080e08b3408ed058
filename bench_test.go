package telco

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// The call benchmarks compare the SDK with a hand-written net/http +
// encoding/json call doing the same work against the same loopback server,
// in the same run. BenchmarkCalls has the sub-benchmarks
// call=X/impl=baseline and call=X/impl=sdk for benchstat -col /impl;
// BenchmarkRatio runs the two alternately, call by call, and reports their
// time ratio "sdk/base", which stays meaningful on a machine shared with
// other work. Read the results as ratios, never as bare times.
// scripts/bench.sh runs the whole set and writes BENCHMARKS.md's figures.

// benchServer answers every request with body, after reading the request.
func benchServer(b *testing.B, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchClient is an SDK client for srv with the default transport and
// retry policy, as an application would have it.
func benchClient(b *testing.B, srv *httptest.Server) *Client {
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

// baselineDo sends a request as a careful hand-written client would (Basic
// auth, Accept, Content-Type for a body) and decodes a 200 answer into out.
func baselineDo(b *testing.B, hc *http.Client, method, u string, body []byte, out any) {
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
	err = json.NewDecoder(resp.Body).Decode(out)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatal("baseline:", resp.StatusCode, err)
	}
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

func mustJSON(b *testing.B, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// callCase is one operation done both ways. Each function makes one call
// and fails the benchmark if the answer is not the expected one.
type callCase struct {
	name          string
	baseline, sdk func(b *testing.B)
}

// callCases builds the servers and both sides of every call benchmark.
func callCases(b *testing.B) []callCase {
	ctx := context.Background()
	var cases []callCase

	// The small call: one project, about 300 bytes.
	{
		srv := benchServer(b, fixture(b, "get_property.json"))
		hc, c := baselineClient(), benchClient(b, srv)
		u := srv.URL + "/v2/Properties/" + url.PathEscape(testProp)
		cases = append(cases, callCase{"PropertiesGet",
			func(b *testing.B) {
				var out struct{ Property Property }
				baselineDo(b, hc, http.MethodGet, u, nil, &out)
				if out.Property.PropertySid == "" {
					b.Fatal("no property")
				}
			},
			func(b *testing.B) {
				p, err := c.Properties.Get(ctx, testProp)
				if err != nil || p.PropertySid == "" {
					b.Fatal(err)
				}
			}})
	}

	// One page of 200 messages, about 90 kB.
	{
		msgs := make([]Message, 200)
		for i := range msgs {
			msgs[i] = benchMessage(i)
		}
		srv := benchServer(b, mustJSON(b, map[string]any{"Messages": msgs}))
		hc, c := baselineClient(), benchClient(b, srv)
		from, to := time.Unix(1577836800, 0), time.Unix(1577836800+86400, 0)
		p := &FindMessagesParams{DateFrom: from, DateTo: to, ListParams: ListParams{Count: 200}}
		cases = append(cases, callCase{"MessagesFind200",
			func(b *testing.B) {
				q := url.Values{}
				q.Set("Date_From", strconv.FormatInt(from.Unix(), 10))
				q.Set("Date_To", strconv.FormatInt(to.Unix(), 10))
				q.Set("Results_Count", "200")
				var out struct{ Messages []Message }
				baselineDo(b, hc, http.MethodGet, srv.URL+"/v2/Properties/"+url.PathEscape(testProp)+"/Messages?"+q.Encode(), nil, &out)
				if len(out.Messages) != 200 {
					b.Fatal("short page")
				}
			},
			func(b *testing.B) {
				page, err := c.Messages.Find(ctx, testProp, p)
				if err != nil || len(page.Items) != 200 {
					b.Fatal(err)
				}
			}})
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
		srv := benchServer(b, mustJSON(b, answer))
		hc, c := baselineClient(), benchClient(b, srv)
		u := srv.URL + "/v2/Properties/" + url.PathEscape(testProp) + "/BatchMessages"
		cases = append(cases, callCase{"SendBatch1000",
			func(b *testing.B) {
				wire := make([]baselineWire, len(params))
				for j, p := range params {
					wire[j] = baselineWire{From: p.From, To: p.To, Text: p.Text, ExternalID: p.ExternalID}
				}
				body, err := json.Marshal(struct{ Messages []baselineWire }{wire})
				if err != nil {
					b.Fatal(err)
				}
				var out []Message
				baselineDo(b, hc, http.MethodPost, u, body, &out)
				if len(out) != n {
					b.Fatal("short answer")
				}
			},
			func(b *testing.B) {
				res, err := c.Messages.SendBatch(ctx, testProp, params)
				if err != nil || len(res) != n || res[n-1].Message == nil {
					b.Fatal(err)
				}
			}})
	}

	// One SMS, a small POST.
	{
		srv := benchServer(b, fixture(b, "send_message.json"))
		hc, c := baselineClient(), benchClient(b, srv)
		params := &SendMessageParams{From: "Acme", To: "+61499999999", Text: "Your order has shipped", ExternalID: "order-1042"}
		u := srv.URL + "/v2/Properties/" + url.PathEscape(testProp) + "/Messages"
		cases = append(cases, callCase{"MessagesSend",
			func(b *testing.B) {
				body, err := json.Marshal(baselineWire{From: params.From, To: params.To, Text: params.Text, ExternalID: params.ExternalID})
				if err != nil {
					b.Fatal(err)
				}
				var out struct{ Message Message }
				baselineDo(b, hc, http.MethodPost, u, body, &out)
				if out.Message.MessageSid == "" {
					b.Fatal("no message")
				}
			},
			func(b *testing.B) {
				if _, err := c.Messages.Send(ctx, testProp, params); err != nil {
					b.Fatal(err)
				}
			}})
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
		srv := benchServer(b, buf.Bytes())
		hc, c := baselineClient(), benchClient(b, srv)
		cases = append(cases, callCase{"PropertiesList50",
			func(b *testing.B) {
				var out struct {
					Properties []Property
					TotalCount int
				}
				baselineDo(b, hc, http.MethodGet, srv.URL+"/v2/Properties?Results_Count=50", nil, &out)
				if len(out.Properties) != 50 {
					b.Fatal("short page")
				}
			},
			func(b *testing.B) {
				page, err := c.Properties.List(ctx, &ListParams{Count: 50})
				if err != nil || len(page.Items) != 50 {
					b.Fatal(err)
				}
			}})
	}
	return cases
}

// BenchmarkCalls measures each call both ways, baseline first: time,
// bytes and allocations per call (the server's, in the same process, are
// counted on both sides alike).
func BenchmarkCalls(b *testing.B) {
	for _, c := range callCases(b) {
		for _, side := range []struct {
			impl string
			call func(b *testing.B)
		}{{"baseline", c.baseline}, {"sdk", c.sdk}} {
			b.Run("call="+c.name+"/impl="+side.impl, func(b *testing.B) {
				side.call(b) // warm the connection outside the timing
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					side.call(b)
				}
			})
		}
	}
}

// BenchmarkRatio makes each call both ways alternately, in the order
// baseline, sdk, sdk, baseline so that a drift in the machine's speed
// weighs on both alike, and reports the ratio of the SDK's cost to the
// baseline's: "sdk/base" in elapsed time and, where the OS reports it,
// "sdk/base-cpu" in the process's CPU time, which waiting for a busy core
// does not inflate. ns/op is the time of one pair.
func BenchmarkRatio(b *testing.B) {
	for _, c := range callCases(b) {
		b.Run("call="+c.name, func(b *testing.B) {
			c.baseline(b)
			c.sdk(b)
			var wall, cpu [2]time.Duration // [0] baseline, [1] sdk
			cpuOK := true
			sides := [2]func(*testing.B){c.baseline, c.sdk}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := 0; k < 2; k++ {
					side := k ^ (i & 1) // baseline first on even rounds, sdk first on odd
					c0, ok0 := processCPU()
					t0 := time.Now()
					sides[side](b)
					wall[side] += time.Since(t0)
					c1, ok1 := processCPU()
					cpu[side] += c1 - c0
					cpuOK = cpuOK && ok0 && ok1
				}
			}
			b.StopTimer()
			if wall[0] > 0 {
				b.ReportMetric(float64(wall[1])/float64(wall[0]), "sdk/base")
			}
			if cpuOK && cpu[0] > 0 {
				b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "sdk/base-cpu")
			}
		})
	}
}

// baselineWire is how a hand-written client would spell a send request.
type baselineWire struct {
	From       string `json:"From,omitempty"`
	To         string `json:"To"`
	Text       string `json:"Text"`
	ExternalID string `json:"ExternalId,omitempty"`
}
