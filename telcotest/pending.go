package telcotest

import (
	"container/heap"
	"time"
)

// pendingQueue holds the sent messages whose status will still change,
// earliest due first (ties in the order they were queued), so that a send
// and a catch-up cost the messages that are due, not every pending one: at
// a few thousand sends a second, scanning all of them on every send and
// every timer made the fake's sending quadratic. It lives in the store,
// under Server.mu.
type pendingQueue struct {
	h   pendingHeap
	seq int
}

type pendingEntry struct {
	at  time.Time // m.due() when queued; it changes only when m is stepped
	seq int
	m   *messageRec
}

// push queues m, due at m.due().
func (q *pendingQueue) push(m *messageRec) {
	q.seq++
	heap.Push(&q.h, pendingEntry{at: m.due(), seq: q.seq, m: m})
}

// popDue removes and returns the earliest message due at or before now,
// or nil when none is.
func (q *pendingQueue) popDue(now time.Time) *messageRec {
	if len(q.h) == 0 || q.h[0].at.After(now) {
		return nil
	}
	return heap.Pop(&q.h).(pendingEntry).m
}

// next is when the earliest pending message is due; zero when none is.
func (q *pendingQueue) next() time.Time {
	if len(q.h) == 0 {
		return time.Time{}
	}
	return q.h[0].at
}

type pendingHeap []pendingEntry

func (h pendingHeap) Len() int { return len(h) }
func (h pendingHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h pendingHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pendingHeap) Push(x any)   { *h = append(*h, x.(pendingEntry)) }
func (h *pendingHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = pendingEntry{}
	*h = old[:len(old)-1]
	return e
}
