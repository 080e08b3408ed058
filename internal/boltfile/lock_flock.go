//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package boltfile

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockFile takes an flock on f, exclusive or shared, waiting up to
// timeout for another process to release it. It is taken before the file
// is checked, so that no other process writes it meanwhile; bbolt's own
// flock of the same descriptor then succeeds at once.
func lockFile(f *os.File, exclusive bool, timeout time.Duration) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return ErrBusy
		}
		time.Sleep(20 * time.Millisecond)
	}
}
