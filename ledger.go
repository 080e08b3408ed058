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
	"hash/maphash"
	"math/bits"
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
// the bound, whatever its state) is sent again if asked. At its first
// record it takes about 340 bytes for each record it may hold, up to
// DefaultLedgerSize records (3.4 MB), and more in doubling steps past
// that.
func NewMemoryLedger() Ledger { return NewMemoryLedgerSize(DefaultLedgerSize, DefaultLedgerAge) }

// NewMemoryLedgerSize is NewMemoryLedger with other bounds: at most
// maxRecords records (at least 1), none last used more than maxAge ago (0
// for no age limit).
func NewMemoryLedgerSize(maxRecords int, maxAge time.Duration) Ledger {
	return &memoryLedger{max: max(maxRecords, 1), age: max(maxAge, 0), seed: maphash.MakeSeed()}
}

// memoryLedger keeps its records where the garbage collector need not
// look: fixed fields in chunks of pointer-free slots, variable ones
// (keys, state, digest, the packed message) in a byte slab, recordRoom
// bytes a slot, written in place, and an index from a hash of the key to
// the slot, whose key bytes are checked (an open-addressed table of its
// own: a search touches one cache line where a Go map touches two or three,
// and a ledger's search usually follows a round trip that emptied the
// caches).
// Slots are listed in order of last use, for the bounds; slot 0 is the
// list's sentinel. A ledger of ten thousand records is then a few objects
// to the collector, and a ledger at its bound allocates nothing.
type memoryLedger struct {
	mu  sync.Mutex
	max int
	age time.Duration
	// now replaces the clock in tests; nil is time.Now, or the time an
	// update's caller read just before (see update).
	now    func() time.Time
	seed   maphash.Seed
	index  slotIndex
	slots  [][]memorySlot // in chunks of slabChunk, so that growing never copies them; slot 0 is the use list's sentinel
	nslots int32
	free   int32    // a slot freed by expiry, chained through next; 0 for none
	n      int      // records held
	slab   [][]byte // recordRoom bytes for each slot, in chunks of slabChunk slots
	// Records longer than recordRoom (long IDs or numbers), and the
	// refusals (LedgerRefused), are rare enough for maps with pointers.
	long map[int32][]byte
	errs map[int32]*APIError
	// Scratch reused from call to call under the lock.
	scratch []LedgerRecord
	hashes  []uint64
	// digest is the last digest written: the outcome of a send reads back
	// the digest its claim wrote, which then costs no allocation.
	digest string
	// hashOf replaces the key's hash in tests, to make keys collide.
	hashOf func(prop, id string) uint64
}

// memorySlot is one record: its fixed fields, and the size of its
// variable ones (in the slab at the slot's room). It holds no pointer.
type memorySlot struct {
	hash                      uint64
	prev, next                int32 // in order of last use
	used                      int64 // Unix nanoseconds of the last use
	size                      int32 // of the record's bytes: in the slab, or in long when over recordRoom
	first, last, ended, claim int64 // Unix nanoseconds; 0 for the zero time
	attempts                  int64
	found                     bool
}

// recordRoom is a slot's room in the slab: a sent message's record of
// typical IDs and numbers takes about 210 bytes. The slab and the slots
// grow by chunks of slabChunk slots, so that growing never copies them.
const (
	recordRoom = 256
	slabChunk  = 128
)

// slot returns slot s.
func (m *memoryLedger) slot(s int32) *memorySlot { return &m.slots[int(s)/slabChunk][int(s)%slabChunk] }

// The flags of a record's message: whether it holds one, and whether its
// PropertySid and ExternalID are the key's (and left out).
const (
	msgHeld    = 1
	msgKeyProp = 2
	msgKeyID   = 4
)

// room returns slot s's room in the slab, growing the slab to it.
func (m *memoryLedger) room(s int32) []byte {
	c := int(s) / slabChunk
	for len(m.slab) <= c {
		m.slab = addChunks(m.slab, m.more(len(m.slab)), slabChunk*recordRoom)
	}
	i := int(s) % slabChunk * recordRoom
	return m.slab[c][i : i+recordRoom]
}

// more is how many chunks the slots or the slab, holding have, grow by
// past their first block (see update): as many as they hold, up to the
// ledger's bound.
func (m *memoryLedger) more(have int) int {
	limit := (m.max + slabChunk) / slabChunk // room for max records and the sentinel
	return max(1, min(have, limit-have))
}

// addChunks appends k chunks of size elements to chunks, in one block.
func addChunks[T any](chunks [][]T, k, size int) [][]T {
	block := make([]T, k*size)
	for i := range k {
		chunks = append(chunks, block[i*size:(i+1)*size:(i+1)*size])
	}
	return chunks
}

func (m *memoryLedger) hash(prop, id string) uint64 {
	if m.hashOf != nil {
		return m.hashOf(prop, id)
	}
	// Two one-shot hashes cost less than a streaming maphash.Hash. Pairs
	// that collide are told apart by their key bytes.
	return maphash.String(m.seed, id) ^ bits.RotateLeft64(maphash.String(m.seed, prop), 31)
}

// find returns the slot of (prop, id), or 0.
func (m *memoryLedger) find(h uint64, prop, id string) int32 {
	x := &m.index
	if len(x.e) == 0 {
		return 0
	}
	for i := x.home(h); ; i = (i + 1) & x.mask() {
		e := x.e[i]
		if e == 0 {
			return 0
		}
		if e>>32 == h>>32 {
			if s := int32(uint32(e)); m.slot(s).hash == h && m.holds(s, prop, id) {
				return s
			}
		}
	}
}

// slotIndex finds slots by the hash of their key: open addressing with
// linear probing, no tombstones (a deletion shifts the entries after it
// back). An entry is the hash's top 32 bits over the slot number, 0 for an
// empty place: a probe compares most of the hash without reading the slot,
// and an entry's home place is its top bits, so a deletion needs no slot
// either. At most 3/8 full, so that a search for a new key (every claim of
// a new message) usually ends at its home place.
type slotIndex struct {
	e    []uint64
	bits uint8 // len(e) is 1<<bits
	n    int
}

func (x *slotIndex) mask() uint64         { return uint64(len(x.e) - 1) }
func (x *slotIndex) home(h uint64) uint64 { return h >> (64 - x.bits) }

// insert adds slot s of hash h; m gives the hashes of the slots held when
// the table grows.
func (x *slotIndex) insert(h uint64, s int32, m *memoryLedger) {
	if (x.n+1)*8 > len(x.e)*3 {
		x.grow(m)
	}
	i := x.home(h)
	for x.e[i] != 0 {
		i = (i + 1) & x.mask()
	}
	x.e[i] = h>>32<<32 | uint64(uint32(s))
	x.n++
}

func (x *slotIndex) grow(m *memoryLedger) {
	old := x.e
	x.bits = max(x.bits+1, 4)
	x.e, x.n = make([]uint64, 1<<x.bits), 0
	for _, e := range old {
		if e != 0 {
			s := int32(uint32(e))
			x.insert(m.slot(s).hash, s, m)
		}
	}
}

// delete removes slot s of hash h.
func (x *slotIndex) delete(h uint64, s int32) {
	mask := x.mask()
	i := x.home(h)
	for uint32(x.e[i]) != uint32(s) {
		if x.e[i] == 0 {
			return // not held: nothing to do
		}
		i = (i + 1) & mask
	}
	// Shift back each later entry of the run that may move to i: one whose
	// home is not cyclically in (i, j].
	for j := (i + 1) & mask; x.e[j] != 0; j = (j + 1) & mask {
		k := x.e[j] >> (64 - x.bits)
		if (j-k)&mask >= (j-i)&mask {
			x.e[i], i = x.e[j], j
		}
	}
	x.e[i] = 0
	x.n--
}

// holds reports whether slot s holds the record of (prop, id): its key is
// compared without a copy.
func (m *memoryLedger) holds(s int32, prop, id string) bool {
	p, i, _ := m.keyOf(s)
	return string(p) == prop && string(i) == id
}

// recordField reads one length-prefixed field of a record from b,
// returning the rest.
func recordField(b []byte) (f, rest []byte) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil
	}
	return b[k : k+int(n)], b[k+int(n):]
}

// bytesOf returns the record of slot s.
func (m *memoryLedger) bytesOf(s int32) []byte {
	if n := int(m.slot(s).size); n <= recordRoom {
		return m.room(s)[:n]
	}
	return m.long[s]
}

// keyOf returns the key fields of slot s and the rest of its record.
func (m *memoryLedger) keyOf(s int32) (prop, id, rest []byte) {
	b := m.bytesOf(s)
	prop, b = recordField(b)
	id, b = recordField(b)
	return prop, id, b
}

// states interns the LedgerStates of this package, so that reading a
// record does not allocate its state.
var states = [...]LedgerState{LedgerNew, LedgerSending, LedgerInDoubt, LedgerSent, LedgerRefused, LedgerNotSent}

func internState(b []byte) LedgerState {
	for _, s := range states {
		if string(s) == string(b) {
			return s
		}
	}
	return LedgerState(b)
}

// read unpacks slot s into a LedgerRecord.
func (m *memoryLedger) read(s int32, prop, id string) LedgerRecord {
	sl := m.slot(s)
	_, _, b := m.keyOf(s)
	state, b := recordField(b)
	digest, b := recordField(b)
	d := m.digest
	if string(digest) != d {
		d = string(digest)
	}
	r := LedgerRecord{PropertySid: prop, ExternalID: id, State: internState(state), Digest: d,
		First: unpackTime(sl.first), Last: unpackTime(sl.last), Ended: unpackTime(sl.ended), Claim: unpackTime(sl.claim),
		Attempts: int(sl.attempts), Found: sl.found, Err: m.errs[s]}
	if len(b) > 0 && b[0]&msgHeld != 0 {
		r.Message = unpackMessage(b[1:])
		if b[0]&msgKeyProp != 0 {
			r.Message.PropertySid = prop
		}
		if b[0]&msgKeyID != 0 {
			r.Message.ExternalID = id
		}
	}
	return r
}

// write stores r in slot s.
func (m *memoryLedger) write(s int32, prop, id string, r *LedgerRecord) {
	sl := m.slot(s)
	// Encoded in place: a record longer than its room comes out of append
	// in a new array, and goes to long.
	room := m.room(s)
	b := room[:0:recordRoom]
	for _, f := range [...]string{prop, id, string(r.State), r.Digest} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	if r.Message != nil {
		// A message's PropertySid and ExternalID are nearly always the
		// key's: a flag stands for them.
		msg, flags := *r.Message, byte(msgHeld)
		if msg.PropertySid == prop {
			msg.PropertySid, flags = "", flags|msgKeyProp
		}
		if msg.ExternalID == id {
			msg.ExternalID, flags = "", flags|msgKeyID
		}
		b = appendMessage(append(b, flags), &msg)
	} else {
		b = append(b, 0)
	}
	m.digest = r.Digest
	if len(b) <= recordRoom {
		if m.long != nil {
			delete(m.long, s)
		}
	} else {
		if m.long == nil {
			m.long = map[int32][]byte{}
		}
		m.long[s] = b
	}
	sl.size = int32(len(b))
	sl.first, sl.last, sl.ended, sl.claim = packTime(r.First), packTime(r.Last), packTime(r.Ended), packTime(r.Claim)
	sl.attempts, sl.found = int64(r.Attempts), r.Found
	if r.Err != nil {
		if m.errs == nil {
			m.errs = map[int32]*APIError{}
		}
		m.errs[s] = r.Err
	} else if m.errs != nil {
		delete(m.errs, s)
	}
}

func (m *memoryLedger) Update(ctx context.Context, propertySid string, externalIDs []string, fn func([]LedgerRecord) error) error {
	return m.update(ctx, propertySid, externalIDs, nil, time.Time{}, fn)
}

// update is Update with what SendOnce's run knows beyond the interface:
// for a single ID, hint is the slot its record was last in (0 for none; a
// slot that no longer holds the key is looked up as usual), set to the
// record's slot on return; now, when not zero, is the time the caller
// read just before, which spares the ledger a read of the clock (a
// test's clock, m.now, still wins). Both spare a second search of a
// record the run claimed a round trip ago, whose cache lines are cold.
func (m *memoryLedger) update(ctx context.Context, propertySid string, externalIDs []string, hint *int32, now time.Time, fn func([]LedgerRecord) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.slots == nil {
		// Memory at the first update, so that a Client that never sends
		// once keeps none, and for up to DefaultLedgerSize records at once:
		// filling a ledger chunk by chunk cost about 5 % of Send's CPU more
		// than keeping it full (paired runs of BenchmarkOnce/impl=once),
		// spent in the runtime rather than in the ledger's code. Fresh pages
		// the records have not reached are not touched.
		k := (min(m.max, DefaultLedgerSize) + slabChunk) / slabChunk
		m.slots, m.nslots = addChunks[memorySlot](nil, k, slabChunk), 1
		m.slab = addChunks[byte](nil, k, slabChunk*recordRoom)
	}
	switch {
	case m.now != nil:
		now = m.now()
	case now.IsZero():
		now = time.Now()
	}
	m.expire(now)
	// fn gets the ledger's scratch slice, reused under the lock: a Ledger's
	// fn keeps nothing of recs once it returns.
	if cap(m.scratch) < len(externalIDs) {
		m.scratch = make([]LedgerRecord, len(externalIDs))
		m.hashes = make([]uint64, len(externalIDs))
	}
	recs, hashes := m.scratch[:len(externalIDs)], m.hashes[:len(externalIDs)]
	defer clear(recs) // hold no message or error past the call
	single := len(externalIDs) == 1
	var first int32 // the slot found for a single ID
	for i, id := range externalIDs {
		var s int32
		if single {
			s = m.hinted(hint, propertySid, id)
		}
		if s == 0 {
			hashes[i] = m.hash(propertySid, id)
			s = m.find(hashes[i], propertySid, id)
		}
		if s != 0 {
			recs[i], first = m.read(s, propertySid, id), s
		} else {
			recs[i] = LedgerRecord{PropertySid: propertySid, ExternalID: id}
		}
	}
	if err := fn(recs); err != nil {
		return err
	}
	for i, id := range externalIDs {
		// Found again, not remembered from above: an ID given twice, or a
		// record evicted by an earlier one of this update. A single ID
		// (every SendOnce) can be neither, and keeps the slot found above.
		h, r := hashes[i], &recs[i]
		s := first
		if !single {
			s = m.find(h, propertySid, id)
		}
		switch {
		case s != 0:
			if m.slot(0).prev != s { // not the most recently used already
				m.unlink(s)
				m.pushBack(s)
			}
		case r.State == LedgerNew && r.Attempts == 0:
			continue // nothing to remember
		default:
			if m.n >= m.max {
				s = m.slot(0).next // the least recently used makes room, and is reused
				m.remove(s)
			} else if s = m.free; s != 0 {
				m.free = m.slot(s).next
			} else {
				s = m.nslots
				m.nslots++
				if int(s)/slabChunk == len(m.slots) {
					m.slots = addChunks(m.slots, m.more(len(m.slots)), slabChunk)
				}
			}
			*m.slot(s) = memorySlot{hash: h}
			m.index.insert(h, s, m)
			m.n++
			m.pushBack(s)
		}
		m.write(s, propertySid, id, r)
		m.slot(s).used = now.UnixNano()
		if single && hint != nil {
			*hint = s
		}
	}
	return nil
}

// hinted returns the slot hint names when it still holds (prop, id), or 0.
func (m *memoryLedger) hinted(hint *int32, prop, id string) int32 {
	if hint == nil {
		return 0
	}
	if s := *hint; s > 0 && s < m.nslots && m.slot(s).size > 0 && m.holds(s, prop, id) {
		return s
	}
	return 0
}

// remove takes slot s out of the list, its hash chain and the count; the
// caller reuses or frees it.
func (m *memoryLedger) remove(s int32) {
	m.unlink(s)
	sl := m.slot(s)
	m.index.delete(sl.hash, s)
	if m.errs != nil {
		delete(m.errs, s)
	}
	if m.long != nil {
		delete(m.long, s)
	}
	m.n--
}

// expire drops the records last used more than the age bound ago.
func (m *memoryLedger) expire(now time.Time) {
	if m.age <= 0 {
		return
	}
	cut := now.Add(-m.age).UnixNano()
	for s := m.slot(0).next; s != 0 && m.slot(s).used < cut; s = m.slot(0).next {
		m.remove(s)
		*m.slot(s) = memorySlot{next: m.free}
		m.free = s
	}
}

func (m *memoryLedger) unlink(s int32) {
	sl := m.slot(s)
	m.slot(sl.prev).next, m.slot(sl.next).prev = sl.next, sl.prev
	sl.prev, sl.next = 0, 0
}

func (m *memoryLedger) pushBack(s int32) {
	last := m.slot(0).prev
	m.slot(s).prev, m.slot(s).next = last, 0
	m.slot(last).next = s
	m.slot(0).prev = s
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
func packMessage(m *Message) []byte { return appendMessage(nil, m) }

// appendMessage is packMessage appending to b.
func appendMessage(b []byte, m *Message) []byte {
	strs := [...]string{m.MessageSid, m.AccountSid, m.PropertySid, m.From, m.To, string(m.Status),
		string(m.Direction), m.ErrorCode, m.ExternalID}
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
