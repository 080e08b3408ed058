package telcotest_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// The benchmarks of the fake as a whole (paging through the SDK, request
// throughput) live here rather than beside one source file.

// BenchmarkIterate walks FindAll and ListAll over 10,000 and 100,000 items
// seeded into the fake, 200 a page, and reports the iterator's memory:
//
//   - peak-heap-B: the most live heap, sampled about 20 times during the
//     walk after a forced collection, beyond what was live before it
//     started (the fake with its items, the client). This is what the walk
//     holds: the current and the previous page, connection buffers. It
//     must not grow with the item count.
//   - fake-heap-B: the live heap before the walk, dominated by the fake's
//     own storage, which does grow with the item count.
//
// The collections are not timed. Run with -benchtime 1x: one walk of
// 100,000 messages takes seconds, mostly in the fake, which scans every
// stored message for each page.
func BenchmarkIterate(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("op=FindAll/items=%d", n), func(b *testing.B) {
			srv := telcotest.NewServer()
			b.Cleanup(srv.Close)
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			srv.SeedInbound(srv.PropertySid, "+61400000099", start, n)
			c := srv.Client()
			p := &telco.FindMessagesParams{DateFrom: start, DateTo: start.Add(time.Duration(n) * time.Second),
				ListParams: telco.ListParams{Count: 200}}
			walk(b, n, func(yield func(error) bool) {
				for _, err := range c.Messages.FindAll(context.Background(), srv.PropertySid, p) {
					if !yield(err) {
						return
					}
				}
			})
		})
		b.Run(fmt.Sprintf("op=ListAll/items=%d", n), func(b *testing.B) {
			srv := telcotest.NewServer()
			b.Cleanup(srv.Close)
			srv.SeedProperties(n - 1) // and the one NewServer seeds
			c := srv.Client()
			walk(b, n, func(yield func(error) bool) {
				for _, err := range c.Properties.ListAll(context.Background(), &telco.ListParams{Count: 200}) {
					if !yield(err) {
						return
					}
				}
			})
		})
	}
}

// walk runs the iteration b.N times, checks it yields n items without
// error, and reports the memory metrics described on BenchmarkIterate.
func walk(b *testing.B, n int, iterate func(yield func(error) bool)) {
	step := max(n/20, 1)
	base := liveHeap()
	peak := int64(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		seen := 0
		iterate(func(err error) bool {
			if err != nil {
				b.Fatal(err)
			}
			if seen%step == 100 { // mid-page: the current and the previous page are held
				b.StopTimer()
				peak = max(peak, int64(liveHeap())-int64(base))
				b.StartTimer()
			}
			seen++
			return true
		})
		if seen != n {
			b.Fatalf("walked %d items, want %d", seen, n)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peak), "peak-heap-B")
	b.ReportMetric(float64(base), "fake-heap-B")
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkFakeThroughput drives the fake from concurrent clients (8 per
// core, each with its own connections) and reports requests per second
// per core ("req/s/core", GOMAXPROCS cores). Client and fake share the
// cores, so this is the throughput of the whole loop on this machine, an
// upper bound on what tests can ask of one fake.
func BenchmarkFakeThroughput(b *testing.B) {
	ctx := context.Background()
	for _, op := range []struct {
		name string
		call func(c *telco.Client, srv *telcotest.Server) error
	}{
		{"PropertiesGet", func(c *telco.Client, srv *telcotest.Server) error {
			_, err := c.Properties.Get(ctx, srv.PropertySid)
			return err
		}},
		{"MessagesSend", func(c *telco.Client, srv *telcotest.Server) error {
			_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{
				From: "+61400000001", To: "+61400000002", Text: "Load test"})
			return err
		}},
	} {
		b.Run("op="+op.name, func(b *testing.B) {
			srv := telcotest.NewServer()
			b.Cleanup(srv.Close)
			b.SetParallelism(8)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				c := srv.Client()
				for pb.Next() {
					if err := op.call(c, srv); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			if s := b.Elapsed().Seconds(); s > 0 {
				b.ReportMetric(float64(b.N)/s/float64(runtime.GOMAXPROCS(0)), "req/s/core")
			}
		})
	}
}
