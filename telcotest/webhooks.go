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

// CallbackTimeout bounds each webhook request the fake makes.
const CallbackTimeout = 5 * time.Second

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
	// Err says why the request failed (no answer, or a non-2xx one); empty
	// on success. Failed callbacks are not retried.
	Err string
}

// OK reports whether the receiver answered 2xx.
func (c Callback) OK() bool { return c.Err == "" }

// hooks sends webhooks in the background and remembers each one.
type hooks struct {
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	idle     *sync.Cond // signalled when inflight drops to 0
	inflight int
	closed   bool
	done     []Callback
}

func newHooks() *hooks {
	ctx, cancel := context.WithCancel(context.Background())
	h := &hooks{client: &http.Client{Timeout: CallbackTimeout}, ctx: ctx, cancel: cancel}
	h.idle = sync.NewCond(&h.mu)
	return h
}

// send invokes rawURL with method ("" and anything but GET mean POST)
// and the fields of v: a JSON body for POST, a query for GET. It returns at
// once; flush waits.
func (h *hooks) send(kind CallbackKind, rawURL, method string, v any) {
	if rawURL == "" {
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.inflight++
	h.mu.Unlock()
	body, err := json.Marshal(v)
	cb := Callback{Kind: kind, Method: http.MethodPost, URL: rawURL}
	if strings.EqualFold(method, http.MethodGet) {
		cb.Method = http.MethodGet
	}
	go func() {
		if err == nil {
			err = h.do(&cb, body)
		}
		if err != nil {
			cb.Err = err.Error()
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.done = append(h.done, cb)
		if h.inflight--; h.inflight == 0 {
			h.idle.Broadcast()
		}
	}()
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

// flush waits until no callback is in flight. Unlike a WaitGroup's Wait
// it may run while new callbacks start.
func (h *hooks) flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.inflight > 0 {
		h.idle.Wait()
	}
}

// close refuses new callbacks and waits for those in flight.
func (h *hooks) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.flush()
	h.cancel()
}

func (h *hooks) list() []Callback {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Callback(nil), h.done...)
}

// Flush waits until every webhook the fake has started has finished,
// so that a test can then assert what its receiver got, or read
// Callbacks.
func (s *Server) Flush() { s.hooks.flush() }

// Callbacks returns the webhooks finished so far, in the order they
// finished. Call Flush first to include those in flight.
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
