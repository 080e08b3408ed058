package telco

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The benchmarks compare the SDK with a hand-written net/http +
// encoding/json call doing the same work against the same local server, in
// the same run: read the results as the ratio sdk/baseline
// (go test -bench . -benchmem).

func benchServer(b *testing.B, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func BenchmarkMessagesSend(b *testing.B) {
	srv := benchServer(b, fixture(b, "send_message.json"))
	params := &SendMessageParams{From: "Acme", To: "+61499999999", Text: "Your order has shipped", ExternalID: "order-1042"}
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := c.Messages.Send(ctx, testProp, params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			body, _ := json.Marshal(map[string]string{"From": params.From, "To": params.To, "Text": params.Text, "ExternalId": params.ExternalID})
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v2/Properties/"+testProp+"/Messages", bytes.NewReader(body))
			req.SetBasicAuth(testSid, testToken)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var out struct{ Message Message }
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || out.Message.MessageSid == "" {
				b.Fatal("decode", err)
			}
		}
	})
}

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

	b.Run("sdk", func(b *testing.B) {
		c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			page, err := c.Properties.List(ctx, &ListParams{Count: 50})
			if err != nil || len(page.Items) != 50 {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v2/Properties?Results_Count=50", nil)
			req.SetBasicAuth(testSid, testToken)
			req.Header.Set("Accept", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var out struct {
				Properties []Property
				TotalCount int
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || len(out.Properties) != 50 {
				b.Fatal("decode", err)
			}
		}
	})
}

func BenchmarkSegments(b *testing.B) {
	text := "Your order #4711 has shipped and will arrive on Tuesday. Track it at https://acme.example.com/t/4711 — reply STOP to opt out."
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = Segments(text)
		}
	})
	b.Run("baseline", func(b *testing.B) {
		// The least any counter must do: walk the runes once.
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			n := 0
			for range text {
				n++
			}
			_ = n
		}
	})
}
