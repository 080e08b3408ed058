package telcotest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/telcosdk/telco/telcotest"
)

func TestClock_AdvanceSetAndDefaults(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c := telcotest.NewClock(start)
	assert.Equal(t, start, c.Now())
	c.Advance(time.Minute)
	assert.Equal(t, start.Add(time.Minute), c.Now())
	c.Advance(-time.Hour)
	assert.Equal(t, start.Add(time.Minute), c.Now(), "the fake's time never runs back")
	c.Set(start)
	assert.Equal(t, start.Add(time.Minute), c.Now(), "Set to an earlier time is ignored")
	c.Set(start.Add(time.Hour))
	assert.Equal(t, start.Add(time.Hour), c.Now())

	z := telcotest.NewClock(time.Time{})
	assert.WithinDuration(t, time.Now(), z.Now(), time.Minute, "a zero start is the current time")
	assert.Zero(t, z.Now().Nanosecond(), "truncated to the second")
}

// A running clock follows the real one, ahead of it by what Advance and
// Set added; it never runs back either.
func TestClock_Running(t *testing.T) {
	t.Parallel()
	c := telcotest.NewRunningClock()
	before := time.Now()
	now := c.Now()
	assert.False(t, now.Before(before.Add(-time.Millisecond)), "follows the real clock: %v, %v", now, before)
	time.Sleep(20 * time.Millisecond)
	assert.GreaterOrEqual(t, c.Now().Sub(now), 20*time.Millisecond, "moves on by itself")

	c.Advance(30 * time.Minute)
	ahead := time.Until(c.Now())
	assert.InDelta(t, float64(30*time.Minute), float64(ahead), float64(time.Second), "30 minutes ahead: %v", ahead)
	c.Advance(-time.Hour)
	assert.Greater(t, time.Until(c.Now()), 29*time.Minute, "the fake's time never runs back")
	c.Set(time.Now())
	assert.Greater(t, time.Until(c.Now()), 29*time.Minute, "Set to an earlier time is ignored")
	target := time.Now().Add(2 * time.Hour)
	c.Set(target)
	assert.WithinDuration(t, target, c.Now(), time.Second)
}
