package telco

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pages serves items 0..n-1 in pages, recording each request's offset.
type pages struct {
	n, total int // total announced; -1 for none
	offsets  []int
	failAt   int // offset that fails, or -1
	ignore   bool
	cap      int // the server's own maximum page size, 0 for none
}

func (p *pages) fetch(size int) fetchPage[int] {
	return func(_ context.Context, _, offset int) ([]int, int, error) {
		p.offsets = append(p.offsets, offset)
		if p.failAt >= 0 && offset == p.failAt {
			return nil, 0, errors.New("boom")
		}
		if p.ignore {
			offset = 0
		}
		sz := size
		if p.cap > 0 {
			sz = min(sz, p.cap)
		}
		var out []int
		for i := offset; i < p.n && len(out) < sz; i++ {
			out = append(out, i)
		}
		return out, p.total, nil
	}
}

func collect(t *testing.T, seq func(func(int, error) bool)) ([]int, []error) {
	t.Helper()
	var items []int
	var errs []error
	for v, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items = append(items, v)
	}
	return items, errs
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestIterateStops(t *testing.T) {
	cases := []struct {
		name    string
		p       pages
		size    int
		items   int
		offsets []int
	}{
		{"short page without a total", pages{n: 5, total: -1, failAt: -1}, 2, 5, []int{0, 2, 4}},
		{"empty page without a total", pages{n: 4, total: -1, failAt: -1}, 2, 4, []int{0, 2, 4}},
		{"at the total", pages{n: 4, total: 4, failAt: -1}, 2, 4, []int{0, 2}},
		{"a total below what the server has", pages{n: 10, total: 3, failAt: -1}, 2, 4, []int{0, 2}},
		{"a capped page size with a total goes on", pages{n: 5, total: 5, failAt: -1, cap: 2}, 10, 5, []int{0, 2, 4}},
		{"nothing at all", pages{n: 0, total: -1, failAt: -1}, 2, 0, []int{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			items, errs := collect(t, iterate(context.Background(), "Op", tc.size, tc.p.fetch(tc.size)))
			assert.Empty(t, errs)
			assert.Equal(t, seq(tc.items), append([]int{}, items...))
			assert.Equal(t, tc.offsets, tc.p.offsets, "one request per page")
		})
	}
}

func TestIterateYieldsAnErrorOnceAndStops(t *testing.T) {
	p := pages{n: 10, total: -1, failAt: 4}
	items, errs := collect(t, iterate(context.Background(), "Op", 2, p.fetch(2)))
	assert.Equal(t, []int{0, 1, 2, 3}, items)
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0], "boom")
	assert.Equal(t, []int{0, 2, 4}, p.offsets)
}

func TestIterateDetectsAServerIgnoringSkip(t *testing.T) {
	p := pages{n: 10, total: -1, failAt: -1, ignore: true}
	items, errs := collect(t, iterate(context.Background(), "Messages.FindAll", 2, p.fetch(2)))
	assert.Equal(t, []int{0, 1}, items)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "Messages.FindAll")
	assert.Contains(t, errs[0].Error(), "repeats")
	assert.Len(t, p.offsets, 2)
}

func TestIterateIsLazyAndStopsOnBreak(t *testing.T) {
	p := pages{n: 100, total: -1, failAt: -1}
	it := iterate(context.Background(), "Op", 10, p.fetch(10))
	assert.Empty(t, p.offsets, "nothing is fetched before the loop starts")
	n := 0
	for range it {
		n++
		if n == 12 {
			break
		}
	}
	assert.Equal(t, []int{0, 10}, p.offsets)
}

func TestSkipIterateCopiesParamsAndCountsFromSkip(t *testing.T) {
	caller := ListParams{Count: 2, Skip: 3}
	var seen []ListParams
	list := func(_ context.Context, lp ListParams) (*Page[int], error) {
		seen = append(seen, lp)
		var out []int
		for i := lp.Skip; i < 8 && len(out) < lp.Count; i++ {
			out = append(out, i)
		}
		return &Page[int]{Items: out, TotalCount: 8}, nil
	}
	items, errs := collect(t, skipIterate(context.Background(), "Op", caller, 50, list))
	assert.Empty(t, errs)
	assert.Equal(t, []int{3, 4, 5, 6, 7}, items)
	assert.Equal(t, []ListParams{{2, 3}, {2, 5}, {2, 7}}, seen)
	assert.Equal(t, ListParams{Count: 2, Skip: 3}, caller, "the caller's params are untouched")
}

func TestSkipIterateDefaultPageSize(t *testing.T) {
	calls := 0
	list := func(_ context.Context, lp ListParams) (*Page[int], error) {
		calls++
		assert.Zero(t, lp.Count, "the service default applies when Count is 0")
		return &Page[int]{Items: seq(3)}, nil
	}
	items, _ := collect(t, skipIterate(context.Background(), "Op", ListParams{}, 50, list))
	assert.Len(t, items, 3)
	assert.Equal(t, 1, calls, "3 < 50: a short page ends the listing")
}

func TestSkipIterateSkipPastTheTotal(t *testing.T) {
	calls := 0
	list := func(_ context.Context, lp ListParams) (*Page[int], error) {
		calls++
		return &Page[int]{Items: []int{1}, TotalCount: 2}, nil
	}
	items, _ := collect(t, skipIterate(context.Background(), "Op", ListParams{Count: 1, Skip: 5}, 50, list))
	assert.Equal(t, []int{1}, items)
	assert.Equal(t, 1, calls)
}

func TestRemaining(t *testing.T) {
	assert.Equal(t, -1, remaining(0, 0))
	assert.Equal(t, 5, remaining(8, 3))
	assert.Equal(t, 0, remaining(2, 5))
	assert.Equal(t, fmt.Sprint(-1), fmt.Sprint(remaining(-3, 0)))
}

// reflectQuery is the general path the typed encoders replace.
func reflectQuery(t *testing.T, q any) string {
	v, err := query.Values(q)
	require.NoError(t, err)
	return v.Encode()
}

func TestTypedQueriesMatchGoQuerystring(t *testing.T) {
	t.Parallel()
	lists := []ListParams{{}, {Count: 50}, {Skip: 7}, {Count: 200, Skip: 400}, {Count: -1, Skip: -2}}
	for _, lp := range lists {
		got, err := encodeQuery(&lp)
		require.NoError(t, err)
		assert.Equal(t, reflectQuery(t, &lp), got, "%+v", lp)
	}
	finds := []wireFindMessages{
		{},
		{DateFrom: 1577836800, DateTo: 1577923200},
		{DateFrom: -5, DateTo: 1, Status: MessageDelivered, Direction: DirectionReceive, ListParams: ListParams{Count: 200, Skip: 200}},
		{DateFrom: 1, DateTo: 2, Status: "a b&c=d/é", Direction: "x+y%z"},
		{DateFrom: 1 << 40, DateTo: 1<<40 + 1, ListParams: ListParams{Skip: 3}},
	}
	for _, q := range finds {
		got, err := encodeQuery(&q)
		require.NoError(t, err)
		assert.Equal(t, reflectQuery(t, &q), got, fmt.Sprintf("%+v", q))
	}
}

// FuzzFindQuery: the typed encoding of a message search is byte for byte
// what go-querystring gives.
func FuzzFindQuery(f *testing.F) {
	f.Add(int64(1577836800), int64(1577923200), "Delivered", "Transmit", 200, 0)
	f.Add(int64(0), int64(-1), "", "a b&c", -1, 5)
	f.Fuzz(func(t *testing.T, from, to int64, status, dir string, count, skip int) {
		q := wireFindMessages{DateFrom: from, DateTo: to, Status: MessageStatus(status), Direction: Direction(dir),
			ListParams: ListParams{Count: count, Skip: skip}}
		v, err := query.Values(&q)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := encodeQuery(&q); got != v.Encode() {
			t.Fatalf("%+v: typed %q, go-querystring %q", q, got, v.Encode())
		}
	})
}

func TestSamePage(t *testing.T) {
	t.Parallel()
	m1, m2 := Message{MessageSid: "MG1", Text: "a"}, Message{MessageSid: "MG2", Text: "b"}
	p1, p2 := Property{PropertySid: "PR1"}, Property{PropertySid: "PR2"}
	l1, l2 := OnlineLogin{Email: "a@example.com"}, OnlineLogin{Email: "b@example.com"}
	cases := []struct {
		name string
		same bool
		got  bool
	}{
		{"messages equal", true, samePage([]Message{m1, m2}, []Message{m1, m2})},
		{"messages differ in one field", false, samePage([]Message{m1, m2}, []Message{m1, {MessageSid: "MG2", Text: "c"}})},
		{"messages differ in length", false, samePage([]Message{m1}, []Message{m1, m2})},
		{"properties equal", true, samePage([]Property{p1, p2}, []Property{p1, p2})},
		{"properties differ", false, samePage([]Property{p1}, []Property{p2})},
		{"other type, equal", true, samePage([]OnlineLogin{l1, l2}, []OnlineLogin{l1, l2})},
		{"other type, first item differs", false, samePage([]OnlineLogin{l1, l2}, []OnlineLogin{l2, l2})},
		{"other type, a later item differs", false, samePage([]OnlineLogin{l1, l1}, []OnlineLogin{l1, l2})},
		{"empty", true, samePage([]OnlineLogin{}, []OnlineLogin{})},
	}
	for _, c := range cases {
		assert.Equal(t, c.same, c.got, c.name)
	}
}

// With WithParallelPages, FindAll and the look-ups by ExternalId read the
// same messages in the same order as one page after another, however the
// service caps its pages, and stop where they should.
func TestParallelPagesReadTheSameHistory(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{pageCap: 30})
	seq := srv.client(t, fastReconcile)
	var batch []SendMessageParams
	for i := range 1000 {
		batch = append(batch, *onceParams(fmt.Sprint("page-", i)))
		if len(batch) == 100 {
			_, err := seq.Messages.SendBatch(bg, testProp, batch)
			require.NoError(t, err)
			batch = batch[:0]
		}
	}
	par := srv.client(t, fastReconcile, WithParallelPages(8))
	window := &FindMessagesParams{DateFrom: time.Now().Add(-time.Hour), DateTo: time.Now().Add(time.Hour), ListParams: ListParams{Count: 30}}
	read := func(c *Client, p *FindMessagesParams, stopAfter int) []string {
		var ids []string
		for m, err := range c.Messages.FindAll(bg, testProp, p) {
			require.NoError(t, err)
			if ids = append(ids, m.ExternalID); len(ids) == stopAfter {
				break
			}
		}
		return ids
	}
	want := read(seq, window, 0)
	require.Len(t, want, 1000)
	assert.Equal(t, want, read(par, window, 0), "the same messages in the same order")
	assert.Equal(t, want[:45], read(par, window, 45), "a loop that stops early")
	from := *window
	from.Skip = 95
	assert.Equal(t, want[95:], read(par, &from, 0), "from the caller's Skip")
	capped := *window
	capped.Count = 0 // the service's 200 asked, 30 given: a short page ends FindAll, as one page after another
	assert.Equal(t, read(seq, &capped, 0), read(par, &capped, 0))

	// The look-ups page until an empty page, in steps of what the service
	// gives.
	found, err := par.Messages.ListByExternalID(bg, testProp, time.Now().Add(-time.Minute), "page-0", "page-517", "page-999")
	require.NoError(t, err)
	assert.Len(t, found, 3)
	for id, ms := range found {
		assert.Len(t, ms, 1, id)
	}
	n, err := srv.client(t, fastReconcile, WithParallelPages(16), WithLedger(NewMemoryLedger())).
		Messages.FillLedger(bg, testProp, time.Now().Add(-time.Hour), time.Now().Add(time.Second))
	require.NoError(t, err)
	assert.Equal(t, 1000, n)

	for _, bad := range []int{-1, MaxParallelPages + 1} {
		_, err := NewClient(testSid, testToken, WithParallelPages(bad))
		assert.Error(t, err, bad)
	}
}
