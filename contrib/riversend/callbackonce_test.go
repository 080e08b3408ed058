package riversend_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/telcosdk/telco"

	"github.com/telcosdk/telco/contrib/riversend"
)

// stopCallback is an inbound SMS callback, as the service delivers it.
const stopCallback = `{"MessageSid":"MG0123456789abcdef0123456789abcdef","Direction":"Receive","Status":"Received",
 "From":"+61422222222","To":"+61400000009","Text":"STOP","Received":1767225600}`

// receiver is one replica of a webhook receiver: its own pool and
// CallbackOnce on the shared database, its handler on a server of its own.
type receiver struct {
	once *riversend.CallbackOnce
	url  string
}

// replicas starts n receivers on the database at dsn, each running fn
// for an inbound message; adjust, when set, adjusts each one's CallbackOnce.
func replicas(t *testing.T, dsn string, n int, fn func(context.Context, *telco.MessageEvent) error,
	adjust func(*riversend.CallbackOnce)) []receiver {
	t.Helper()
	var rs []receiver
	for range n {
		co := riversend.NewCallbackOnce(newPool(t, dsn))
		if adjust != nil {
			adjust(co)
		}
		h := telco.InboundMessageHandler(fn)
		h.Once = co
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		rs = append(rs, receiver{once: co, url: srv.URL})
	}
	return rs
}

// deliver posts body to url and returns the status.
func deliver(t *testing.T, url, body string) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// spyOnce reports each Claim on a channel before passing it on.
type spyOnce struct {
	*riversend.CallbackOnce
	claims chan struct{}
}

func (s *spyOnce) Claim(ctx context.Context, key string) (bool, error) {
	s.claims <- struct{}{}
	return s.CallbackOnce.Claim(ctx, key)
}

func TestCallbackOnce(t *testing.T) {
	dsn := pgtestStart(t)
	pool := migrated(t, dsn)
	ctx := context.Background()
	empty := func(t *testing.T) {
		t.Helper()
		if _, err := pool.Exec(ctx, "TRUNCATE telco_callbacks"); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("a callback delivered to two replicas, many times at once, runs once", func(t *testing.T) {
		empty(t)
		var runs atomic.Int32
		rs := replicas(t, dsn, 2, func(context.Context, *telco.MessageEvent) error {
			runs.Add(1) // stands for an auto-reply sent
			time.Sleep(50 * time.Millisecond)
			return nil
		}, nil)
		var wg sync.WaitGroup
		statuses := make(chan int, 16)
		for i := range 16 {
			wg.Go(func() { statuses <- deliver(t, rs[i%2].url, stopCallback) })
		}
		wg.Wait()
		close(statuses)
		for s := range statuses {
			if s != http.StatusNoContent {
				t.Errorf("a delivery was answered %d, want 204: every delivery is answered done", s)
			}
		}
		if n := runs.Load(); n != 1 {
			t.Fatalf("the function ran %d times, want once", n)
		}
		// Later, to either replica: done.
		for _, r := range rs {
			if s := deliver(t, r.url, stopCallback); s != http.StatusNoContent {
				t.Fatalf("a late redelivery was answered %d, want 204", s)
			}
		}
		if n := runs.Load(); n != 1 {
			t.Fatalf("the function ran %d times after redeliveries, want once", n)
		}
	})

	t.Run("a failed function gives its claim up: the redelivery, to the other replica, runs it", func(t *testing.T) {
		empty(t)
		var runs atomic.Int32
		rs := replicas(t, dsn, 2, func(context.Context, *telco.MessageEvent) error {
			if runs.Add(1) == 1 {
				return errors.New("the reply could not be sent")
			}
			return nil
		}, nil)
		if s := deliver(t, rs[0].url, stopCallback); s != http.StatusInternalServerError {
			t.Fatalf("the failed delivery was answered %d, want 500 (so the sender delivers again)", s)
		}
		if s := deliver(t, rs[1].url, stopCallback); s != http.StatusNoContent {
			t.Fatalf("the redelivery was answered %d, want 204", s)
		}
		if s := deliver(t, rs[0].url, stopCallback); s != http.StatusNoContent {
			t.Fatalf("the third delivery was answered %d, want 204", s)
		}
		if n := runs.Load(); n != 2 {
			t.Fatalf("the function ran %d times, want twice: once failed, once done", n)
		}
	})

	for _, fails := range []bool{false, true} {
		name := "a delivery arriving while the function runs on the other replica waits, and is done"
		if fails {
			name = "a delivery waiting on a function that fails takes the callback over"
		}
		t.Run(name, func(t *testing.T) {
			empty(t)
			spy := &spyOnce{CallbackOnce: riversend.NewCallbackOnce(newPool(t, dsn)), claims: make(chan struct{}, 2)}
			var runs atomic.Int32
			fn := func(context.Context, *telco.MessageEvent) error {
				if runs.Add(1) == 1 {
					// The second delivery has claimed (and waits) before
					// the first one ends.
					select {
					case <-spy.claims:
					case <-time.After(10 * time.Second):
						return errors.New("the second delivery never came")
					}
					time.Sleep(100 * time.Millisecond) // it is waiting on the claim
					if fails {
						return errors.New("failed")
					}
				}
				return nil
			}
			first := telco.InboundMessageHandler(fn)
			first.Once = riversend.NewCallbackOnce(newPool(t, dsn))
			second := telco.InboundMessageHandler(fn)
			second.Once = spy
			s1, s2 := httptest.NewServer(first), httptest.NewServer(second)
			defer s1.Close()
			defer s2.Close()
			done := make(chan int, 1)
			go func() { done <- deliver(t, s1.URL, stopCallback) }()
			// The first holds the callback before the second arrives.
			waitFor(t, 10*time.Second, "the first delivery never claimed", func() bool {
				return count(t, pool, "SELECT count(*) FROM telco_callbacks WHERE state = 'held'") == 1
			})
			second2 := deliver(t, s2.URL, stopCallback)
			first1 := <-done
			want1, wantRuns := http.StatusNoContent, int32(1)
			if fails {
				want1, wantRuns = http.StatusInternalServerError, 2
			}
			if first1 != want1 || second2 != http.StatusNoContent || runs.Load() != wantRuns {
				t.Fatalf("answers %d and %d, %d runs; want %d and 204, %d runs", first1, second2, runs.Load(), want1, wantRuns)
			}
		})
	}

	t.Run("a claim whose maker died holds the callback for its lease only", func(t *testing.T) {
		empty(t)
		dead := riversend.NewCallbackOnce(newPool(t, dsn))
		dead.Lease = 300 * time.Millisecond
		const key = "receipt:dead-holder"
		if ok, err := dead.Claim(ctx, key); !ok || err != nil {
			t.Fatalf("Claim = %v, %v; want the key", ok, err)
		}
		// Never Done: the process died. Another replica waits for the
		// lease, then takes the callback.
		other := riversend.NewCallbackOnce(newPool(t, dsn))
		if ok, err := other.Claim(ctx, key); !ok || err != nil {
			t.Fatalf("Claim after the lease = %v, %v; want the key", ok, err)
		}
		// The dead one's late Done gives up nothing of the other's.
		if err := dead.Done(ctx, key, false); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		third := riversend.NewCallbackOnce(newPool(t, dsn))
		if ok, err := third.Claim(short, key); ok || err == nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Claim while the other holds it = %v, %v; want an error once its context ended, never false", ok, err)
		}
		if err := other.Done(ctx, key, true); err != nil {
			t.Fatal(err)
		}
		if ok, err := third.Claim(ctx, key); ok || err != nil {
			t.Fatalf("Claim of a callback done = %v, %v; want false", ok, err)
		}
	})

	t.Run("a callback done is remembered for MaxAge; Prune deletes it after", func(t *testing.T) {
		empty(t)
		short := func(co *riversend.CallbackOnce) { co.MaxAge = 300 * time.Millisecond }
		a, b := riversend.NewCallbackOnce(newPool(t, dsn)), riversend.NewCallbackOnce(newPool(t, dsn))
		short(a)
		short(b)
		const key = "inbound:aged"
		if ok, err := a.Claim(ctx, key); !ok || err != nil {
			t.Fatalf("Claim = %v, %v", ok, err)
		}
		if err := a.Done(ctx, key, true); err != nil {
			t.Fatal(err)
		}
		if ok, err := b.Claim(ctx, key); ok || err != nil {
			t.Fatalf("Claim of a callback just done = %v, %v; want false", ok, err)
		}
		if n, err := b.Prune(ctx); n != 0 || err != nil {
			t.Fatalf("Prune = %d, %v; want nothing to prune yet", n, err)
		}
		time.Sleep(400 * time.Millisecond)
		if n, err := b.Prune(ctx); n != 1 || err != nil {
			t.Fatalf("Prune = %d, %v; want the one row past MaxAge", n, err)
		}
		if ok, err := b.Claim(ctx, key); !ok || err != nil {
			t.Fatalf("Claim of a callback forgotten = %v, %v; want true", ok, err)
		}
	})

	t.Run("a database that cannot be reached is an error, never false", func(t *testing.T) {
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.Port = 1 // nothing listens there
		p, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		short, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if ok, err := riversend.NewCallbackOnce(p).Claim(short, "receipt:unreachable"); ok || err == nil {
			t.Fatalf("Claim = %v, %v; want an error (the handler answers 503)", ok, err)
		}
	})
}
