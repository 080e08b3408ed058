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
