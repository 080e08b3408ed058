package telco

// The send ledger: the memory behind SendOnce and SendBatchOnce. The
// protocol that uses it (sendonce.go) is written once; a Ledger only says
// where the records live and makes each change to them atomic.

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

// LedgerState is what a Ledger knows of one effectively-once message.
type LedgerState string

// The states of a LedgerRecord.
const (
	// LedgerNew: no attempt is recorded (the zero value).
	LedgerNew LedgerState = ""
	// LedgerSending: an attempt began and its outcome is not recorded yet.
	// Its maker holds the message until Claim; past that it is read as in
	// doubt (the maker stopped without a word).
	LedgerSending LedgerState = "sending"
	// LedgerInDoubt: an attempt ended in a way that may have reached the
	// service. Before any new send the message is looked up, from First.
	LedgerInDoubt LedgerState = "in-doubt"
	// LedgerSent: the service stored the message; Message is set.
	LedgerSent LedgerState = "sent"
	// LedgerRefused: the service refused the last attempt (Err is set) and
	// nothing of the ExternalId is at the service: a new send may go
	// without a look-up.
	LedgerRefused LedgerState = "refused"
	// LedgerNotSent: no attempt left the message at the service: the last
	// one never reached it, or a look-up after the settle time did not
	// find it. A new send may go without a look-up.
	LedgerNotSent LedgerState = "not-sent"
)

// LedgerRecord is a Ledger's record of one message, keyed by PropertySid
// and ExternalID. Ledgers store it as they please (JSON of its exported
// fields is one way) and hand it back unchanged.
type LedgerRecord struct {
	PropertySid string
	ExternalID  string
	State       LedgerState
	// Digest stands for the message's To, From, Text and Schedule (a
	// hash of them): the same ExternalId met with another digest is
	// refused with ErrExternalIDReused. It is empty for a record filled
	// from the service's history (FillLedger), whose message may have
	// been sent with another From than it shows.
	Digest string
	// First and Last are when the first and the last attempt began,
	// Ended when the last one ended (zero when its maker did not say). A
	// look-up searches from First; it waits SettleTime after the later of
	// Last and Ended.
	First, Last, Ended time.Time
	// Attempts counts the attempts that began.
	Attempts int
	// Claim is when a LedgerSending record stops holding the message.
	Claim time.Time
	// Message is the message as stored, for LedgerSent, without its Text,
	// which Digest stands for: a ledger on disk keeps no message text.
	Message *Message
	// Found says that Message was learnt by a look-up, not from an answer.
	Found bool
	// Err is the service's refusal, for LedgerRefused.
	Err *APIError
}

// Ledger keeps the records of effectively-once sends (SendOnce,
// SendBatchOnce) so that the promise spans calls, processes and machines:
// with a shared ledger, the same ExternalId sent through two Clients, two
// runs of a program or two workers is stored once. "Once" holds per
// ledger: the process's memory ledger (every Client without WithLedger),
// a boltledger file (the telco CLI keeps one per account), or
// contrib/riversend's Postgres ledger.
//
// Update runs fn on the records of propertySid's externalIDs (a record
// never written comes as a zero LedgerRecord with its key set), in the
// order given, and stores what fn leaves in them, atomically: no other
// Update of any of those keys, in this process or another sharing the
// ledger, may come between fn's reading and the store. When fn returns an
// error nothing is stored and Update returns it. fn may be called more
// than once, by a ledger that retries a transaction that conflicted, and
// must do nothing but compute the records; it keeps neither recs nor
// externalIDs once it returns, and Update does not keep externalIDs
// either. Update honours ctx.
type Ledger interface {
	Update(ctx context.Context, propertySid string, externalIDs []string, fn func(recs []LedgerRecord) error) error
}

// ErrExternalIDReused is matched by the error of SendOnce and SendBatchOnce
// when an ExternalId the ledger holds is met with a different message
// (another To, From, Text or Schedule): nothing is sent, as an idempotency
// key reused with other parameters is refused rather than obeyed. An
// ExternalId whose last send the service refused may carry another
// message: the refused one is not at the service.
var ErrExternalIDReused = errors.New("ExternalId already used for a different message")

// messageDigest returns the digest a Ledger keeps for p: a hash of To,
// From, Text and Schedule (to the second), the fields that make two sends
// of one ExternalId the same message. Ledgers on disk keep it, so it must
// not change from release to release.
func messageDigest(p *SendMessageParams) string {
	var sched int64
	if !p.Schedule.IsZero() {
		sched = p.Schedule.Unix()
	}
	var b []byte
	for _, s := range []string{p.To, p.From, p.Text} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(sched))
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// WithLedger makes SendOnce and SendBatchOnce keep their records in l,
// which other Clients, processes or machines may share. Without it (or
// with nil) a Client uses the process's memory ledger (see Client.Ledger).
func WithLedger(l Ledger) Option { return func(c *clientConfig) { c.ledger = l } }

// Ledger returns the Ledger of c's effectively-once sends: the one given
// with WithLedger, or else c's part of the process's memory ledger, which
// every Client built without WithLedger shares, its records keyed by base
// URL, account SID, project and ExternalId. Two Clients of one process
// for the same account then send an ExternalId once between them, and the
// same ExternalId sent to two services (or two accounts) is sent to each.
func (c *Client) Ledger() Ledger { return c.ledger }

// Bounds of NewMemoryLedger and of the process's memory ledger.
const (
	DefaultLedgerSize = 10000
	DefaultLedgerAge  = 24 * time.Hour
)

// NewMemoryLedger returns a process-local Ledger holding the
// DefaultLedgerSize most recently used records, none last used more than
// DefaultLedgerAge ago. Clients in one process that share it send each
// ExternalId once between them. What it forgets (the least recently used
// record beyond the bound, whatever its state) is sent again if asked. It
// takes memory as records come, a few hundred bytes each.
func NewMemoryLedger() Ledger { return NewMemoryLedgerSize(DefaultLedgerSize, DefaultLedgerAge) }

// NewMemoryLedgerSize is NewMemoryLedger with other bounds: at most
// maxRecords records (at least 1), none last used more than maxAge ago (0
// for no age limit).
func NewMemoryLedgerSize(maxRecords int, maxAge time.Duration) Ledger {
	return newMemoryLedger(maxRecords, maxAge)
}

// processLedger is the memory ledger of every Client built without
// WithLedger, made on first use: like http.DefaultTransport, a value the
// process shares, so that a Client made per call (a serverless handler, a
// test) still sends an ExternalId once. Clients reach it through a
// scopedLedger, which keys their records by service and account.
var processLedger = sync.OnceValue(func() *memoryLedger {
	return newMemoryLedger(DefaultLedgerSize, DefaultLedgerAge)
})

// scopedLedger is one service's and account's part of the process
// ledger. It holds only its scope and looks the ledger up on each call:
// printing a Client held in an unexported field (fmt then walks it, and
// follows pointers for a verb such as %s) must not show other accounts'
// records, nor read them while another goroutine writes; and a Client's
// Ledger stays a value that == compares.
type scopedLedger struct{ scope string }

func (s scopedLedger) Update(ctx context.Context, propertySid string, externalIDs []string, fn func([]LedgerRecord) error) error {
	return processLedger().update(ctx, s.scope, propertySid, externalIDs, fn)
}

// ledgerScope is the part of the process ledger a Client's records go in.
func ledgerScope(baseURL, accountSid string) string { return baseURL + " " + accountSid }

// memoryLedger is a map from key to an element of a list kept in order of
// last use, least recent first, under one mutex: the list gives the
// record the size bound evicts and the records the age bound expires.
type memoryLedger struct {
	mu    sync.Mutex
	max   int
	age   time.Duration
	now   func() time.Time // the clock; tests replace it
	byKey map[ledgerKey]*list.Element
	order *list.List // of *memoryEntry, least recently used first
}

type ledgerKey struct{ scope, prop, id string }

type memoryEntry struct {
	key  ledgerKey
	rec  LedgerRecord
	used time.Time
}

func newMemoryLedger(maxRecords int, maxAge time.Duration) *memoryLedger {
	return &memoryLedger{max: max(maxRecords, 1), age: max(maxAge, 0), now: time.Now,
		byKey: map[ledgerKey]*list.Element{}, order: list.New()}
}

func (m *memoryLedger) Update(ctx context.Context, propertySid string, externalIDs []string, fn func([]LedgerRecord) error) error {
	return m.update(ctx, "", propertySid, externalIDs, fn)
}

func (m *memoryLedger) update(ctx context.Context, scope, propertySid string, externalIDs []string, fn func([]LedgerRecord) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.expire(now)
	recs := make([]LedgerRecord, len(externalIDs))
	for i, id := range externalIDs {
		if e, ok := m.byKey[ledgerKey{scope, propertySid, id}]; ok {
			recs[i] = e.Value.(*memoryEntry).rec
		} else {
			recs[i] = LedgerRecord{PropertySid: propertySid, ExternalID: id}
		}
	}
	if err := fn(recs); err != nil {
		return err
	}
	for i, id := range externalIDs {
		k, r := ledgerKey{scope, propertySid, id}, recs[i]
		r.PropertySid, r.ExternalID = propertySid, id
		if r.Message != nil {
			msg := *r.Message // the caller keeps no hold on the stored copy
			r.Message = &msg
		}
		if e, ok := m.byKey[k]; ok {
			e.Value = &memoryEntry{key: k, rec: r, used: now}
			m.order.MoveToBack(e)
			continue
		}
		if r.State == LedgerNew && r.Attempts == 0 {
			continue // read, never written: nothing to remember
		}
		if m.order.Len() >= m.max {
			oldest := m.order.Front()
			delete(m.byKey, oldest.Value.(*memoryEntry).key)
			m.order.Remove(oldest)
		}
		m.byKey[k] = m.order.PushBack(&memoryEntry{key: k, rec: r, used: now})
	}
	return nil
}

// expire drops the records last used more than the age bound ago.
func (m *memoryLedger) expire(now time.Time) {
	if m.age <= 0 {
		return
	}
	cut := now.Add(-m.age)
	for e := m.order.Front(); e != nil && e.Value.(*memoryEntry).used.Before(cut); e = m.order.Front() {
		delete(m.byKey, e.Value.(*memoryEntry).key)
		m.order.Remove(e)
	}
}

// len reports how many records m holds, for tests.
func (m *memoryLedger) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}
