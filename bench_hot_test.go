package telco

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The hot-path benchmarks measure the SDK's own work on a call, without a
// network: the client's transport answers every request from memory. They
// compare the code before and after a change (scripts/bench.sh builds each
// revision's test binary and runs the two alternately), not the SDK with a
// hand-written client, which the call benchmarks do.

// cannedTransport answers every request with 200 and body.
type cannedTransport struct{ body []byte }

func (t cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(t.body)),
		Request: r, ContentLength: int64(len(t.body))}, nil
}

func cannedClient(b testing.TB, body []byte) *Client {
	c, err := NewClient(testSid, testToken, WithBaseURL("http://127.0.0.1:1"),
		WithHTTPClient(&http.Client{Transport: cannedTransport{body}}))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// lookupAnswer is a lookup answer of one detail per number, as the service
// writes it.
func lookupAnswer(numbers []string) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"numbers":[`)
	for i, n := range numbers {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"e164":%s,"assignedCarrier":{"CAC":2,"name":"Optus Mobile"},"currentCarrier":{"CAC":38,"name":"Vodafone"},"numberingArea":"Mobile","portedActionIndicator":"P","thirdParty":true,"alreadyPorting":-1,"reason":"Number has been ported"}`,
			strings.TrimPrefix(n, "+"))
	}
	buf.WriteString(`]}`)
	return buf.Bytes()
}

// BenchmarkHot makes one call on a client whose transport answers from
// memory: what the SDK itself costs per call.
func BenchmarkHot(b *testing.B) {
	ctx := context.Background()
	// A message not yet delivered: three of its five timestamps null.
	msg := []byte(`{"Message":{"MessageSid":"MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE","AccountSid":"` + testSid +
		`","PropertySid":"` + testProp + `","From":"FDX","To":"+61499999999","Text":"and a one","DeliveryReceipt":true,` +
		`"NumSegments":1,"Status":"Scheduled","Direction":"Transmit","Scheduled":1506038400,"Created":1506038400,` +
		`"Submitted":null,"Delivered":null,"Received":null,"ErrorCode":null,"ExternalId":null}}`)
	numbers := lookupNumbers(100)
	var page bytes.Buffer
	page.WriteString(`{"Messages":[`)
	for i := 0; i < 200; i++ {
		if i > 0 {
			page.WriteByte(',')
		}
		page.Write(mustJSON(b, benchMessage(i)))
	}
	page.WriteString(`]}`)
	find := &FindMessagesParams{DateFrom: time.Unix(1577836800, 0), DateTo: time.Unix(1577836800+86400, 0), ListParams: ListParams{Count: 200}}

	cases := []struct {
		name string
		body []byte
		call func(b *testing.B, c *Client)
	}{
		{"PropertiesGet", fixture(b, "get_property.json"), func(b *testing.B, c *Client) {
			if p, err := c.Properties.Get(ctx, testProp); err != nil || p.PropertySid == "" {
				b.Fatal(err)
			}
		}},
		{"MessagesGet3Null", msg, func(b *testing.B, c *Client) {
			if m, err := c.Messages.Get(ctx, "MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE"); err != nil || m.Created == 0 || m.Received != 0 {
				b.Fatal(err)
			}
		}},
		{"Lookup100", lookupAnswer(numbers), func(b *testing.B, c *Client) {
			if d, err := c.Lookup.NumberDetails(ctx, numbers...); err != nil || len(d) != 100 || d[99].E164 != 61400000099 {
				b.Fatal(err)
			}
		}},
		{"MessagesFind200", page.Bytes(), func(b *testing.B, c *Client) {
			if p, err := c.Messages.Find(ctx, testProp, find); err != nil || len(p.Items) != 200 {
				b.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		b.Run("call="+tc.name, func(b *testing.B) {
			c := cannedClient(b, tc.body)
			tc.call(b, c)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tc.call(b, c)
			}
		})
	}
}

// BenchmarkTimestamp decodes one Timestamp in its common forms.
func BenchmarkTimestamp(b *testing.B) {
	for _, in := range []string{"1506038400", "null"} {
		data := []byte(in)
		b.Run("in="+in, func(b *testing.B) {
			b.ReportAllocs()
			var t Timestamp
			for i := 0; i < b.N; i++ {
				if err := t.UnmarshalJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
