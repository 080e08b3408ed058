package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

// logBuffer collects log output written from the server's goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestSampleCallbacks(t *testing.T) {
	var logs logBuffer
	events := make(chan telco.WebhookKind, 16)
	srv := httptest.NewServer(newHandler(slog.New(slog.NewTextHandler(&logs, nil)), events))
	defer srv.Close()

	cases := []struct {
		name, method, path, contentType, body string
		status                                int
		kind                                  telco.WebhookKind
		logged                                string
	}{
		{"JSON delivery receipt", "POST", "/webhooks", "application/json",
			`{"MessageSid":"MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE","Direction":"Transmit","Status":"Delivered","To":"+61499999999","Created":1763780000}`,
			204, telco.WebhookDeliveryReceipt, `msg="delivery receipt" message_sid=MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE status=Delivered`},
		{"GET inbound SMS", "GET", "/webhooks?" + url.Values{"MessageSid": {"MGQ1"}, "Direction": {"Receive"},
			"From": {"+61411111111"}, "Text": {"STOP"}}.Encode(), "", "",
			204, telco.WebhookInboundMessage, `msg="inbound message" message_sid=MGQ1 status="" from=+61411111111`},
		{"form porting update", "POST", "/webhooks", "application/x-www-form-urlencoded", "PortingNo=PN-42&Status=Completed",
			204, telco.WebhookPortingUpdate, `msg="porting update" porting_no=PN-42 status=Completed`},
		{"lease response on its own URL", "Post", "/webhooks/lease", "application/json",
			`{"MessageSid":"MGL1","Direction":"Receive","From":"+61422222222","Text":"yes please"}`,
			204, telco.WebhookLeaseResponse, `msg="lease response" message_sid=MGL1`},
		{"not a callback", "POST", "/webhooks", "application/json", `{"hello":"world"}`,
			400, 0, `msg="callback refused" method=POST path=/webhooks status=400`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			require.NoError(t, err)
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Contains(t, logs.String(), tc.logged)
			if tc.kind != 0 {
				assert.Equal(t, tc.kind, <-events)
			}
		})
	}
}

func TestSecretIsRequiredWhenSet(t *testing.T) {
	var logs logBuffer
	srv := httptest.NewServer(newHandler(slog.New(slog.NewTextHandler(&logs, nil)), nil, "s3cret-new", "s3cret-old"))
	defer srv.Close()
	body := `{"MessageSid":"MG1","Direction":"Transmit","Status":"Delivered"}`
	for target, want := range map[string]int{
		"/webhooks":                    401,
		"/webhooks?secret=wrong":       401,
		"/webhooks?secret=s3cret-new":  204,
		"/webhooks?secret=s3cret-old":  204, // during a rotation
		"/webhooks/lease?secret=x":     401,
		"/webhooks/lease?secret=s3cre": 401,
	} {
		resp, err := http.Post(srv.URL+target, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, target)
	}
	assert.Contains(t, logs.String(), "status=401")
	assert.NotContains(t, logs.String(), "s3cret", "the logs never show a secret")
}

// The server limits every phase of a request, not only the headers: a
// sender trickling its body or never reading the answer must not keep a
// connection for as long as it likes.
func TestServerTimeouts(t *testing.T) {
	srv := newServer(http.NotFoundHandler())
	assert.Positive(t, srv.ReadHeaderTimeout)
	assert.Positive(t, srv.ReadTimeout)
	assert.Positive(t, srv.WriteTimeout)
	assert.Positive(t, srv.IdleTimeout)
	assert.Positive(t, srv.MaxHeaderBytes)
	assert.LessOrEqual(t, srv.ReadHeaderTimeout, srv.ReadTimeout)
}

// A sender trickling its body is answered 408 and let go: the server's
// ReadTimeout (shortened here, for the test) bounds the body, and the
// handler's own deadline does not loosen it.
func TestTricklingSenderIsCutOff(t *testing.T) {
	h := newHandler(slog.New(slog.NewTextHandler(&logBuffer{}, nil)), nil)
	ts := httptest.NewUnstartedServer(h)
	ts.Config = newServer(h)
	ts.Config.ReadTimeout = 600 * time.Millisecond // short, for the test
	ts.Start()
	defer ts.Close()

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	require.NoError(t, err)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "answered before the 50 s the body would take")
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	assert.Less(t, time.Since(start), 3*time.Second)
}

// TestDemoWithoutCredentials runs what `go run ./examples/webhook-receiver`
// does on a fresh machine: the fake is started and the user sees a
// delivery receipt and an inbound SMS arrive as typed events.
func TestDemoWithoutCredentials(t *testing.T) {
	var logs logBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, "127.0.0.1:0", func(string) string { return "" }, slog.New(slog.NewTextHandler(&logs, nil)))
	}()
	require.Eventually(t, func() bool {
		s := logs.String()
		return strings.Contains(s, `msg="delivery receipt"`) && strings.Contains(s, `msg="inbound message"`)
	}, 30*time.Second, 20*time.Millisecond, "logs: %s", logs.String())
	s := logs.String()
	assert.Contains(t, s, "started the fake service")
	assert.Contains(t, s, "status=Delivered")
	assert.Contains(t, s, "external_id=order-1042")
	assert.Contains(t, s, "text=STOP")
	assert.Equal(t, 1, strings.Count(s, `msg="delivery receipt"`), "one receipt per delivered message")
	assert.NotContains(t, s, "status=Processing", "a receipt comes only after delivery")
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver did not stop when its context ended")
	}
}

func TestListenError(t *testing.T) {
	err := run(context.Background(), "256.0.0.1:1", func(string) string { return "" }, slog.New(slog.NewTextHandler(&logBuffer{}, nil)))
	assert.Error(t, err)
}
