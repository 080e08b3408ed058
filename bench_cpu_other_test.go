//go:build !unix

package telco

import "time"

// processCPU is not measured here; BenchmarkRatio then reports wall time
// only.
func processCPU() (time.Duration, bool) { return 0, false }
