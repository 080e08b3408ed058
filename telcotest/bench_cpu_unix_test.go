//go:build unix

package telcotest_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the whole process has used, user and system:
// on a machine shared with other work it counts what a call costs rather
// than how long it waited for a core.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
