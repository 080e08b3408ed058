//go:build !unix

package telcotest_test

import "time"

// processCPU is not measured here: the benchmarks report elapsed time only.
func processCPU() (time.Duration, bool) { return 0, false }
