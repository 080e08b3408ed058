package telco

// The service's clock, as look-ups by ExternalId need it: a message's
// Created is stamped by the service, so the window a look-up searches is
// placed on the service's clock, learnt from the Date header of the
// answers to the look-ups' own searches.

import (
	"net/http"
	"sync"
	"time"
)

// serviceClock estimates the offset of the service's clock from the
// caller's. A Date header D (whole seconds, rounded down) answering a
// request sent at local time s and received at r says the service's time
// was in [D, D+1) at a local time in [s, r], so its offset is in
// [D-r, D+1-s]. Samples are intersected, which narrows the interval to
// well under a second once answers come in every second; the intersection
// restarts when it comes out empty (a clock was stepped) or is older than
// a minute, so drift cannot accumulate in it.
type serviceClock struct {
	mu      sync.Mutex
	lo, hi  time.Duration // offset bounds: service minus local
	epoch   time.Time     // when the current intersection began (local)
	samples int
}

// clockEpoch is how long samples are intersected before starting afresh.
const clockEpoch = time.Minute

// observe learns from one answer's Date header, and returns its Unix
// seconds; false when the header is missing or unreadable.
func (c *serviceClock) observe(date string, sent, recv time.Time) (int64, bool) {
	t, err := http.ParseTime(date)
	if err != nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	lo, hi := t.Sub(recv), t.Add(time.Second).Sub(sent)
	if c.samples > 0 && recv.Sub(c.epoch) < clockEpoch && max(lo, c.lo) <= min(hi, c.hi) {
		c.lo, c.hi = max(lo, c.lo), min(hi, c.hi)
	} else {
		c.lo, c.hi, c.epoch = lo, hi, recv
	}
	c.samples++
	return t.Unix(), true
}

// bounds returns the offset interval, and false before any Date header.
func (c *serviceClock) bounds() (lo, hi time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lo, c.hi, c.samples > 0
}

// window places a search for messages created between the local times
// since and now on the service's clock, in the whole seconds Find takes:
// from (inclusive) rounded down, to (exclusive) the second after the last
// one that can hold a message created by now.
func window(since, now time.Time, lo, hi, skew time.Duration) (from, to int64) {
	return since.Add(lo - skew).Unix(), now.Add(hi+skew).Unix() + 1
}
