// Package boltledger keeps the telco SDK's send ledger (telco.Ledger) in
// one bbolt file, for the telco CLI: the journal of sms batch and the
// ledger of sms send --external-id.
//
// bbolt keeps no checksums on its data pages and trusts every page it
// maps, so a damaged file could make a sent message read as never sent,
// or crash the process. Three things stand between a damaged file and a
// second send:
//
//   - every record is stored with a CRC-32C over its key and value; a
//     record that fails it, cannot be decoded or has a state this version
//     does not know is handed to the SDK in doubt, so that it is looked
//     up before anything is sent;
//   - before bbolt maps the file, Open checks its structure from the
//     bytes on disk (both header pages, every page reachable once, the
//     free list disjoint from the tree, keys in order): a file that fails
//     is refused with a *DamagedError rather than trusted;
//   - damage that may have lost a record without a trace (a record whose
//     key cannot be trusted, a header page that fails its checksum, which
//     makes bbolt fall back to the commit before, a missing records
//     bucket) casts doubt on the whole ledger: every record written
//     before, and every key without a record, reads as in doubt unless
//     it says sent.
//
// bbolt runs on goroutines that turn memory faults into panics
// (debug.SetPanicOnFault) and recover them: a fault or a panic inside
// bbolt becomes a *DamagedError and the ledger refuses any further use.
//
// The file is opened exclusively (an flock, waited for up to a timeout):
// while it is open no other process uses it, so a record left sending by
// an earlier process is read as in doubt, its attempt ended by the time
// the file was opened.
package boltledger

import (
	"bytes"
	"context"
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

	"github.com/telcosdk/telco"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// formatName marks a ledger file of this package in its header record.
const formatName = "telco-ledger/1"

var (
	bucketMeta    = []byte("meta")
	bucketRecords = []byte("records")
	keyMeta       = []byte("meta")
)

// DefaultTimeout is how long Open waits for another process's lock.
const DefaultTimeout = 5 * time.Second

// ErrBusy is matched by the error of Open when another process holds the
// file past the timeout.
var ErrBusy = errors.New("in use by another telco process")

// ErrUnreadable is matched by a *DamagedError.
var ErrUnreadable = errors.New("cannot be read")

// DamagedError says that a ledger file cannot be read at all: what it
// holds is unknown, and messages it recorded may have been sent.
type DamagedError struct {
	Path   string
	Reason string
	Err    error // the underlying failure, if any
}

func (e *DamagedError) Error() string {
	s := "ledger " + e.Path + " is damaged: " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *DamagedError) Unwrap() error { return e.Err }

// Is makes a *DamagedError match ErrUnreadable.
func (e *DamagedError) Is(target error) bool { return target == ErrUnreadable }

// FormatError says that the file is a bbolt file but not a ledger of this
// version (an sms batch journal of an earlier telco, say).
type FormatError struct {
	Path string
	// Old is the header of an earlier journal, as it was written, when
	// the file is one: its BatchID and Created say how to recover it.
	Old json.RawMessage
}

func (e *FormatError) Error() string {
	if e.Old != nil {
		return "ledger " + e.Path + " was written by an earlier version of telco"
	}
	return "ledger " + e.Path + " is not a telco ledger"
}

// Options configure Open.
type Options struct {
	// Timeout bounds the wait for another process's lock: DefaultTimeout
	// when 0.
	Timeout time.Duration
	// ReadOnly opens an existing file for reading only (a shared lock):
	// Update fails, and a missing file is an error matching
	// fs.ErrNotExist.
	ReadOnly bool
	// App is what the program keeps beside the records (see SetApp) in a
	// ledger Open creates, written with its header, so that no ledger is
	// ever without it, however the process ends.
	App any
}

// header is the ledger's own record, in the meta bucket.
type header struct {
	Format  string // formatName, first so that Salvage can find it
	Created time.Time
	// Epoch stamps every record written; it grows each time doubt is
	// cast, so that records written since are trusted again.
	Epoch int
	// DoubtBefore: records stamped with an earlier epoch, and keys with
	// no record, read as in doubt unless sent. 0 when no doubt was cast.
	DoubtBefore int `json:",omitempty"`
	// DoubtFrom is the lower bound of the first attempt of a message in
	// doubt by DoubtBefore (the ledger's creation, or --since).
	DoubtFrom time.Time
	// Damage lists the damaged entries already accounted for (hashes of
	// their bytes), so that finding them again casts no new doubt.
	Damage []string `json:",omitempty"`
	// App is what the program keeps beside the records.
	App json.RawMessage `json:",omitempty"`
}

// stored is a record as written: the epoch it was written in and the
// SDK's record.
type stored struct {
	E int
	R telco.LedgerRecord
}

// Ledger is a telco.Ledger in a bbolt file. Its methods are safe for
// concurrent use.
type Ledger struct {
	path     string
	db       *bolt.DB
	readOnly bool
	// opened is when the file was opened: any attempt of an earlier
	// process had ended by then.
	opened time.Time

	mu     sync.Mutex
	head   header
	fresh  bool
	found  string          // the damage Open found, for Doubt
	mine   map[string]bool // keys this process claimed (LedgerSending)
	broken error           // a fault or panic inside bbolt: nothing more is trusted
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Open opens the ledger at path, creating it (and not its directory)
// unless o.ReadOnly. It fails with an error matching ErrBusy when another
// process holds it past o.Timeout, a *DamagedError when the file cannot
// be read, and a *FormatError when it is not a ledger of this version.
func Open(path string, o Options) (*Ledger, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var check *fileCheck
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
		return nil, fmt.Errorf("ledger %s: %w", path, ErrBusy)
	case errors.As(err, &de):
		de.Path = path
		return nil, de
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return nil, err
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrVersionMismatch), errors.Is(err, bolterrors.ErrChecksum):
		return nil, &DamagedError{Path: path, Reason: "not a valid bbolt file", Err: err}
	default:
		return nil, &DamagedError{Path: path, Reason: "opening it failed", Err: err}
	}
	l := &Ledger{path: path, db: db, readOnly: o.ReadOnly, opened: time.Now(), mine: map[string]bool{}}
	var app json.RawMessage
	if o.App != nil {
		if app, err = json.Marshal(o.App); err != nil {
			_ = l.protect(db.Close)
			return nil, err
		}
	}
	if err := l.protect(func() error { return l.load(check, app) }); err != nil {
		_ = l.protect(db.Close)
		var fe *FormatError
		if errors.As(err, &fe) || errors.As(err, &de) {
			return nil, err
		}
		return nil, &DamagedError{Path: path, Reason: "reading its header failed", Err: err}
	}
	return l, nil
}

// load reads the header (writing a new one for a new file) and casts
// doubt for the damage the file check found or the header shows.
func (l *Ledger) load(check *fileCheck, app json.RawMessage) error {
	read := func(tx *bolt.Tx) (bool, error) {
		mb := tx.Bucket(bucketMeta)
		if mb == nil {
			empty := true
			_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
			if !empty {
				if tx.Bucket(bucketRecords) != nil {
					return false, &DamagedError{Path: l.path, Reason: "its header is missing"}
				}
				return false, &FormatError{Path: l.path}
			}
			return false, nil
		}
		v := mb.Get(keyMeta)
		payload, ok := unseal(keyMeta, v)
		var old struct{ Version int }
		if !ok && json.Unmarshal(v, &old) == nil && old.Version > 0 {
			// An sms batch journal of an earlier telco: plain JSON.
			return false, &FormatError{Path: l.path, Old: append(json.RawMessage(nil), v...)}
		}
		if !ok || json.Unmarshal(payload, &l.head) != nil {
			return false, &DamagedError{Path: l.path, Reason: "its header record fails its checksum"}
		}
		if l.head.Format != formatName {
			return false, &FormatError{Path: l.path}
		}
		return true, nil
	}
	var reasons []string
	doubt := func(tx *bolt.Tx) {
		if check != nil && check.rolledBack {
			reasons = append(reasons, "a header page failed its checksum (the last change may be lost)")
		}
		if tx.Bucket(bucketRecords) == nil && !l.fresh {
			reasons = append(reasons, "its records are missing")
		}
		if check != nil {
			known := map[string]bool{}
			for _, d := range l.head.Damage {
				known[d] = true
			}
			news := func(ids []string) int {
				n := 0
				for _, d := range ids {
					if !known[d] {
						known[d] = true
						n++
						l.head.Damage = append(l.head.Damage, d)
					}
				}
				return n
			}
			if n := news(check.damaged); n > 0 {
				reasons = append(reasons, fmt.Sprintf("%d records fail their checksum", n))
			}
			if n := news(check.hidden); n > 0 {
				reasons = append(reasons, fmt.Sprintf("%d pages hold more than their elements say (records may be hidden)", n))
			}
		}
	}
	if l.readOnly {
		return l.db.View(func(tx *bolt.Tx) error {
			ok, err := read(tx)
			if err != nil {
				return err
			}
			if !ok {
				return &FormatError{Path: l.path}
			}
			doubt(tx)
			if len(reasons) > 0 {
				l.castDoubt(l.head.Created, reasons)
			}
			return nil
		})
	}
	return l.db.Update(func(tx *bolt.Tx) error {
		ok, err := read(tx)
		if err != nil {
			return err
		}
		if !ok {
			l.fresh = true
			l.head = header{Format: formatName, Created: time.Now().UTC(), Epoch: 1, App: app}
		}
		doubt(tx)
		if len(reasons) > 0 {
			l.castDoubt(l.head.Created, reasons)
		}
		if _, err := tx.CreateBucketIfNotExists(bucketRecords); err != nil {
			return err
		}
		return l.putHeader(tx)
	})
}

// castDoubt starts a new epoch in which the records of earlier ones, and
// keys without a record, read as in doubt from from. The caller writes
// the header (or holds it in memory, read-only).
func (l *Ledger) castDoubt(from time.Time, reasons []string) {
	l.head.Epoch++
	l.head.DoubtBefore = l.head.Epoch
	if l.head.DoubtFrom.IsZero() || from.Before(l.head.DoubtFrom) {
		l.head.DoubtFrom = from.UTC()
	}
	if l.found != "" {
		reasons = append([]string{l.found}, reasons...)
	}
	l.found = joinReasons(reasons)
	if l.readOnly {
		// Nothing is written in this epoch: every record is of an earlier one.
		l.head.DoubtBefore = l.head.Epoch + 1
	}
}

func joinReasons(rs []string) string {
	var b bytes.Buffer
	for i, r := range rs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r)
	}
	return b.String()
}

func (l *Ledger) putHeader(tx *bolt.Tx) error {
	b, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	payload, err := json.Marshal(&l.head)
	if err != nil {
		return err
	}
	return b.Put(keyMeta, seal(keyMeta, payload))
}

// Path is the file's path.
func (l *Ledger) Path() string { return l.path }

// Fresh reports whether Open created the ledger.
func (l *Ledger) Fresh() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fresh
}

// Created is when the ledger was created, or last Reset.
func (l *Ledger) Created() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head.Created
}

// Doubt reports whether doubt is cast on the ledger: every message it
// does not record as sent is looked up, from the time returned, before it
// is sent. found says what damage this Open found ("" for none: the doubt
// was cast before, or by CastDoubt).
func (l *Ledger) Doubt() (from time.Time, found string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head.DoubtFrom, l.found, l.head.DoubtBefore > 0
}

// App decodes what the program keeps beside the records into v; false
// when nothing is kept.
func (l *Ledger) App(v any) (bool, error) {
	l.mu.Lock()
	raw := l.head.App
	l.mu.Unlock()
	if len(raw) == 0 {
		return false, nil
	}
	return true, json.Unmarshal(raw, v)
}

// SetApp keeps v (as JSON) beside the records.
func (l *Ledger) SetApp(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return l.writeHeader(func(h *header) { h.App = raw })
}

// CastDoubt makes every message the ledger does not record as sent (and
// every one it has no record of) in doubt, looked up from from before it
// is sent: for a ledger that replaces a damaged one.
func (l *Ledger) CastDoubt(from time.Time) error {
	return l.writeHeader(func(*header) { l.castDoubt(from, nil) })
}

// Reset forgets every record and any doubt: for a batch sent again as a
// new one (sms batch --force), whose messages have new ExternalIds.
func (l *Ledger) Reset() error {
	if err := l.writable(); err != nil {
		return err
	}
	return l.protect(func() error {
		return l.db.Update(func(tx *bolt.Tx) error {
			if tx.Bucket(bucketRecords) != nil {
				if err := tx.DeleteBucket(bucketRecords); err != nil {
					return err
				}
			}
			if _, err := tx.CreateBucket(bucketRecords); err != nil {
				return err
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			l.head.Created = time.Now().UTC()
			l.head.Epoch++
			l.head.DoubtBefore, l.head.DoubtFrom, l.head.Damage, l.found = 0, time.Time{}, nil, ""
			l.mine = map[string]bool{}
			return l.putHeader(tx)
		})
	})
}

// writeHeader changes the header with fn and writes it.
func (l *Ledger) writeHeader(fn func(*header)) error {
	if err := l.writable(); err != nil {
		return err
	}
	return l.protect(func() error {
		return l.db.Update(func(tx *bolt.Tx) error {
			l.mu.Lock()
			defer l.mu.Unlock()
			fn(&l.head)
			return l.putHeader(tx)
		})
	})
}

var errReadOnly = errors.New("opened read-only")

func (l *Ledger) writable() error {
	if l.readOnly {
		return fmt.Errorf("ledger %s: %w", l.path, errReadOnly)
	}
	return nil
}

// Update is telco.Ledger's: fn runs on the records of propertySid's
// externalIDs in one bbolt transaction, which stores what it leaves.
func (l *Ledger) Update(ctx context.Context, propertySid string, externalIDs []string, fn func(recs []telco.LedgerRecord) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.writable(); err != nil {
		return err
	}
	return l.protect(func() error {
		return l.db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(bucketRecords)
			if err != nil {
				return err
			}
			keys := make([][]byte, len(externalIDs))
			had := make([]bool, len(externalIDs))
			recs := make([]telco.LedgerRecord, len(externalIDs))
			for i, id := range externalIDs {
				keys[i] = recordKey(propertySid, id)
				v := b.Get(keys[i])
				had[i] = v != nil
				recs[i] = l.decode(keys[i], v, propertySid, id)
			}
			if err := fn(recs); err != nil {
				return err
			}
			l.mu.Lock()
			epoch := l.head.Epoch
			l.mu.Unlock()
			for i, id := range externalIDs {
				r := recs[i]
				r.PropertySid, r.ExternalID = propertySid, id
				if !had[i] && r.State == telco.LedgerNew && r.Attempts == 0 {
					continue // nothing to remember
				}
				payload, err := json.Marshal(stored{E: epoch, R: r})
				if err != nil {
					return err
				}
				if err := b.Put(keys[i], seal(keys[i], payload)); err != nil {
					return err
				}
				if r.State == telco.LedgerSending {
					l.mu.Lock()
					l.mine[string(keys[i])] = true
					l.mu.Unlock()
				}
			}
			return nil
		})
	})
}

// Records returns the records of propertySid's externalIDs as Update
// would hand them to the SDK, without changing them.
func (l *Ledger) Records(ctx context.Context, propertySid string, externalIDs []string) ([]telco.LedgerRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	recs := make([]telco.LedgerRecord, len(externalIDs))
	err := l.protect(func() error {
		return l.db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketRecords)
			for i, id := range externalIDs {
				k := recordKey(propertySid, id)
				var v []byte
				if b != nil {
					v = b.Get(k)
				}
				recs[i] = l.decode(k, v, propertySid, id)
			}
			return nil
		})
	})
	return recs, err
}

// decode turns a stored value into the record the SDK sees: unreadable
// or unknown means in doubt.
func (l *Ledger) decode(key, v []byte, prop, id string) telco.LedgerRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	bound := l.head.Created
	if !l.head.DoubtFrom.IsZero() && l.head.DoubtFrom.Before(bound) {
		bound = l.head.DoubtFrom
	}
	inDoubt := telco.LedgerRecord{PropertySid: prop, ExternalID: id, State: telco.LedgerInDoubt, First: bound, Ended: l.opened}
	if v == nil {
		if l.head.DoubtBefore > 0 {
			return inDoubt
		}
		return telco.LedgerRecord{PropertySid: prop, ExternalID: id}
	}
	payload, ok := unseal(key, v)
	if !ok {
		return inDoubt
	}
	var s stored
	if json.Unmarshal(payload, &s) != nil {
		return inDoubt
	}
	r := s.R
	r.PropertySid, r.ExternalID = prop, id
	switch r.State {
	case telco.LedgerNew, telco.LedgerSending, telco.LedgerInDoubt, telco.LedgerSent, telco.LedgerRefused, telco.LedgerNotSent:
	default:
		return inDoubt // written by a newer version, or wrong: not trusted
	}
	if r.State == telco.LedgerSent && r.Message == nil {
		return inDoubt
	}
	stale := s.E < l.head.DoubtBefore && r.State != telco.LedgerSent
	if stale || (r.State == telco.LedgerSending && !l.mine[string(key)]) {
		// A claim of a process that is gone, or a record a lost write may
		// have changed: its attempt ended by the time the file was opened.
		r.State, r.Claim = telco.LedgerInDoubt, time.Time{}
		if r.Ended.Before(l.opened) {
			r.Ended = l.opened
		}
		if r.First.IsZero() {
			r.First = bound
		}
	}
	return r
}

// recordKey is the key of a record: the property SID's length, the SID
// and the ExternalId.
func recordKey(prop, id string) []byte {
	k := binary.AppendUvarint(nil, uint64(len(prop)))
	k = append(k, prop...)
	return append(k, id...)
}

// seal prefixes payload with the CRC-32C of key and payload.
func seal(key, payload []byte) []byte {
	sum := crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, payload)
	out := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(payload)), sum)
	return append(out, payload...)
}

// unseal returns the payload of a sealed value whose checksum holds.
func unseal(key, v []byte) ([]byte, bool) {
	if len(v) < 5 {
		return nil, false
	}
	sum := crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, v[4:])
	return v[4:], sum == binary.BigEndian.Uint32(v)
}

// Close closes the file and releases its lock.
func (l *Ledger) Close() error {
	if l == nil {
		return nil
	}
	return protect(l.db.Close)
}

// protect runs fn as the ledger's bbolt access: a fault or panic in it
// breaks the ledger for good.
func (l *Ledger) protect(fn func() error) error {
	l.mu.Lock()
	broken := l.broken
	l.mu.Unlock()
	if broken != nil {
		return broken
	}
	err := protect(fn)
	var de *DamagedError
	if errors.As(err, &de) && de.Reason == faultReason {
		de.Path = l.path
		l.mu.Lock()
		l.broken = de
		l.mu.Unlock()
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
