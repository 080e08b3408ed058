package telcotest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind, a
// server's handler or a client's connection included.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
