package telco

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"sync"
)

// Page is one page of a Results_Skip / Results_Count listing.
type Page[T any] struct {
	Items []T
	// TotalCount is the number of items across all pages, when the service
	// reports it (0 otherwise: message searches do not).
	TotalCount int
	// NextPageToken is passed through as the service sends it; the SDK pages
	// with ListParams.Skip.
	NextPageToken string
}

// ListParams selects a page of a Results_Skip / Results_Count listing. It
// is embedded by the listing params. Zero values are not sent, so the
// service's defaults apply (200 messages; 50 projects, SIP trunks and
// online logins; 20 porting requests).
type ListParams struct {
	Count int `url:"Results_Count,omitempty"` // page size
	Skip  int `url:"Results_Skip,omitempty"`  // items to skip
}

// fetchPage fetches page n (0-based, counted from the caller's start)
// beginning offset items after it, and reports its items and how many items
// the listing holds from the caller's start on, or -1 when the service does
// not say.
type fetchPage[T any] func(ctx context.Context, n, offset int) (items []T, total int, err error)

// iterate is the one lazy iterator behind every All method. It requests a
// page only when the loop needs it and stops:
//   - at an empty page;
//   - when the items seen reach the announced total;
//   - without a total, at a page shorter than size (the requested or default
//     page size);
//   - at the first error, which it yields once;
//   - when a page repeats the previous one, with an error, since a service
//     that ignores the page position would otherwise loop forever;
//   - when the loop breaks.
//
// With a total, a short page does not end the listing: a service may cap
// the page size below the one requested.
func iterate[T any](ctx context.Context, op string, size int, fetch fetchPage[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		var prev []T
		seen := 0
		for n := 0; ; n++ {
			items, total, err := fetch(ctx, n, seen)
			if err != nil {
				yield(zero, err)
				return
			}
			if len(items) == 0 {
				return
			}
			if n > 0 && samePage(items, prev) {
				yield(zero, fmt.Errorf("telco: %s: page %d repeats the previous page; the service ignored the page position", op, n+1))
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			seen += len(items)
			if total >= 0 {
				if seen >= total {
					return
				}
			} else if len(items) < size {
				return
			}
			prev = items
		}
	}
}

// samePage reports whether a page repeats the previous one. It runs once a
// page, and compares the pages deeply only when their first items already
// match, which in a healthy listing they never do.
func samePage[T any](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 0 && !reflect.DeepEqual(a[0], b[0]) {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// remaining turns a listing's announced total into the count from the
// caller's start position: -1 when the service announced none (0).
func remaining(total, start int) int {
	if total <= 0 {
		return -1
	}
	return max(total-start, 0)
}

// skipIterate pages a Results_Skip listing: list is called with a copy of
// the caller's ListParams advanced page by page, so the caller's value is
// never changed. defaultCount is the service's page size when Count is 0.
func skipIterate[T any](ctx context.Context, op string, lp ListParams, defaultCount int,
	list func(ctx context.Context, lp ListParams) (*Page[T], error)) iter.Seq2[T, error] {
	size := lp.Count
	if size <= 0 {
		size = defaultCount
	}
	start := lp.Skip
	return iterate(ctx, op, size, func(ctx context.Context, _, offset int) ([]T, int, error) {
		p := lp
		p.Skip = start + offset
		page, err := list(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		return page.Items, remaining(page.TotalCount, start), nil
	})
}

// WithParallelPages makes the reads of message history (FindAll, and the
// scans behind FindByExternalID, ListByExternalID, FillLedger and
// SendOnce's look-ups) keep up to n page requests in flight, from 1 (the
// default: one page after another) to MaxParallelPages. Pages are still
// requested as the service documents them, by Results_Skip, and handed
// out in order, so a read yields the same messages in the same order
// either way; at most n pages are held at once. Past the last page, up to
// n-1 requests come back empty: the price of not waiting for each page
// before asking for the next. On a service tens of milliseconds away, 8
// pages in flight read a long history in about a seventh of the time
// (BENCHMARKS.md).
func WithParallelPages(n int) Option { return func(c *clientConfig) { c.parallelPages = n } }

// MaxParallelPages bounds WithParallelPages.
const MaxParallelPages = 16

// readAhead calls fetch for pages 0, 1, 2... with up to n requests in
// flight, and hands each page to use in order, until use returns false
// or a fetch fails (its error is returned when its page's turn comes). It
// returns only once every request it made has ended: it cancels those
// still in flight.
func readAhead[T any](ctx context.Context, n int, fetch func(ctx context.Context, page int) ([]T, error), use func(page int, items []T) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	type result struct {
		items []T
		err   error
	}
	var ahead []chan result // in page order
	requested := 0
	for page := 0; ; page++ {
		for len(ahead) < n {
			done := make(chan result, 1)
			ahead = append(ahead, done)
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				items, err := fetch(ctx, k)
				done <- result{items, err}
			}(requested)
			requested++
		}
		r := <-ahead[0]
		ahead = ahead[1:]
		if r.err != nil {
			return r.err
		}
		if !use(page, r.items) {
			return nil
		}
	}
}
