package telco

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// benchLedgerSend is the memory ledger's share of one SendOnce on the
// happy path, split where the request goes: claim records a new
// ExternalId as being sent, outcome records it sent with its message.
type benchLedgerSend struct {
	l      Ledger
	ids    []string
	digest string
	now    time.Time
	seen   LedgerRecord
	msg    *Message
	claimF func([]LedgerRecord) error
	recF   func([]LedgerRecord) error
	slot   int32 // the hint SendOnce's run gives the memory ledger
}

func newBenchLedgerSend() *benchLedgerSend {
	s := &benchLedgerSend{l: NewMemoryLedger(), ids: make([]string, 1),
		msg: &Message{MessageSid: "a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4", AccountSid: "AC0123456789", PropertySid: testProp,
			From: "Acme", To: "+61499999999", Status: "Queued", Direction: "Transmit", NumSegments: 1, Created: 1700000000}}
	s.claimF = func(recs []LedgerRecord) error {
		r, now := &recs[0], s.now
		r.State, r.Digest, r.Attempts, r.First, r.Last, r.Claim = LedgerSending, s.digest, r.Attempts+1, now, now, now.Add(time.Minute)
		s.seen = *r
		return nil
	}
	s.recF = func(recs []LedgerRecord) error {
		recs[0] = s.seen
		return nil
	}
	return s
}

func (s *benchLedgerSend) claim(b *testing.B, id, digest string) {
	s.ids[0], s.digest, s.now, s.slot = id, digest, time.Now(), 0
	if err := s.update(s.now, s.claimF); err != nil {
		b.Fatal(err)
	}
}

// update is Update as SendOnce's run makes it: told the time, and for the
// memory ledger where the record was last.
func (s *benchLedgerSend) update(now time.Time, fn func([]LedgerRecord) error) error {
	if m, ok := s.l.(*memoryLedger); ok {
		return m.update(context.Background(), testProp, s.ids, &s.slot, now, fn)
	}
	return s.l.Update(context.Background(), testProp, s.ids, fn)
}

func (s *benchLedgerSend) outcome(b *testing.B) {
	s.seen.State, s.seen.Message, s.seen.Ended = LedgerSent, s.msg, time.Now()
	if err := s.update(s.seen.Ended, s.recF); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMemoryLedger measures the ledger's share of one SendOnce on
// the happy path: a claim of a new ExternalId and its outcome, sent, on a
// ledger at its size bound (every new record evicts the oldest), plus the
// message's digest.
func BenchmarkMemoryLedger(b *testing.B) {
	s := newBenchLedgerSend()
	p := SendMessageParams{From: "Acme", To: "+61499999999", Text: "Your order has shipped"}
	step := func(n int) {
		s.claim(b, "order-"+strconv.Itoa(n), messageDigest(&p))
		s.outcome(b)
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
			s := newBenchLedgerSend()
			ctx := context.Background()
			p := SendMessageParams{From: "Acme", To: "+61499999999", Text: "Your order has shipped"}
			var inLedger, inDigest time.Duration
			b.ResetTimer()
			for i := range b.N {
				p.ExternalID = "order-" + strconv.Itoa(i)
				t0 := time.Now()
				digest := messageDigest(&p)
				t1 := time.Now()
				s.claim(b, p.ExternalID, digest)
				t2 := time.Now()
				if withSend {
					if _, err := c.Messages.Send(ctx, testProp, &p); err != nil {
						b.Fatal(err)
					}
				}
				t3 := time.Now()
				s.outcome(b)
				t4 := time.Now()
				inDigest += t1.Sub(t0)
				inLedger += t2.Sub(t1) + t4.Sub(t3)
			}
			b.ReportMetric(float64(inLedger.Nanoseconds())/float64(b.N), "ledger-ns/op")
			b.ReportMetric(float64(inDigest.Nanoseconds())/float64(b.N), "digest-ns/op")
		})
	}
}
