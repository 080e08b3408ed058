package telco

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trickle opens a raw connection to addr, sends a POST's headers
// announcing a body of n bytes, and then one byte every gap until told to
// stop or the server closes the connection. It returns the connection and
// a function that stops the trickle.
func trickle(t *testing.T, addr string, n int, gap time.Duration) (net.Conn, func()) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = fmt.Fprintf(conn, "POST /hook HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", addr, n)
	require.NoError(t, err)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(gap)
		defer tick.Stop()
		for i := 1; i < n; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	var once sync.Once
	return conn, func() {
		once.Do(func() { close(stop) })
		<-done
		conn.Close()
	}
}

// A sender that trickles its body a byte at a time is cut off after
// ReadTimeout with 408, instead of holding a handler for as long as it
// likes (50 of 50 such senders held one after 6 s before the deadline).
func TestWebhookReadTimeoutCutsTricklingSender(t *testing.T) {
	t.Parallel()
	var reported atomic.Int32
	var called atomic.Bool
	h := &WebhookHandler{
		DeliveryReceipt: func(context.Context, *MessageEvent) error { called.Store(true); return nil },
		ReadTimeout:     300 * time.Millisecond,
		OnError:         func(_ *http.Request, status int, _ error) { reported.Store(int32(status)) },
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	const senders = 5
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 1,000 bytes at 50 ms each would take 50 s.
			conn, stop := trickle(t, srv.Listener.Addr().String(), 1000, 50*time.Millisecond)
			defer stop()
			start := time.Now()
			_ = conn.SetReadDeadline(start.Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if !assert.NoError(t, err, "the server answers before the body is complete") {
				return
			}
			resp.Body.Close()
			assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
			assert.Less(t, time.Since(start), 3*time.Second)
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(http.StatusRequestTimeout), reported.Load(), "OnError is told")
	assert.False(t, called.Load())
}

// The handler's longer default does not loosen a server's shorter
// ReadTimeout: SetReadDeadline would otherwise replace it.
func TestWebhookReadTimeoutKeepsServersShorterOne(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(DeliveryReceiptHandler(func(context.Context, *MessageEvent) error { return nil }))
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	conn, stop := trickle(t, srv.Listener.Addr().String(), 1000, 50*time.Millisecond)
	defer stop()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	assert.Less(t, time.Since(start), 3*time.Second, "well before the handler's own 10 s")
}

// The deadline covers the body only: a function slower than ReadTimeout
// keeps its context and its answer.
func TestWebhookReadTimeoutSparesSlowFunction(t *testing.T) {
	t.Parallel()
	h := DeliveryReceiptHandler(func(ctx context.Context, _ *MessageEvent) error {
		select {
		case <-time.After(400 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return errors.New("context ended while the function ran")
		}
	})
	h.ReadTimeout = 100 * time.Millisecond
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := srv.Client()
	for range 2 { // the second on the kept-alive connection
		resp, err := c.Post(srv.URL, "application/json", strings.NewReader(receiptJSON))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	}
}

// countingBody records whether anything read it.
type countingBody struct {
	io.Reader
	reads atomic.Int32
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.reads.Add(1)
	return b.Reader.Read(p)
}

func TestWebhookAuthorizeRunsFirst(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, contentType, body string
	}{
		{"JSON POST", "POST", "application/json", receiptJSON},
		{"GET", "GET", "", ""},
		{"a method it would refuse", "PUT", "application/json", receiptJSON},
		{"a body it could not decode", "POST", "text/xml", "<x/>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rc recorder
			h := rc.all()
			var status atomic.Int32
			h.OnError = func(_ *http.Request, s int, _ error) { status.Store(int32(s)) }
			h.Authorize = func(*http.Request) bool { return false }
			body := &countingBody{Reader: strings.NewReader(tc.body)}
			req := httptest.NewRequest(tc.method, "/hook?"+receiptQuery, body)
			req.Header.Set("Content-Type", tc.contentType)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			assert.Equal(t, http.StatusUnauthorized, w.Code)
			assert.Equal(t, int32(http.StatusUnauthorized), status.Load())
			assert.Zero(t, body.reads.Load(), "the body is not read")
			assert.Empty(t, rc.messages)

			h.Authorize = func(*http.Request) bool { return true }
			if tc.method == "POST" && tc.contentType == "application/json" {
				w = serveWebhook(h, tc.method, "/hook", tc.contentType, tc.body)
				assert.Equal(t, http.StatusNoContent, w.Code)
			}
		})
	}
}

func TestWebhookQuerySecret(t *testing.T) {
	t.Parallel()
	const current, previous = "k8Jd0-current-9Qz", "p3Lm2-previous-7Xc"
	var rc recorder
	h := rc.all()
	h.Authorize = WebhookQuerySecret("", current, previous)
	var refusedURL string
	h.OnError = func(r *http.Request, _ int, _ error) { refusedURL = r.URL.String() + " " + r.RequestURI }
	cases := []struct {
		name, query string
		status      int
	}{
		{"no secret", "", 401},
		{"wrong secret", "secret=nope", 401},
		{"empty secret", "secret=", 401},
		{"a prefix of the secret", "secret=k8Jd0", 401},
		{"the secret under another name", "token=" + current, 401},
		{"current secret", "secret=" + current, 204},
		{"previous secret during rotation", "secret=" + previous, 204},
		{"escaped secret", "secret=k8Jd0%2Dcurrent%2D9Qz", 204},
		{"secret after other parameters", "tenant=7&secret=" + current, 204},
		{"first of two values counts", "secret=" + current + "&secret=nope", 204},
		{"first of two values counts, wrong first", "secret=nope&secret=" + current, 401},
	}
	for _, tc := range cases {
		before := len(rc.messages)
		refusedURL = ""
		w := serveWebhook(h, "POST", "/hook?"+tc.query, "application/json", receiptJSON)
		require.Equal(t, tc.status, w.Code, tc.name)
		if strings.HasPrefix(tc.query, "secret=") {
			assert.NotContains(t, refusedURL, "secret=", "%s: stripped on refusal too", tc.name)
		}
		if tc.status != 204 {
			assert.Len(t, rc.messages, before, tc.name)
			continue
		}
		require.Len(t, rc.messages, before+1, tc.name)
		r := rc.messages[before].Request
		assert.NotContains(t, r.URL.RawQuery, "secret", tc.name)
		assert.NotContains(t, r.RequestURI, "secret", tc.name)
		assert.NotContains(t, r.URL.String(), current, tc.name)
		if strings.HasPrefix(tc.query, "tenant=7") {
			assert.Equal(t, "tenant=7", r.URL.RawQuery, "the other parameters are kept as sent")
		}
	}

	// A GET carries the secret among the callback's own fields; the fields
	// still decode, and the server's request is not modified.
	req := httptest.NewRequest("GET", "/hook?secret="+current+"&"+receiptQuery, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	assert.Equal(t, wantReceipt, rc.messages[len(rc.messages)-1].Message)
	assert.Contains(t, req.URL.RawQuery, "secret=", "the handler works on its own copy")

	// No usable secret refuses everything.
	none := WebhookQuerySecret("key", "", "")
	assert.False(t, none(httptest.NewRequest("GET", "/h?key=", nil)))
	assert.False(t, none(httptest.NewRequest("GET", "/h", nil)))
	named := WebhookQuerySecret("key", current)
	assert.True(t, named(httptest.NewRequest("GET", "/h?key="+current, nil)))
	assert.False(t, named(httptest.NewRequest("GET", "/h?secret="+current, nil)))
}

// A function that panics gets the caller a 500, not a dropped
// connection, and OnError hears of it; the server goes on serving.
func TestWebhookPanicAnswers500(t *testing.T) {
	t.Parallel()
	var reported atomic.Value
	h := &WebhookHandler{
		DeliveryReceipt: func(context.Context, *MessageEvent) error { panic("boom: password=hunter2") },
		PortingUpdate:   func(context.Context, *PortingEvent) error { return nil },
		OnError: func(_ *http.Request, status int, err error) {
			reported.Store(fmt.Sprint(status, " ", err))
		},
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(receiptJSON))
	require.NoError(t, err, "the connection is not dropped")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.NotContains(t, string(b), "hunter2", "the panic's text stays out of the answer")
	got, _ := reported.Load().(string)
	assert.Contains(t, got, "500")
	assert.Contains(t, got, "panic")

	resp, err = srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"PortingNo":"P-1"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)

	// http.ErrAbortHandler still aborts, as net/http documents.
	abort := DeliveryReceiptHandler(func(context.Context, *MessageEvent) error { panic(http.ErrAbortHandler) })
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() {
		serveWebhook(abort, "POST", "/h", "application/json", receiptJSON)
	})
}

// A key given twice counts at its first occurrence in every encoding.
func TestWebhookDuplicateKeysFirstWins(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, method, target, contentType, body string }{
		{"JSON", "POST", "/h", "application/json",
			`{"MessageSid":"MG1","Direction":"Receive","Text":"first","NumSegments":1,"Text":"second","NumSegments":2}`},
		{"JSON without a type", "POST", "/h", "",
			`{"MessageSid":"MG1","Direction":"Receive","Text":"first","NumSegments":1,"Text":"second","NumSegments":2}`},
		{"form", "POST", "/h", "application/x-www-form-urlencoded",
			"MessageSid=MG1&Direction=Receive&Text=first&NumSegments=1&Text=second&NumSegments=2"},
		{"query", "GET", "/h?MessageSid=MG1&Direction=Receive&Text=first&NumSegments=1&Text=second&NumSegments=2", "", ""},
	} {
		var rc recorder
		w := serveWebhook(rc.all(), tc.method, tc.target, tc.contentType, tc.body)
		require.Equal(t, http.StatusNoContent, w.Code, "%s: %s", tc.name, w.Body.String())
		require.Len(t, rc.messages, 1, tc.name)
		assert.Equal(t, "first", rc.messages[0].Message.Text, tc.name)
		assert.Equal(t, 1, rc.messages[0].Message.NumSegments, tc.name)
	}
	// The object is still checked whole.
	for _, body := range []string{`{"MessageSid":"MG1","Text":}`, `{"MessageSid":"MG1",}`, `{"a":1}{}`, `{"a":1`, `[]`, `"x"`} {
		w := serveWebhook((&recorder{}).all(), "POST", "/h", "application/json", body)
		assert.Equal(t, http.StatusBadRequest, w.Code, body)
	}
}
