package telco_test

import (
	"context"
	"fmt"
	"iter"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// The user's-clock benchmarks measure what a user waits for: wall time
// against the fake with a latency injected into every request (20 and 40
// ms, a service on another continent), each way of doing the work beside
// the plain one in the same run. Each b.N round runs the two sides once,
// in an order that alternates, and the benchmark reports the median of the
// per-round ratios ("ratio"), so that a change in the machine's load hits
// both sides of a round alike; scripts/bench.sh runs them. Waiting
// dominates, so the machine's noise matters less here than on loopback.

// latencyServer is a fake whose every request waits d first.
func latencyServer(b *testing.B, d time.Duration) *telcotest.Server {
	srv := telcotest.NewServer()
	b.Cleanup(srv.Close)
	srv.SetFaultPolicy(func(string, string) *telcotest.Fault {
		return &telcotest.Fault{Kind: telcotest.FaultLatency, Delay: d}
	})
	return srv
}

// pairs runs plain and other once each per round, alternating which goes
// first, and reports each side's median wall time and the median ratio.
func pairs(b *testing.B, plain, other func(b *testing.B)) {
	var ratios, plains, others []float64
	for i := 0; i < b.N; i++ {
		var tp, to time.Duration
		for k := range 2 {
			t0 := time.Now()
			if (i+k)%2 == 0 {
				plain(b)
				tp = time.Since(t0)
			} else {
				other(b)
				to = time.Since(t0)
			}
		}
		ratios = append(ratios, float64(to)/float64(tp))
		plains = append(plains, tp.Seconds()*1000)
		others = append(others, to.Seconds()*1000)
	}
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(median(plains), "plain-ms")
	b.ReportMetric(median(others), "other-ms")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// benchLatencies are the latencies measured; BENCH_LATENCY_MS picks one.
func benchLatencies() []int {
	if v, err := strconv.Atoi(os.Getenv("BENCH_LATENCY_MS")); err == nil {
		return []int{v}
	}
	return []int{20, 40}
}

// BenchmarkHistory reads 20,000 messages (100 pages of 200) with FindAll,
// one page after another ("plain") and with 8 pages in flight
// (WithParallelPages(8)), and checks that both read the same messages in
// the same order.
func BenchmarkHistory(b *testing.B) {
	const n = 20000
	for _, ms := range benchLatencies() {
		b.Run(fmt.Sprintf("latency=%dms", ms), func(b *testing.B) {
			srv := latencyServer(b, 0)
			seed := srv.Client(telco.WithLedger(telco.NewMemoryLedger()))
			start := time.Now().Add(-time.Minute)
			for i := 0; i < n; i += 1000 {
				batch := make([]telco.SendMessageParams, 1000)
				for j := range batch {
					batch[j] = telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "history", ExternalID: "h-" + strconv.Itoa(i+j)}
				}
				if _, err := seed.Messages.SendBatch(context.Background(), srv.PropertySid, batch); err != nil {
					b.Fatal(err)
				}
			}
			srv.SetFaultPolicy(func(string, string) *telcotest.Fault {
				return &telcotest.Fault{Kind: telcotest.FaultLatency, Delay: time.Duration(ms) * time.Millisecond}
			})
			p := &telco.FindMessagesParams{DateFrom: start, DateTo: time.Now().Add(time.Minute)}
			read := func(c *telco.Client) []string {
				var ids []string
				for m, err := range c.Messages.FindAll(context.Background(), srv.PropertySid, p) {
					if err != nil {
						b.Fatal(err)
					}
					ids = append(ids, m.MessageSid)
				}
				return ids
			}
			plain, parallel := srv.Client(), srv.Client(telco.WithParallelPages(8))
			var a, c []string
			b.ResetTimer()
			pairs(b, func(*testing.B) { a = read(plain) }, func(*testing.B) { c = read(parallel) })
			if len(a) != n || !slices.Equal(a, c) {
				b.Fatalf("read %d and %d messages, the same in order: %v", len(a), len(c), slices.Equal(a, c))
			}
		})
	}
}

// BenchmarkSendAll sends 2,000 messages in chunks of 100 with SendAll,
// one chunk at a time ("plain") and 8 in flight, and checks that each is
// stored once and that the results come in input order.
func BenchmarkSendAll(b *testing.B) {
	const n = 2000
	for _, ms := range benchLatencies() {
		b.Run(fmt.Sprintf("latency=%dms", ms), func(b *testing.B) {
			srv := latencyServer(b, time.Duration(ms)*time.Millisecond)
			c := srv.Client()
			run := 0
			send := func(parallel int) func(*testing.B) {
				return func(b *testing.B) {
					run++
					prefix := fmt.Sprintf("all-%d-", run)
					msgs := func(yield func(telco.SendMessageParams) bool) {
						for i := range n {
							if !yield(telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "campaign", ExternalID: prefix + strconv.Itoa(i)}) {
								return
							}
						}
					}
					i := 0
					for res, err := range c.Messages.SendAll(context.Background(), srv.PropertySid, iter.Seq[telco.SendMessageParams](msgs),
						&telco.SendAllOptions{ChunkSize: 100, Parallel: parallel}) {
						if err != nil || res.Message == nil || res.Message.ExternalID != prefix+strconv.Itoa(i) {
							b.Fatalf("message %d: %v", i, err)
						}
						i++
					}
				}
			}
			b.ResetTimer()
			pairs(b, send(1), send(8))
			b.StopTimer()
			if got, want := len(srv.Messages(srv.PropertySid)), n*2*b.N; got != want {
				b.Fatalf("%d messages stored, want %d", got, want)
			}
		})
	}
}
