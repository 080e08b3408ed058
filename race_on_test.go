//go:build race

package telco

// raceDetector is true under -race, which adds allocations of its own:
// TestAllocationsPerCall pins counts only without it.
const raceDetector = true
