package telco

// The send ledger: the memory behind SendOnce and SendBatchOnce. The
// protocol that uses it (sendonce.go) is written once; a Ledger only says
// where the records live and makes each change to them atomic.

import (
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
	// refused with ErrExternalIDReused.
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
// runs of a program or two workers is stored once. NewMemoryLedger is
// process-local; the telco CLI keeps one in a bbolt file and
// contrib/riversend one in Postgres.
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
// key reused with other parameters is refused rather than obeyed.
var ErrExternalIDReused = errors.New("ExternalId already used for a different message")

// messageDigest returns the digest a Ledger keeps for p: a hash of To,
// From, Text and Schedule (to the second), the fields that make two sends
// of one ExternalId the same message.
func messageDigest(p *SendMessageParams) string {
	var sched int64
	if !p.Schedule.IsZero() {
		sched = p.Schedule.Unix()
	}
	var buf [256]byte // most messages fit: no allocation but the result
	b := buf[:0]
	for _, s := range [...]string{p.To, p.From, p.Text} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(sched))
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// WithLedger makes SendOnce and SendBatchOnce keep their records in l,
// which other Clients, processes or machines may share. Without it (or
// with nil) a Client keeps a NewMemoryLedger of its own.
func WithLedger(l Ledger) Option { return func(c *clientConfig) { c.ledger = l } }

// Ledger returns the Ledger of c's effectively-once sends: the one given
// with WithLedger, or c's own memory ledger.
func (c *Client) Ledger() Ledger { return c.ledger }

// Bounds of NewMemoryLedger.
const (
	DefaultLedgerSize = 10000
	DefaultLedgerAge  = 24 * time.Hour
)

// NewMemoryLedger returns a process-local Ledger holding the
// DefaultLedgerSize most recently used records, none older than
// DefaultLedgerAge. Clients in one process that share it send each
// ExternalId once between them. What it forgets (the oldest record beyond
// the bound, whatever its state) is sent again if asked.
func NewMemoryLedger() Ledger { return NewMemoryLedgerSize(DefaultLedgerSize, DefaultLedgerAge) }

// NewMemoryLedgerSize is NewMemoryLedger with other bounds: at most
// maxRecords records (at least 1), none last used more than maxAge ago (0
// for no age limit).
func NewMemoryLedgerSize(maxRecords int, maxAge time.Duration) Ledger {
	return &memoryLedger{max: max(maxRecords, 1), age: max(maxAge, 0), recs: map[ledgerKey]*memoryEntry{}, now: time.Now}
}

type ledgerKey struct{ prop, id string }

// memoryLedger is a map with its records in a list in order of last use,
// for the bounds; an entry evicted at the size bound is reused for the
// next new record, so that a ledger at its bound allocates nothing more.
type memoryLedger struct {
	mu   sync.Mutex
	max  int
	age  time.Duration
	recs map[ledgerKey]*memoryEntry
	// head is the list's sentinel: head.next is the least recently used.
	head memoryEntry
	n    int
	now  func() time.Time
	// scratch holds the records fn is given, reused from call to call.
	scratch []LedgerRecord
}

type memoryEntry struct {
	key        ledgerKey
	prev, next *memoryEntry
	used       time.Time
	rec        packedRecord
}

// packedRecord is a LedgerRecord as the memory ledger keeps it: few
// pointers, and the message as one pointer-free byte slice, so that ten
// thousand records cost the garbage collector little to scan.
type packedRecord struct {
	state                     LedgerState
	digest                    string
	first, last, ended, claim int64 // Unix nanoseconds; 0 for the zero time
	attempts                  int
	found                     bool
	msg                       []byte // packMessage
	err                       *APIError
}

func packRecord(r *LedgerRecord) packedRecord {
	p := packedRecord{state: r.State, digest: r.Digest, first: packTime(r.First), last: packTime(r.Last),
		ended: packTime(r.Ended), claim: packTime(r.Claim), attempts: r.Attempts, found: r.Found, err: r.Err}
	if r.Message != nil {
		p.msg = packMessage(r.Message)
	}
	return p
}

func (p *packedRecord) unpack(prop, id string) LedgerRecord {
	r := LedgerRecord{PropertySid: prop, ExternalID: id, State: p.state, Digest: p.digest, First: unpackTime(p.first),
		Last: unpackTime(p.last), Ended: unpackTime(p.ended), Claim: unpackTime(p.claim), Attempts: p.attempts,
		Found: p.found, Err: p.err}
	if p.msg != nil {
		r.Message = unpackMessage(p.msg)
	}
	return r
}

func packTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func unpackTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// packMessage writes a message's fields, Text apart (the ledger keeps
// none), into one byte slice: strings length-prefixed, numbers as
// varints. TestPackMessageKeepsEveryField fails for a field of Message it
// does not carry.
func packMessage(m *Message) []byte {
	strs := [...]string{m.MessageSid, m.AccountSid, m.PropertySid, m.From, m.To, string(m.Status),
		string(m.Direction), m.ErrorCode, m.ExternalID}
	n := 8 * 8
	for _, s := range strs {
		n += len(s) + binary.MaxVarintLen32
	}
	b := make([]byte, 0, n)
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	var receipt int64
	if m.DeliveryReceipt {
		receipt = 1
	}
	for _, v := range [...]int64{receipt, int64(m.NumSegments), int64(m.Scheduled), int64(m.Created),
		int64(m.Submitted), int64(m.Delivered), int64(m.Received)} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func unpackMessage(b []byte) *Message {
	var m Message
	strs := [...]*string{&m.MessageSid, &m.AccountSid, &m.PropertySid, &m.From, &m.To, (*string)(&m.Status),
		(*string)(&m.Direction), &m.ErrorCode, &m.ExternalID}
	for _, s := range strs {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return &m
		}
		*s, b = string(b[k:k+int(n)]), b[k+int(n):]
	}
	var ints [7]int64
	for i := range ints {
		v, k := binary.Varint(b)
		if k <= 0 {
			break
		}
		ints[i], b = v, b[k:]
	}
	m.DeliveryReceipt, m.NumSegments = ints[0] == 1, int(ints[1])
	m.Scheduled, m.Created, m.Submitted, m.Delivered, m.Received =
		Timestamp(ints[2]), Timestamp(ints[3]), Timestamp(ints[4]), Timestamp(ints[5]), Timestamp(ints[6])
	return &m
}

func (m *memoryLedger) Update(ctx context.Context, propertySid string, externalIDs []string, fn func([]LedgerRecord) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.head.next == nil {
		m.head.next, m.head.prev = &m.head, &m.head
	}
	now := m.now()
	m.expire(now)
	// fn gets the ledger's scratch slice, reused under the lock: a Ledger's
	// fn keeps nothing of recs once it returns.
	if cap(m.scratch) < len(externalIDs) {
		m.scratch = make([]LedgerRecord, len(externalIDs))
	}
	recs := m.scratch[:len(externalIDs)]
	defer clear(recs) // hold no message or error past the call
	for i, id := range externalIDs {
		if e := m.recs[ledgerKey{propertySid, id}]; e != nil {
			recs[i] = e.rec.unpack(propertySid, id)
		} else {
			recs[i] = LedgerRecord{PropertySid: propertySid, ExternalID: id}
		}
	}
	if err := fn(recs); err != nil {
		return err
	}
	for i, id := range externalIDs {
		k := ledgerKey{propertySid, id}
		r := &recs[i]
		e := m.recs[k]
		switch {
		case e != nil:
			m.unlink(e)
		case r.State == LedgerNew && r.Attempts == 0:
			continue // nothing to remember
		case m.n >= m.max:
			e = m.head.next // the least recently used makes room, and is reused
			m.unlink(e)
			delete(m.recs, e.key)
			m.n--
			fallthrough
		default:
			if e == nil {
				e = new(memoryEntry)
			}
			e.key = k
			m.recs[k] = e
			m.n++
		}
		e.rec, e.used = packRecord(r), now
		m.pushBack(e)
	}
	return nil
}

// expire drops the records last used more than the age bound ago.
func (m *memoryLedger) expire(now time.Time) {
	if m.age <= 0 {
		return
	}
	for e := m.head.next; e != &m.head && now.Sub(e.used) > m.age; e = m.head.next {
		m.unlink(e)
		delete(m.recs, e.key)
		m.n--
	}
}

func (m *memoryLedger) unlink(e *memoryEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (m *memoryLedger) pushBack(e *memoryEntry) {
	e.prev, e.next = m.head.prev, &m.head
	m.head.prev.next = e
	m.head.prev = e
}
