package telcotest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// stuckWriter is a client that does not read its answer: the first
// WriteHeader or Write blocks until release is closed.
type stuckWriter struct {
	header  http.Header
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func newStuckWriter() *stuckWriter {
	return &stuckWriter{header: http.Header{}, entered: make(chan struct{}), release: make(chan struct{})}
}

func (sw *stuckWriter) Header() http.Header { return sw.header }

func (sw *stuckWriter) block() {
	sw.once.Do(func() { close(sw.entered) })
	<-sw.release
}

func (sw *stuckWriter) WriteHeader(int) { sw.block() }

func (sw *stuckWriter) Write(p []byte) (int, error) {
	sw.block()
	return len(p), nil
}

// A client that does not read its answer, to any operation, must not
// stall the rest of the fake: answers are written after the store's lock
// is let go. (Before, a large page left unread froze every request.)
func TestUnreadAnswerDoesNotStallTheFake(t *testing.T) {
	t.Parallel()
	for _, op := range operations {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			s := NewTestServer(t)
			path := strings.NewReplacer("{PropertySid}", s.PropertySid, "{AccountSid}", s.AccountSid).Replace(op.pattern)
			path = strings.NewReplacer("{Number}", "61255550000", "{Text}", "612", "{OnlineLoginSid}", "x",
				"{MessageSid}", "MGX", "{SipTrunkSid}", "STX", "{AddressSid}", "ADX").Replace(path)
			var body *strings.Reader
			if op.method != http.MethodGet {
				body = strings.NewReader("{}")
			} else {
				body = strings.NewReader("")
			}
			req := httptest.NewRequest(op.method, path, body)
			req.SetBasicAuth(s.AccountSid, s.Token)
			req.Header.Set("Content-Type", "application/json")

			sw := newStuckWriter()
			handled := make(chan struct{})
			go func() {
				defer close(handled)
				s.serveHTTP(sw, req)
			}()
			select {
			case <-sw.entered:
			case <-handled:
				t.Fatal("the handler answered nothing")
			case <-time.After(10 * time.Second):
				t.Fatal("the handler never wrote its answer")
			}

			// Another caller, meanwhile, gets its answer.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err := s.Client().Properties.Get(ctx, s.PropertySid)
			assert.NoError(t, err, "a request while %s's answer is unread", op.name)
			close(sw.release)
			<-handled
		})
	}
}
