package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupts is how SIGHUP, SIGINT and SIGTERM reach a command. The first
// one closes stop and, unless the running command asked to finish its work
// in flight (sms batch, which then stops between chunks), cancels the
// command's context; a second one cancels it in any case. The tool then
// exits with the shell's status for the first signal, 128+N.
type interrupts struct {
	stop   chan struct{}
	cancel context.CancelFunc

	mu       sync.Mutex
	sig      os.Signal
	graceful bool
}

func newInterrupts(cancel context.CancelFunc) *interrupts {
	return &interrupts{stop: make(chan struct{}), cancel: cancel}
}

// listen delivers the process's signals until ctx ends. SIGPIPE is
// caught too, so that a write to a closed pipe (the reader of a batch's
// output hung up) fails with an error the batch handles (it stops after the
// chunks in flight, journal written) instead of killing the process.
func (in *interrupts) listen(ctx context.Context) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case s := <-ch:
				in.deliver(s)
			case <-ctx.Done():
				return
			}
		}
	}()
}

// deliver acts on one signal.
func (in *interrupts) deliver(s os.Signal) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.sig != nil || !in.graceful {
		if in.cancel != nil {
			in.cancel()
		}
	}
	if in.sig == nil {
		in.sig = s
		close(in.stop)
	}
}

// finishInFlight asks that the first signal let the running command
// finish what it is doing.
func (in *interrupts) finishInFlight() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.graceful = true
}

// stopping reports whether a signal has come.
func (in *interrupts) stopping() bool {
	select {
	case <-in.stop:
		return true
	default:
		return false
	}
}

// signal is the first signal received, or nil.
func (in *interrupts) signal() os.Signal {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.sig
}

// exitCode is the shell's status for a process ended by s: 128+N.
func exitCode(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}
