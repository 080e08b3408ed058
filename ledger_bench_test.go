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
