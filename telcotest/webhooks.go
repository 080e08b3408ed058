package telcotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// CallbackKind says why the fake invoked a webhook.
type CallbackKind string

// The events the fake sends webhooks for, as the service does.
const (
	// CallbackDeliveryReceipt is a sent message that reached Delivered or
	// Failed, sent only when DeliveryReceipt was true: to the send's
	// DeliveryReceiptWebhookUri, or else to the From number's configured
	// DeliveryReceiptWebHookUrl.
	CallbackDeliveryReceipt CallbackKind = "DeliveryReceipt"
	// CallbackInbound is an SMS received (Server.Receive) on a number
	// configured with a WebHookUrl.
	CallbackInbound CallbackKind = "Inbound"
	// CallbackLeaseResponse is an SMS received from a recipient on the
	// sender leased to it, to the WebhookUri of the leased send.
	CallbackLeaseResponse CallbackKind = "LeaseResponse"
	// CallbackPortingStatus is a porting request whose status changed
	// (Server.SetPortingStatus), to its WebHookURL, always by POST: the
	// service has no method field for it.
	CallbackPortingStatus CallbackKind = "PortingStatus"
)

// CallbackTimeout bounds each webhook request the fake makes, unless
// CallbackLimits.Timeout says otherwise.
const CallbackTimeout = 5 * time.Second

// Defaults of CallbackLimits.
const (
	// DefaultCallbackWorkers is how many webhooks the fake has in flight
	// at once.
	DefaultCallbackWorkers = 16
	// DefaultCallbackQueue is how many webhooks may wait for a worker.
	DefaultCallbackQueue = 10000
	// DefaultCallbackHistory is how many finished webhooks Callbacks
	// keeps, the most recent.
	DefaultCallbackHistory = 1000
)

// CallbackLimits bounds what the fake's webhooks cost, so that a receiver
// that is slow or never answers cannot make the fake hold an unbounded
// number of goroutines, connections and records. Zero fields take the
// defaults.
type CallbackLimits struct {
	// Workers is how many webhooks are in flight at once (each one
	// goroutine and at most one connection); 0 means
	// DefaultCallbackWorkers. The rest wait in a queue, in order.
	Workers int
	// Queue is how many webhooks may wait for a worker; 0 means
	// DefaultCallbackQueue. A webhook that finds the queue full is not
	// sent: Callbacks lists it as failed, with Status 0.
	Queue int
	// History is how many finished webhooks Callbacks keeps, the most
	// recent; 0 means DefaultCallbackHistory, a negative value keeps
	// none. Each costs about 1 KiB: its JSON body and its record.
	History int
	// Timeout bounds each webhook request; 0 means CallbackTimeout.
	Timeout time.Duration
}

// WithCallbackLimits sets the bounds of the fake's webhooks (see
// CallbackLimits).
func WithCallbackLimits(l CallbackLimits) ServerOption {
	return func(c *serverConfig) { c.callbacks = l }
}

func (l CallbackLimits) withDefaults() CallbackLimits {
	if l.Workers <= 0 {
		l.Workers = DefaultCallbackWorkers
	}
	if l.Queue <= 0 {
		l.Queue = DefaultCallbackQueue
	}
	switch {
	case l.History == 0:
		l.History = DefaultCallbackHistory
	case l.History < 0:
		l.History = 0
	}
	if l.Timeout <= 0 {
		l.Timeout = CallbackTimeout
	}
	return l
}

// Callback is one webhook request the fake made, and how it went.
type Callback struct {
	Kind   CallbackKind
	Method string // GET or POST
	// URL is the configured URL; for GET it carries the fields as its query.
	URL string
	// Body is the JSON object of a POST; nil for GET.
	Body []byte
	// Status is the receiver's answer, 0 when there was none.
	Status int
	// Err says why the request failed (no answer, or a non-2xx one, or
	// the queue was full); empty on success. Failed callbacks are not
	// retried.
	Err string
}

// OK reports whether the receiver answered 2xx.
func (c Callback) OK() bool { return c.Err == "" }

// queued is a webhook waiting for a worker: its record, and the JSON of
// its fields.
type queued struct {
	cb   Callback
	body []byte
	gen  int // hooks.gen when queued: a reset since means it is not recorded
}

// hooks sends webhooks in the background, at most limits.Workers at a
// time from a bounded queue, and remembers the most recent ones. Workers
// start when there is work and end when the queue is empty, so an idle
// fake holds no goroutine for them.
type hooks struct {
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	limits CallbackLimits

	mu      sync.Mutex
	idle    *sync.Cond // signalled when pending drops to 0
	queue   []queued   // FIFO; queue[head:] wait
	head    int
	workers int // running
	pending int // queued or in flight
	closed  bool
	done    []Callback // finished, oldest first; the last limits.History count
	gen     int        // counts resets
}

func newHooks(l CallbackLimits) *hooks {
	l = l.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	h := &hooks{client: &http.Client{Timeout: l.Timeout}, ctx: ctx, cancel: cancel, limits: l}
	h.idle = sync.NewCond(&h.mu)
	return h
}

// send queues a call of rawURL with method ("" and anything but GET mean
// POST) and the fields of v: a JSON body for POST, a query for GET. It
// never blocks (the caller holds the store's lock); flush waits.
func (h *hooks) send(kind CallbackKind, rawURL, method string, v any) {
	if rawURL == "" {
		return
	}
	cb := Callback{Kind: kind, Method: http.MethodPost, URL: rawURL}
	if strings.EqualFold(method, http.MethodGet) {
		cb.Method = http.MethodGet
	}
	body, err := json.Marshal(v)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return
	case err != nil:
		cb.Err = err.Error()
		h.record(cb)
		return
	case len(h.queue)-h.head >= h.limits.Queue:
		cb.Err = fmt.Sprintf("telcotest: callback queue full (%d waiting); not sent", h.limits.Queue)
		h.record(cb)
		return
	}
	h.queue = append(h.queue, queued{cb, body, h.gen})
	h.pending++
	if h.workers < h.limits.Workers {
		h.workers++
		go h.work()
	}
}

// work sends queued webhooks until none is left.
func (h *hooks) work() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.head < len(h.queue) {
		q := h.queue[h.head]
		h.queue[h.head] = queued{} // let the body go
		h.head++
		if h.head == len(h.queue) { // empty: reuse the array from the start
			h.queue, h.head = h.queue[:0], 0
		}
		h.mu.Unlock()
		if err := h.do(&q.cb, q.body); err != nil {
			q.cb.Err = err.Error()
		}
		h.mu.Lock()
		if q.gen == h.gen {
			h.record(q.cb)
		}
		if h.pending--; h.pending == 0 {
			h.idle.Broadcast()
		}
	}
	h.workers--
}

// record keeps a finished webhook, dropping the oldest past
// limits.History. The caller holds h.mu.
func (h *hooks) record(cb Callback) {
	max := h.limits.History
	if max == 0 {
		return
	}
	h.done = append(h.done, cb)
	if len(h.done) >= 2*max { // amortised: one copy per max records
		n := copy(h.done, h.done[len(h.done)-max:])
		clear(h.done[n:])
		h.done = h.done[:n]
	}
}

func (h *hooks) do(cb *Callback, body []byte) error {
	var rd io.Reader
	if cb.Method == http.MethodGet {
		u, err := url.Parse(cb.URL)
		if err != nil {
			return err
		}
		q := u.Query()
		if err := addQuery(q, body); err != nil {
			return err
		}
		u.RawQuery = q.Encode()
		cb.URL = u.String()
	} else {
		cb.Body = body
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(h.ctx, cb.Method, cb.URL, rd)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "telcotest-webhook")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	cb.Status = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("receiver answered %s", resp.Status)
	}
	return nil
}

// addQuery adds the members of a JSON object to q: numbers as written
// (timestamps are Unix seconds), booleans as true/false, strings as they
// are, arrays and objects as their JSON.
func addQuery(q url.Values, body []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	for k, raw := range m {
		var s string
		switch {
		case json.Unmarshal(raw, &s) == nil:
		case string(raw) == "null":
			continue
		default:
			s = string(raw)
		}
		q.Set(k, s)
	}
	return nil
}

// flush waits until no callback is queued or in flight. Unlike a
// WaitGroup's Wait it may run while new callbacks start.
func (h *hooks) flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.pending > 0 {
		h.idle.Wait()
	}
}

// close refuses new callbacks and waits for those queued and in flight,
// at most limits.Timeout in all: those unfinished by then are cancelled
// and recorded as failed.
func (h *hooks) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	stop := time.AfterFunc(h.limits.Timeout, h.cancel)
	h.flush()
	stop.Stop()
	h.cancel()
}

// reset drops the webhooks queued and the history, and keeps those in
// flight from being recorded; it returns how many it dropped.
func (h *hooks) reset() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	dropped := len(h.queue) - h.head
	clear(h.queue)
	h.queue, h.head = h.queue[:0], 0
	if h.pending -= dropped; h.pending == 0 {
		h.idle.Broadcast()
	}
	n := min(len(h.done), h.limits.History) + dropped
	clear(h.done)
	h.done = h.done[:0]
	return n
}

func (h *hooks) list() []Callback {
	h.mu.Lock()
	defer h.mu.Unlock()
	from := max(0, len(h.done)-h.limits.History)
	return append([]Callback(nil), h.done[from:]...)
}

// Flush waits until every webhook the fake has queued has finished,
// so that a test can then assert what its receiver got, or read
// Callbacks.
func (s *Server) Flush() { s.hooks.flush() }

// Callbacks returns the webhooks finished so far, in the order they
// finished: the most recent CallbackLimits.History of them (1,000 by
// default). Call Flush first to include those queued or in flight.
func (s *Server) Callbacks() []Callback { return s.hooks.list() }

// Delivery-receipt targets of a sent message: its own, else its From
// number's configuration.
func (st *store) receiptTarget(m *messageRec) (string, string) {
	if m.receiptURL != "" {
		return m.receiptURL, m.receiptMethod
	}
	// Only the message's own project's number: another project's
	// configuration must never see this message.
	if n := st.numbers[strings.TrimPrefix(m.From, "+")]; n != nil && n.propertySid == m.PropertySid {
		return n.cfg.DeliveryReceiptWebhookURL, n.cfg.DeliveryReceiptWebhookMethod
	}
	return "", ""
}
