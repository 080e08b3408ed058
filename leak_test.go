package telco

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: a call
// that was cancelled or timed out, an iterator abandoned half-way, a
// retry wait. Idle keep-alive connections of clients that tests dropped
// would look like leaks too, so every test closes what it opened.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
