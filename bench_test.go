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

// The benchmarks compare the SDK with a hand-written net/http +
// encoding/json call doing the same work against the same loopback server,
// in the same run. Each has two sub-benchmarks, impl=baseline first and
// impl=sdk second, so that with -count=N they alternate and benchstat can
// put them side by side:
//
//	go test -run '^$' -bench . -benchmem -count 10 > new.txt
//	benchstat -col /impl new.txt
//
// Read the results as the ratio sdk/baseline, never as bare times.
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

// BenchmarkPropertiesGet is the small call: one project, about 300 bytes.
func BenchmarkPropertiesGet(b *testing.B) {
	srv := benchServer(b, fixture(b, "get_property.json"))
	ctx := context.Background()

	b.Run("impl=baseline", func(b *testing.B) {
		hc := baselineClient()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var out struct{ Property Property }
			baselineDo(b, hc, http.MethodGet, srv.URL+"/v2/Properties/"+url.PathEscape(testProp), nil, &out)
			if out.Property.PropertySid == "" {
				b.Fatal("no property")
			}
		}
	})
	b.Run("impl=sdk", func(b *testing.B) {
		c := benchClient(b, srv)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			p, err := c.Properties.Get(ctx, testProp)
			if err != nil || p.PropertySid == "" {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMessagesFind is one page of 200 messages (about 90 kB).
func BenchmarkMessagesFind(b *testing.B) {
	msgs := make([]Message, 200)
	for i := range msgs {
		msgs[i] = benchMessage(i)
	}
	srv := benchServer(b, mustJSON(b, map[string]any{"Messages": msgs}))
	ctx := context.Background()
	from, to := time.Unix(1577836800, 0), time.Unix(1577836800+86400, 0)

	b.Run("impl=baseline", func(b *testing.B) {
		hc := baselineClient()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			q := url.Values{}
			q.Set("Date_From", strconv.FormatInt(from.Unix(), 10))
			q.Set("Date_To", strconv.FormatInt(to.Unix(), 10))
			q.Set("Results_Count", "200")
			var out struct{ Messages []Message }
			baselineDo(b, hc, http.MethodGet, srv.URL+"/v2/Properties/"+url.PathEscape(testProp)+"/Messages?"+q.Encode(), nil, &out)
			if len(out.Messages) != 200 {
				b.Fatal("short page")
			}
		}
	})
	b.Run("impl=sdk", func(b *testing.B) {
		c := benchClient(b, srv)
		p := &FindMessagesParams{DateFrom: from, DateTo: to, ListParams: ListParams{Count: 200}}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			page, err := c.Messages.Find(ctx, testProp, p)
			if err != nil || len(page.Items) != 200 {
				b.Fatal(err)
			}
		}
	})
}

// baselineWire is how a hand-written client would spell a send request.
type baselineWire struct {
	From       string `json:"From,omitempty"`
	To         string `json:"To"`
	Text       string `json:"Text"`
	ExternalID string `json:"ExternalId,omitempty"`
}

// BenchmarkSendBatch sends 1,000 messages in one request and decodes the
// 1,000 results: the request body is about 100 kB, the answer 450 kB.
func BenchmarkSendBatch(b *testing.B) {
	const n = 1000
	params := make([]SendMessageParams, n)
	answer := make([]Message, n)
	for i := range params {
		m := benchMessage(i)
		params[i] = SendMessageParams{From: m.From, To: m.To, Text: m.Text, ExternalID: m.ExternalID}
		answer[i] = m
	}
	srv := benchServer(b, mustJSON(b, answer))
	ctx := context.Background()

	b.Run("impl=baseline", func(b *testing.B) {
		hc := baselineClient()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			wire := make([]baselineWire, len(params))
			for j, p := range params {
				wire[j] = baselineWire{From: p.From, To: p.To, Text: p.Text, ExternalID: p.ExternalID}
			}
			body, err := json.Marshal(struct{ Messages []baselineWire }{wire})
			if err != nil {
				b.Fatal(err)
			}
			var out []Message
			baselineDo(b, hc, http.MethodPost, srv.URL+"/v2/Properties/"+url.PathEscape(testProp)+"/BatchMessages", body, &out)
			if len(out) != n {
				b.Fatal("short answer")
			}
		}
	})
	b.Run("impl=sdk", func(b *testing.B) {
		c := benchClient(b, srv)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			res, err := c.Messages.SendBatch(ctx, testProp, params)
			if err != nil || len(res) != n || res[n-1].Message == nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMessagesSend is one SMS, a small POST.
func BenchmarkMessagesSend(b *testing.B) {
	srv := benchServer(b, fixture(b, "send_message.json"))
	params := &SendMessageParams{From: "Acme", To: "+61499999999", Text: "Your order has shipped", ExternalID: "order-1042"}
	ctx := context.Background()

	b.Run("impl=baseline", func(b *testing.B) {
		hc := baselineClient()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			body, err := json.Marshal(baselineWire{From: params.From, To: params.To, Text: params.Text, ExternalID: params.ExternalID})
			if err != nil {
				b.Fatal(err)
			}
			var out struct{ Message Message }
			baselineDo(b, hc, http.MethodPost, srv.URL+"/v2/Properties/"+url.PathEscape(testProp)+"/Messages", body, &out)
			if out.Message.MessageSid == "" {
				b.Fatal("no message")
			}
		}
	})
	b.Run("impl=sdk", func(b *testing.B) {
		c := benchClient(b, srv)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := c.Messages.Send(ctx, testProp, params); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPropertiesList is one page of 50 projects.
func BenchmarkPropertiesList(b *testing.B) {
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
	ctx := context.Background()

	b.Run("impl=baseline", func(b *testing.B) {
		hc := baselineClient()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var out struct {
				Properties []Property
				TotalCount int
			}
			baselineDo(b, hc, http.MethodGet, srv.URL+"/v2/Properties?Results_Count=50", nil, &out)
			if len(out.Properties) != 50 {
				b.Fatal("short page")
			}
		}
	})
	b.Run("impl=sdk", func(b *testing.B) {
		c := benchClient(b, srv)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			page, err := c.Properties.List(ctx, &ListParams{Count: 50})
			if err != nil || len(page.Items) != 50 {
				b.Fatal(err)
			}
		}
	})
}
