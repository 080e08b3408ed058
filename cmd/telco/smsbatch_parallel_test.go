package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco/telcotest"
)

// countingProxy stands between the tool and the fake and records the
// largest number of batch requests it saw in flight at once.
type countingProxy struct {
	mu        sync.Mutex
	now, peak int
}

func (p *countingProxy) peakInFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

// proxied points h at a proxy in front of its fake.
func proxied(t *testing.T, h *harness) *countingProxy {
	t.Helper()
	target, err := url.Parse(h.srv.URL)
	require.NoError(t, err)
	rp := httputil.NewSingleHostReverseProxy(target)
	cp := &countingProxy{}
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		batch := strings.HasSuffix(r.URL.Path, "/BatchMessages")
		if batch {
			cp.mu.Lock()
			cp.now++
			cp.peak = max(cp.peak, cp.now)
			cp.mu.Unlock()
			defer func() {
				cp.mu.Lock()
				cp.now--
				cp.mu.Unlock()
			}()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ps.Close)
	h.env["TELCO_BASE_URL"] = ps.URL
	return cp
}

// With --parallel 4 a chunk held back by the service finishes after the
// chunks started behind it; its results are still printed first, in the
// order of the input, and no more than four requests are ever in flight.
func TestBatchParallelKeepsInputOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cp := proxied(t, h)
	const n = 40
	file := writeBatch(t, n, false)
	// The first request to arrive waits; every other one takes a little
	// while, so that requests overlap.
	h.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 300 * time.Millisecond, Op: "Messages.SendBatch"})
	h.srv.Inject(1<<20, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 10 * time.Millisecond, Op: "Messages.SendBatch"})
	journal := filepath.Join(t.TempDir(), "j")
	r := h.run("sms", "batch", file, "--journal", journal, "--chunk-size", "2", "--parallel", "4", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)

	rows := decodeRows(t, r.stdout)
	require.Len(t, rows, n)
	for k, row := range rows {
		assert.Equal(t, k+2, row.Line, "row %d is in input order", k)
		assert.Equal(t, "sent", row.State)
	}
	stored := h.srv.Messages(h.srv.PropertySid)
	require.Len(t, stored, n)
	pos := map[string]int{} // ExternalId -> position in the fake's store
	for k, m := range stored {
		pos[m.ExternalID] = k
	}
	outOfOrder := false
	for k := 1; k < len(rows); k++ {
		if pos[rows[k].ExternalID] < pos[rows[k-1].ExternalID] {
			outOfOrder = true
		}
	}
	assert.True(t, outOfOrder, "the slowed chunk was stored after a later one: the test exercised the reordering")
	assert.LessOrEqual(t, cp.peakInFlight(), 4, "at most --parallel requests in flight")
	assert.GreaterOrEqual(t, cp.peakInFlight(), 2, "requests overlapped")

	// The ledger recorded every line as sent: a re-run sends nothing.
	r = h.run("sms", "batch", file, "--journal", journal, "--parallel", "4")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "every line was sent before")
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), n)
}

// The default is one request at a time.
func TestBatchParallelDefaultsToOne(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cp := proxied(t, h)
	h.srv.Inject(1<<20, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 10 * time.Millisecond, Op: "Messages.SendBatch"})
	r := h.run("sms", "batch", writeBatch(t, 20, false), "--no-journal", "--chunk-size", "2")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 1, cp.peakInFlight())
}

// A chunk refused as a whole stops the batch: nothing more is started,
// the chunks already in flight are finished, journalled and printed, and
// the next run sends the rest, every line stored once.
func TestBatchParallelFailureFinishesChunksInFlight(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const n = 60
	file := writeBatch(t, n, true)
	journal := filepath.Join(t.TempDir(), "j")
	slow := telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 300 * time.Millisecond, Op: "Messages.SendBatch"}
	h.srv.Inject(2, slow)
	h.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 400, Op: "Messages.SendBatch"})
	h.srv.Inject(1<<20, slow)
	args := []string{"sms", "batch", file, "--journal", journal, "--chunk-size", "3", "--parallel", "4", "-o", "json"}
	r := h.run(args...)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Regexp(t, `lines \d+ to \d+(, and the lines after \d+,| and later) were not sent`, r.stderr)
	assert.Contains(t, r.stderr, "re-run the same command to resume")

	rows := decodeRows(t, r.stdout)
	stored := storedIDs(h.srv)
	require.NotEmpty(t, rows, "the chunks in flight beside the refused one were finished")
	assert.Less(t, len(stored), n, "nothing was started after the refusal")
	assert.Len(t, stored, len(rows), "every line sent was printed")
	for k, row := range rows {
		assert.Equal(t, "sent", row.State)
		assert.Equal(t, 1, stored[row.ExternalID], "line %d", row.Line)
		if k > 0 {
			assert.Greater(t, row.Line, rows[k-1].Line, "input order")
		}
	}

	r = h.run(args...)
	require.Equal(t, 0, r.code, r.stderr)
	rows = decodeRows(t, r.stdout)
	require.Len(t, rows, n)
	for k, row := range rows {
		assert.Equal(t, k+2, row.Line)
	}
	stored = storedIDs(h.srv)
	require.Len(t, stored, n)
	for id, c := range stored {
		assert.Equal(t, 1, c, "%s stored once", id)
	}
}

// --parallel is bounded; a value outside 1 to 16 is a usage error that
// names the flag, and nothing is sent.
func TestBatchParallelBound(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	in := "To,Text\n+61400000001,hi\n"
	for _, v := range []string{"0", "-1", "17", "1000"} {
		r := h.runIn(in, "sms", "batch", "--parallel", v)
		assert.Equal(t, 2, r.code, "--parallel %s: %s", v, r.stderr)
		assert.Contains(t, r.stderr, "--parallel must be from 1 to 16 (not "+v+")")
	}
	r := h.runIn(in, "sms", "batch", "--parallel", "many")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "--parallel")
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))
	for _, v := range []string{"1", "16"} {
		r := h.runIn(in, "sms", "batch", "--parallel", v, "--force", "--journal", filepath.Join(t.TempDir(), "j"))
		assert.Equal(t, 0, r.code, "--parallel %s: %s", v, r.stderr)
	}
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), 2)
}
