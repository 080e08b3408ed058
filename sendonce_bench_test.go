package telco_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// BenchmarkReconcile measures what one look-up after an ambiguous send
// costs against the number of messages sent in its window: a scan for an
// ExternalId that is not there, which pages through the whole window (the
// worst case; a found ID ends the scan early). The baseline pages the same
// window by hand with net/http and encoding/json. Both run against
// telcotest on loopback, so the figures are the client's and the fake's
// CPU, not the network's; msgs/op is the window's size.
func BenchmarkReconcile(b *testing.B) {
	for _, n := range []int{100, 1_000, 10_000} {
		srv := telcotest.NewServer()
		c := srv.Client()
		ctx := context.Background()
		since := time.Now()
		for sent := 0; sent < n; {
			batch := make([]telco.SendMessageParams, min(500, n-sent))
			for i := range batch {
				batch[i] = telco.SendMessageParams{From: "Acme", To: fmt.Sprintf("+614%08d", sent+i), Text: "hello",
					ExternalID: "id-" + strconv.Itoa(sent+i)}
			}
			if _, err := c.Messages.SendBatch(ctx, srv.PropertySid, batch); err != nil {
				b.Fatal(err)
			}
			sent += len(batch)
		}

		b.Run(fmt.Sprintf("window=%d/FindByExternalID", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				found, err := c.Messages.FindByExternalID(ctx, srv.PropertySid, since, "not-there")
				if err != nil || len(found) != 0 {
					b.Fatal(err, found)
				}
			}
			b.ReportMetric(float64(n), "msgs/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/msg")
		})
		b.Run(fmt.Sprintf("window=%d/baseline-nethttp", n), func(b *testing.B) {
			b.ReportAllocs()
			hc := &http.Client{}
			from, to := since.Unix()-2, time.Now().Unix()+2
			for range b.N {
				seen, hit := 0, false
				for skip := 0; ; skip += 200 {
					u := fmt.Sprintf("%s/v2/Properties/%s/Messages?Date_From=%d&Date_To=%d&Direction=Transmit&Results_Skip=%d",
						srv.URL, srv.PropertySid, from, to, skip)
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
					req.SetBasicAuth(srv.AccountSid, srv.Token)
					resp, err := hc.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					var page struct{ Messages []telco.Message }
					err = json.NewDecoder(resp.Body).Decode(&page)
					resp.Body.Close()
					if err != nil {
						b.Fatal(err)
					}
					for _, m := range page.Messages {
						hit = hit || m.ExternalID == "not-there"
					}
					seen += len(page.Messages)
					if len(page.Messages) < 200 {
						break
					}
				}
				if seen != n || hit {
					b.Fatalf("scanned %d of %d", seen, n)
				}
			}
			b.ReportMetric(float64(n), "msgs/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/msg")
			hc.CloseIdleConnections()
		})
		srv.Close()
	}
}
