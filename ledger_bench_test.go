package telco

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkMemoryLedger measures the ledger's share of one SendOnce on
// the happy path: a claim of a new ExternalId and its outcome, sent, on a
// ledger at its size bound (every new record evicts the oldest), plus the
// message's digest.
func BenchmarkMemoryLedger(b *testing.B) {
	l := NewMemoryLedger()
	ctx := context.Background()
	p := SendMessageParams{From: "Acme", To: "+61499999999", Text: "Your order has shipped"}
	msg := &Message{MessageSid: "a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4", AccountSid: "AC0123456789", PropertySid: testProp,
		From: "Acme", To: "+61499999999", Status: "Queued", Direction: "Transmit", NumSegments: 1, Created: 1700000000}
	ids := make([]string, 1)
	step := func(n int) {
		ids[0] = "order-" + strconv.Itoa(n)
		d := messageDigest(&p)
		now := time.Now()
		var seen LedgerRecord
		_ = l.Update(ctx, testProp, ids, func(recs []LedgerRecord) error {
			r := &recs[0]
			r.State, r.Digest, r.Attempts, r.First, r.Last, r.Claim = LedgerSending, d, r.Attempts+1, now, now, now.Add(time.Minute)
			seen = *r
			return nil
		})
		seen.State, seen.Message, seen.Ended = LedgerSent, msg, time.Now()
		_ = l.Update(ctx, testProp, ids, func(recs []LedgerRecord) error {
			recs[0] = seen
			return nil
		})
	}
	for n := range DefaultLedgerSize {
		step(-n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		step(i)
	}
}

// BenchmarkLedgerInPlace times the memory ledger's share of SendOnce
// where SendOnce runs it: the claim and the outcome of each message, with
// a real Send to the loopback server between them (send=true) and with
// nothing between them (send=false). It reports the time inside the two
// updates ("ledger-ns/op") and inside the message's digest
// ("digest-ns/op"), read with time.Now around them on the one goroutine
// that runs them. The difference between the two sides is what a round
// trip's cache misses add to the same work; see BENCHMARKS.md.
func BenchmarkLedgerInPlace(b *testing.B) {
	srv := newBenchServer(b, fixture(b, "send_message.json"))
	for _, withSend := range []bool{true, false} {
		b.Run("send="+strconv.FormatBool(withSend), func(b *testing.B) {
			c := benchClient(b, srv)
			l := NewMemoryLedger()
			ctx := context.Background()
			ids := make([]string, 1)
			msg := &Message{MessageSid: "a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4", AccountSid: "AC0123456789", PropertySid: testProp,
				From: "Acme", To: "+61499999999", Status: "Queued", Direction: "Transmit", NumSegments: 1, Created: 1700000000}
			p := SendMessageParams{From: "Acme", To: "+61499999999", Text: "Your order has shipped"}
			var seen LedgerRecord
			var digest string
			var now time.Time
			claim := func(recs []LedgerRecord) error {
				r := &recs[0]
				r.State, r.Digest, r.Attempts, r.First, r.Last, r.Claim = LedgerSending, digest, r.Attempts+1, now, now, now.Add(time.Minute)
				seen = *r
				return nil
			}
			record := func(recs []LedgerRecord) error {
				recs[0] = seen
				return nil
			}
			var inLedger, inDigest time.Duration
			b.ResetTimer()
			for i := range b.N {
				p.ExternalID = "order-" + strconv.Itoa(i)
				ids[0] = p.ExternalID
				t0 := time.Now()
				digest = messageDigest(&p)
				t1 := time.Now()
				now = t1
				if err := l.Update(ctx, testProp, ids, claim); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if withSend {
					if _, err := c.Messages.Send(ctx, testProp, &p); err != nil {
						b.Fatal(err)
					}
				}
				t3 := time.Now()
				seen.State, seen.Message, seen.Ended = LedgerSent, msg, t3
				if err := l.Update(ctx, testProp, ids, record); err != nil {
					b.Fatal(err)
				}
				t4 := time.Now()
				inDigest += t1.Sub(t0)
				inLedger += t2.Sub(t1) + t4.Sub(t3)
			}
			b.ReportMetric(float64(inLedger.Nanoseconds())/float64(b.N), "ledger-ns/op")
			b.ReportMetric(float64(inDigest.Nanoseconds())/float64(b.N), "digest-ns/op")
		})
	}
}
