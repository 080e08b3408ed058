//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package boltfile

import (
	"os"
	"time"
)

// lockFile leaves the lock to bbolt, which takes it (waiting up to its
// Timeout) right after the file is checked.
func lockFile(*os.File, bool, time.Duration) error { return nil }
