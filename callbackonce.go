package telco

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultCallbackOnceEntries is how many callbacks the memory of
// NewMemoryCallbackOnce keeps when given 0: at about 170 bytes each, under
// 2 MB.
const DefaultCallbackOnceEntries = 10_000

// DefaultCallbackOnceAge is how long the memory of NewMemoryCallbackOnce
// keeps a callback when given 0. The service does not document when it
// delivers a callback again; a day outlasts the retry schedules webhook
// senders use.
const DefaultCallbackOnceAge = 24 * time.Hour

// CallbackOnce remembers which callbacks' functions have run, so that a
// WebhookHandler runs each distinct callback's function once however many
// times it is delivered. NewMemoryCallbackOnce keeps one in memory; to
// dedupe across the replicas of a service behind a load balancer,
// implement it on a store they share (Redis, SQL).
//
// The handler calls Claim before the function and Done after it, even
// when the function panics. Done takes the outcome, since a claim ends in
// one of two ways: kept when the function succeeded (the sender was
// answered 2xx and will not deliver again), given up when it failed
// (answered 500: the sender will deliver again, and that delivery must run
// the function). Two plain methods rather than one returning a release
// function, because each maps onto one request to a shared store. Keys are
// opaque ASCII strings of at most 40 bytes, one per distinct callback;
// WebhookHandler.Once says what makes one.
//
// On Redis, for instance: Claim is SET key "held" NX PX lease (claimed
// when set; when the value is "done", false; when "held", wait and try
// again, or fail); Done is SET key "done" PX maxAge with ok, DEL key
// without. In SQL: an INSERT of the key that conflicts with a row already
// there, then an UPDATE or a DELETE of the row.
//
// Implementations must be safe for concurrent use.
type CallbackOnce interface {
	// Claim reports whether the caller is to run the function for key:
	// true when the key is neither done nor held, which it now holds;
	// false when it is done. It must be atomic for everyone sharing the
	// store: of concurrent Claims of one key, at most one returns true
	// until its Done.
	//
	// While another caller holds the key, Claim waits for its Done (false
	// after a success; after a failure, it may claim the key itself) or
	// returns an error, which the handler answers 503 so that the sender
	// delivers again later. It must not return false then: if the holder
	// failed, the callback would be lost. A shared store should let a held
	// key expire after a lease longer than the slowest function, so that a
	// process that died holding it does not hold it for ever.
	Claim(ctx context.Context, key string) (claimed bool, err error)

	// Done ends a claim: ok true records the key as done, ok false
	// releases it so that a later Claim of the key returns true. Its
	// context is not canceled with the request's: the outcome is recorded
	// even when the sender has gone.
	Done(ctx context.Context, key string, ok bool) error
}

// EveryDelivery is a CallbackOnce that remembers nothing. With it as
// WebhookHandler.Once the function runs for every delivery of a callback.
var EveryDelivery CallbackOnce = everyDelivery{}

type everyDelivery struct{}

func (everyDelivery) Claim(context.Context, string) (bool, error) { return true, nil }
func (everyDelivery) Done(context.Context, string, bool) error    { return nil }

// NewMemoryCallbackOnce returns a CallbackOnce that keeps, in this
// process's memory, the latest maxEntries callbacks done, each for maxAge;
// 0 (or less) means DefaultCallbackOnceEntries and DefaultCallbackOnceAge.
// A callback delivered again after it has been forgotten runs again. A
// Claim of a key that another delivery holds waits for that delivery's
// function to finish, or for its own context to end.
func NewMemoryCallbackOnce(maxEntries int, maxAge time.Duration) CallbackOnce {
	if maxEntries <= 0 {
		maxEntries = DefaultCallbackOnceEntries
	}
	if maxAge <= 0 {
		maxAge = DefaultCallbackOnceAge
	}
	return &memoryCallbackOnce{
		max:  maxEntries,
		age:  maxAge,
		now:  time.Now,
		done: make(map[string]time.Time),
		held: make(map[string]chan struct{}),
	}
}

type memoryCallbackOnce struct {
	max int
	age time.Duration
	now func() time.Time // tests replace it before use

	mu    sync.Mutex
	done  map[string]time.Time     // when each was recorded
	order []doneCallback           // the records, oldest first
	held  map[string]chan struct{} // closed by Done
}

type doneCallback struct {
	key string
	at  time.Time
}

func (m *memoryCallbackOnce) Claim(ctx context.Context, key string) (bool, error) {
	for {
		m.mu.Lock()
		m.forget(m.now())
		if _, ok := m.done[key]; ok {
			m.mu.Unlock()
			return false, nil
		}
		wait, busy := m.held[key]
		if !busy {
			m.held[key] = make(chan struct{})
			m.mu.Unlock()
			return true, nil
		}
		m.mu.Unlock()
		select {
		case <-wait: // done or released: look again
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

func (m *memoryCallbackOnce) Done(_ context.Context, key string, ok bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok {
		now := m.now()
		m.done[key] = now // a record of it already in order is stale now
		m.order = append(m.order, doneCallback{key, now})
		m.forget(now)
	}
	if wait, busy := m.held[key]; busy {
		delete(m.held, key)
		close(wait)
	}
	return nil
}

// forget drops the oldest callbacks over the bounds.
func (m *memoryCallbackOnce) forget(now time.Time) {
	for len(m.order) > 0 {
		d := m.order[0]
		at, live := m.done[d.key]
		live = live && at.Equal(d.at)
		if live && len(m.done) <= m.max && now.Sub(d.at) < m.age {
			return
		}
		if live {
			delete(m.done, d.key)
		}
		m.order[0] = doneCallback{} // let the key be collected
		m.order = m.order[1:]
	}
}

// messageCallbackKey is the CallbackOnce key of a message callback: its kind,
// MessageSid, Status, the time that goes with that Status and ErrorCode, so
// that a receipt for Submitted and one for Delivered (or a second
// submission) differ while a redelivery does not. "" (not deduplicated)
// without a MessageSid.
func messageCallbackKey(kind WebhookKind, m *Message) string {
	if strings.TrimSpace(m.MessageSid) == "" {
		return ""
	}
	var at Timestamp
	switch m.Status {
	case MessageSubmitted:
		at = m.Submitted
	case MessageDelivered:
		at = m.Delivered
	case MessageReceived:
		at = m.Received
	}
	prefix := "receipt:"
	switch kind {
	case WebhookInboundMessage:
		prefix = "inbound:"
	case WebhookLeaseResponse:
		prefix = "lease:"
	}
	return hashKey(prefix, m.MessageSid, string(m.Status), strconv.FormatInt(int64(at), 10), m.ErrorCode)
}

// portingCallbackKey is the CallbackOnce key of a porting callback: its
// PortingNo and Status, and each number's Status and latest history entry,
// in order of number. "" without a PortingNo.
func portingCallbackKey(p *PortingRequest) string {
	if strings.TrimSpace(p.PortingNo) == "" {
		return ""
	}
	parts := []string{p.PortingNo, p.Status}
	nums := make([]PortingNumber, len(p.PortingNumbers))
	copy(nums, p.PortingNumbers)
	sort.SliceStable(nums, func(i, j int) bool { return nums[i].Number < nums[j].Number })
	for _, n := range nums {
		var last PortingStatusChange
		for i, c := range n.StatusHistory {
			if i == 0 || c.Created >= last.Created {
				last = c
			}
		}
		parts = append(parts, n.Number, n.Status, last.FdxStatusTo, last.CarrierPortingStatusTo,
			strconv.FormatInt(int64(last.Created), 10))
	}
	return hashKey("porting:", parts...)
}

// hashKey hashes parts, each prefixed with its length so that no two lists
// of parts hash alike, into a key of bounded length whatever the callback
// sent.
func hashKey(prefix string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return prefix + hex.EncodeToString(h.Sum(nil)[:16])
}
