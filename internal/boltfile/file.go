// Package boltfile opens the bbolt files of the send ledger
// (github.com/telcosdk/telco/boltledger) and of the telco CLI's batch
// journals so that damage cannot turn into a wrong answer or a crash.
//
// bbolt keeps no checksums on its data pages and trusts every page it
// maps, so a damaged file could make a sent message read as never sent,
// or crash the process. This package stands between the two:
//
//   - Open takes an exclusive (or, read-only, a shared) flock before
//     anything is read, waiting for another process up to a timeout;
//   - before bbolt maps the file, Open checks its structure from the bytes
//     on disk (both header pages, every page reachable once, the free list
//     disjoint from the tree, keys in order): a file that fails is refused
//     with a *DamagedError rather than trusted;
//   - every value of a top-level bucket is stored sealed with a CRC-32C
//     over its key and value (Seal); the check reports the values that
//     fail it, a header page that fails its checksum (bbolt then reads the
//     commit before) and pages that hide elements (Check), for the file's
//     owner to decide what they cast doubt on;
//   - bbolt runs on goroutines that turn memory faults into panics
//     (debug.SetPanicOnFault) and recover them: a fault or a panic inside
//     bbolt becomes a *DamagedError and the file refuses any further use.
package boltfile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DefaultTimeout is how long Open waits for another process's lock.
const DefaultTimeout = 5 * time.Second

// ErrBusy is matched by the error of Open when another process holds the
// file past the timeout.
var ErrBusy = errors.New("in use by another process")

// ErrUnreadable is matched by a *DamagedError.
var ErrUnreadable = errors.New("cannot be read")

// ErrReadOnly is matched by the error of Update on a file opened
// read-only.
var ErrReadOnly = errors.New("opened read-only")

// DamagedError says that a file cannot be read at all: what it holds is
// unknown.
type DamagedError struct {
	What   string // what the file is, for the message: "ledger", "journal"
	Path   string
	Reason string
	Err    error // the underlying failure, if any
}

// Error names the file and says what is wrong with it.
func (e *DamagedError) Error() string {
	s := e.What + " " + e.Path + " is damaged: " + e.Reason
	if e.What == "" {
		s = e.Path + " is damaged: " + e.Reason
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying failure.
func (e *DamagedError) Unwrap() error { return e.Err }

// Is makes a *DamagedError match ErrUnreadable.
func (e *DamagedError) Is(target error) bool { return target == ErrUnreadable }

// Options configure Open.
type Options struct {
	// What names the file in errors: "ledger", "journal".
	What string
	// Timeout bounds the wait for another process's lock: DefaultTimeout
	// when 0.
	Timeout time.Duration
	// ReadOnly opens an existing file for reading only, under a shared
	// lock: Update fails, and a missing file is an error matching
	// fs.ErrNotExist.
	ReadOnly bool
}

// File is an open bbolt file, checked and locked. Its methods are safe
// for concurrent use.
type File struct {
	path, what string
	db         *bolt.DB
	readOnly   bool
	check      Check

	mu     sync.Mutex
	broken error // a fault or panic inside bbolt: nothing more is trusted
}

// Open opens the bbolt file at path, creating it (and not its directory,
// with mode 0600) unless o.ReadOnly. It fails with an error matching
// ErrBusy when another process holds it past o.Timeout, and with a
// *DamagedError when the file cannot be read.
func Open(path string, o Options) (*File, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var check *Check
	opts := &bolt.Options{Timeout: timeout, ReadOnly: o.ReadOnly,
		OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, mode)
			if err != nil {
				return nil, err
			}
			if err := lockFile(f, !o.ReadOnly, timeout); err != nil {
				f.Close()
				return nil, err
			}
			// Checked under the lock, before bbolt reads a page.
			err = protect(func() error {
				var err error
				check, err = verifyFile(f)
				return err
			})
			if err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}}
	var db *bolt.DB
	err := protect(func() error {
		var err error
		db, err = bolt.Open(path, 0o600, opts)
		return err
	})
	var de *DamagedError
	switch {
	case err == nil:
	case errors.Is(err, bolterrors.ErrTimeout), errors.Is(err, ErrBusy):
		return nil, fmt.Errorf("%s %s: %w", o.What, path, ErrBusy)
	case errors.As(err, &de):
		de.What, de.Path = o.What, path
		return nil, de
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return nil, err
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrVersionMismatch), errors.Is(err, bolterrors.ErrChecksum):
		return nil, &DamagedError{What: o.What, Path: path, Reason: "not a valid bbolt file", Err: err}
	default:
		return nil, &DamagedError{What: o.What, Path: path, Reason: "opening it failed", Err: err}
	}
	f := &File{path: path, what: o.What, db: db, readOnly: o.ReadOnly}
	if check != nil {
		f.check = *check
	}
	return f, nil
}

// Path is the file's path.
func (f *File) Path() string { return f.path }

// ReadOnly reports whether the file was opened read-only.
func (f *File) ReadOnly() bool { return f.readOnly }

// Check is what the check before opening found.
func (f *File) Check() Check { return f.check }

// Damaged is a *DamagedError for this file.
func (f *File) Damaged(reason string, err error) *DamagedError {
	return &DamagedError{What: f.what, Path: f.path, Reason: reason, Err: err}
}

// View runs fn in a read-only transaction, protected: a fault or panic
// in it breaks the file for good.
func (f *File) View(fn func(*bolt.Tx) error) error {
	return f.protect(func() error { return f.db.View(fn) })
}

// Update runs fn in a read-write transaction, committed (and synced)
// when fn returns nil, protected as View is.
func (f *File) Update(fn func(*bolt.Tx) error) error {
	if f.readOnly {
		return fmt.Errorf("%s %s: %w", f.what, f.path, ErrReadOnly)
	}
	return f.protect(func() error { return f.db.Update(fn) })
}

// Close closes the file and releases its lock.
func (f *File) Close() error {
	if f == nil {
		return nil
	}
	return protect(f.db.Close)
}

func (f *File) protect(fn func() error) error {
	f.mu.Lock()
	broken := f.broken
	f.mu.Unlock()
	if broken != nil {
		return broken
	}
	err := protect(fn)
	var de *DamagedError
	if errors.As(err, &de) && de.Reason == faultReason {
		de.What, de.Path = f.what, f.path
		f.mu.Lock()
		f.broken = de
		f.mu.Unlock()
	}
	return err
}

const faultReason = "reading it faulted"

// protect runs fn on a goroutine of its own whose memory faults (bbolt
// reading a page past the end of a truncated file, say) are panics, and
// turns a panic into a *DamagedError.
func protect(fn func() error) (err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		debug.SetPanicOnFault(true)
		defer func() {
			if r := recover(); r != nil {
				err = &DamagedError{Reason: faultReason, Err: fmt.Errorf("%v", r)}
			}
		}()
		err = fn()
	}()
	<-done
	return err
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Seal prefixes payload with the CRC-32C of key and payload: how every
// value of a top-level bucket is stored.
func Seal(key, payload []byte) []byte {
	sum := crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, payload)
	out := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(payload)), sum)
	return append(out, payload...)
}

// PutJSON stores v, as JSON, sealed under key in the top-level bucket
// (made when missing): how a ledger and a journal write their headers.
func PutJSON(tx *bolt.Tx, bucket, key []byte, v any) error {
	b, err := tx.CreateBucketIfNotExists(bucket)
	if err != nil {
		return err
	}
	payload, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, Seal(key, payload))
}

// Unseal returns the payload of a sealed value whose checksum holds.
func Unseal(key, v []byte) ([]byte, bool) {
	if len(v) < 5 {
		return nil, false
	}
	sum := crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, v[4:])
	return v[4:], sum == binary.BigEndian.Uint32(v)
}
