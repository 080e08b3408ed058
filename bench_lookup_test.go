package telco

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkLookup looks up 10,000 numbers (100 requests) on loopback, the
// server answering each request after latency, with the requests sent one
// at a time (inflight=1, how NumberDetails worked before) or up to
// DefaultLookupConcurrency at once. scripts/bench.sh reports the ratio of
// the two in the same run.
func BenchmarkLookup(b *testing.B) {
	numbers := lookupNumbers(10000)
	for _, latency := range []time.Duration{0, 2 * time.Millisecond} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if latency > 0 {
				time.Sleep(latency)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(lookupAnswer(strings.Split(r.URL.Query().Get("Numbers"), ",")))
		}))
		b.Cleanup(srv.Close)
		for _, inFlight := range []int{1, DefaultLookupConcurrency} {
			b.Run("latency="+latency.String()+"/inflight="+strconv.Itoa(inFlight), func(b *testing.B) {
				c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithLookupConcurrency(inFlight))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					d, err := c.Lookup.NumberDetails(context.Background(), numbers...)
					if err != nil || len(d) != len(numbers) || d[9999].E164 != 61400009999 {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
