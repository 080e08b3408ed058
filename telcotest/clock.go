package telcotest

import (
	"sync"
	"time"
)

// Clock is a clock for the fake that a test moves on. A manual one
// (NewClock) stands still until the test moves it with Advance or Set; a
// running one (NewRunningClock) follows the real clock, ahead of it by
// what Advance and Set added. Hand it to NewServer with WithClock to
// control every time the fake uses: Created, Submitted and Delivered
// timestamps, the schedule window, when scheduled messages go out, lease
// expiry and the porting status window. One Clock may drive several
// servers. It is safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	// now is a manual clock's time; ahead is how far a running clock is
	// ahead of the real one. running never changes.
	now       time.Time
	running   bool
	ahead     time.Duration
	listeners map[int]func()
	nextID    int
}

// NewClock returns a clock that reads start until it is moved. A zero
// start means the current time, truncated to the second so that the Unix
// second timestamps of the service compare exactly.
func NewClock(start time.Time) *Clock {
	if start.IsZero() {
		start = time.Now().Truncate(time.Second)
	}
	return &Clock{now: start, listeners: map[int]func(){}}
}

// NewRunningClock returns a clock that follows the real clock: messages
// go out and change status as time passes, as on a server without a
// Clock, and Advance moves it ahead of the real time, so that a message
// scheduled 30 minutes ahead goes out once it has moved 30 minutes. It is
// the clock of a server with WithAdmin and no WithClock (`telco mock`).
func NewRunningClock() *Clock {
	return &Clock{running: true, listeners: map[int]func(){}}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() time.Time {
	if c.running {
		return time.Now().Add(c.ahead)
	}
	return c.now
}

// follows reports whether the clock moves on by itself. running is set
// when the clock is made and never changes: no lock is needed.
func (c *Clock) follows() bool { return c.running }

// Advance moves the clock d forward (a negative d is ignored: the fake's
// time never runs back) and lets every server on it catch up: messages
// change status and their webhooks are sent (asynchronously; Server.Flush
// waits for them).
func (c *Clock) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	c.mu.Lock()
	if c.running {
		c.ahead += d
	} else {
		c.now = c.now.Add(d)
	}
	c.mu.Unlock()
	c.notify()
}

// Set moves the clock to t, which must not be before the clock's time
// (an earlier t is ignored), and lets every server on it catch up as
// Advance does.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	if now := c.nowLocked(); t.After(now) {
		if c.running {
			c.ahead += t.Sub(now)
		} else {
			c.now = t
		}
	}
	c.mu.Unlock()
	c.notify()
}

// notify runs the listeners outside the clock's lock: they lock their
// server, which itself reads the clock.
func (c *Clock) notify() {
	c.mu.Lock()
	fs := make([]func(), 0, len(c.listeners))
	for _, f := range c.listeners {
		fs = append(fs, f)
	}
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// listen registers f to run after each move and returns its removal.
func (c *Clock) listen(f func()) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextID
	c.nextID++
	c.listeners[id] = f
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.listeners, id)
	}
}
