package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/telcosdk/telco/telcotest"
)

// BenchmarkBatchParallel sends a 2,000-line batch (20 chunks of 100) to
// the fake with a fixed delay per request, standing in for a network's
// round trip, at --parallel 1, 4 and 8, journal included, and reports
// messages per second. On loopback without a delay the two processes
// share the CPU and --parallel gains little (BENCHMARKS.md); with a round
// trip to wait for, it is what --parallel is for.
func BenchmarkBatchParallel(b *testing.B) {
	const lines = 2000
	for _, delay := range []time.Duration{0, 20 * time.Millisecond} {
		for _, par := range []int{1, 4, 8} {
			b.Run(fmt.Sprintf("delay=%s/parallel=%d", delay, par), func(b *testing.B) {
				srv := telcotest.NewServer()
				defer srv.Close()
				if delay > 0 {
					srv.Inject(1<<30, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: delay, Op: "Messages.SendBatch"})
				}
				file := writeBatch(b, lines, false)
				h := &harness{t: b, srv: srv, env: map[string]string{"TELCO_BASE_URL": srv.URL, "TELCO_ACCOUNT_SID": srv.AccountSid,
					"TELCO_TOKEN": srv.Token, "TELCO_PROPERTY_SID": srv.PropertySid}}
				dir := b.TempDir()
				b.ResetTimer()
				for i := range b.N {
					r := h.run("sms", "batch", file, "--journal", filepath.Join(dir, fmt.Sprint(i)), "--parallel", fmt.Sprint(par), "-o", "json")
					if r.code != 0 {
						b.Fatalf("exit %d: %s", r.code, r.stderr)
					}
				}
				b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "msg/s")
			})
		}
	}
}
