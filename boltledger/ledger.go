// Package boltledger keeps a telco send ledger (a telco.Ledger) in one
// bbolt file on disk, so that Messages.SendOnce and SendBatchOnce send an
// ExternalId once across runs of a program: a job run twice by cron, a
// program restarted after a crash, the telco CLI's sms send and sms batch.
//
// # What "once" means
//
// Once per ledger file. A Client given the ledger (telco.WithLedger)
// records every attempt of an ExternalId in the file before its request,
// and its outcome after. Any later send of that ExternalId in the same
// project through the same file, by this process or another, is answered
// from the record (sent: no request; in doubt: looked up at the service
// first; the same ExternalId with another message: refused with
// telco.ErrExternalIDReused). A file knows only what was sent through it:
// another file, a memory ledger, or a plain Messages.Send share nothing
// with it.
//
// # Sharing one
//
// Open the same path. One process holds the file at a time (an flock
// taken by Open, released by Close): Open waits up to Options.Timeout
// (DefaultTimeout, 5 s) for another process's hold, then fails with an
// error matching ErrBusy, nothing sent. Hold a ledger while you send and
// close it after, so that others wait only that long. The lock is a local
// file lock: share a file between the processes of one machine, not over
// a network file system. Processes on several machines share a ledger in
// a database instead, such as contrib/riversend's Postgres ledger.
//
// The telco CLI keeps one such file per service and account in the
// user's state directory ($XDG_STATE_HOME/telco/ledgers/, named after the
// account SID and the service's host) and holds it while a command sends
// (all of a batch); a program that opens that file shares the CLI's
// records, and its Open waits for the CLI as the CLI's commands wait for
// each other.
//
// # Damage
//
// bbolt keeps no checksums on its data pages and trusts every page it
// maps. So that a damaged file can never make a sent message read as
// never sent, every record is sealed with a CRC-32C, and the file's
// structure is checked from its bytes before bbolt maps it. A record that
// fails its checksum, cannot be decoded or has a state this version does
// not know is handed to the SDK in doubt: it is looked up at the service
// before anything is sent. Damage that may have lost records without a
// trace (a header page that fails its checksum, which makes bbolt read the
// commit before; a page hiding elements; a records bucket gone) casts
// doubt on the whole ledger: every key it does not record as sent is
// looked up first, from the ledger's creation (Doubt reports it). A file
// that cannot be read at all is refused with a *DamagedError; Recover
// moves it aside and starts a new ledger that looks up, from a time you
// give, everything it does not know.
//
// A record left sending by a process that is gone (killed mid-send) reads
// as in doubt: the lock proves its maker no longer holds it.
package boltledger

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/boltfile"
	bolt "go.etcd.io/bbolt"
)

// formatName marks a ledger file of this package in its header record.
const formatName = "telco-ledger/1"

var (
	bucketMeta    = []byte("meta")
	bucketRecords = []byte("records")
	keyMeta       = []byte("meta")
)

// DefaultTimeout is how long Open waits for another process's hold on
// the file.
const DefaultTimeout = boltfile.DefaultTimeout

// ErrBusy is matched by the error of Open when another process holds the
// file past the timeout: nothing was read or sent.
var ErrBusy = boltfile.ErrBusy

// ErrUnreadable is matched by a *DamagedError.
var ErrUnreadable = boltfile.ErrUnreadable

// DamagedError says that a ledger file cannot be read at all: what it
// holds is unknown, and messages it recorded may have been sent. Its
// Reason says what is wrong; Recover replaces the file.
type DamagedError = boltfile.DamagedError

// FormatError says that the file is a bbolt file but not a ledger of this
// version: the telco CLI's batch journal, say, or another program's file.
type FormatError struct {
	Path string
}

// Error names the file.
func (e *FormatError) Error() string { return "ledger " + e.Path + " is not a telco ledger" }

// Options configure OpenWith.
type Options struct {
	// Timeout bounds the wait for another process's hold on the file:
	// DefaultTimeout when 0.
	Timeout time.Duration
	// ReadOnly opens an existing file for reading only (Records), under a
	// shared lock: Update fails, and a missing file is an error matching
	// fs.ErrNotExist.
	ReadOnly bool
}

// header is the ledger's own record, in the meta bucket.
type header struct {
	Format  string // formatName, first so that Recover can find it in a damaged file
	Created time.Time
	// Epoch stamps every record written; it grows each time doubt is
	// cast, so that records written since are trusted again.
	Epoch int
	// DoubtBefore: records stamped with an earlier epoch, and keys with
	// no record, read as in doubt unless sent. 0 when no doubt was cast.
	DoubtBefore int `json:",omitempty"`
	// DoubtFrom is the lower bound of the first attempt of a message in
	// doubt by DoubtBefore (the ledger's creation, or Recover's since).
	DoubtFrom time.Time
	// Damage lists the damaged entries already accounted for (hashes of
	// their bytes), so that finding them again casts no new doubt.
	Damage []string `json:",omitempty"`
}

// stored is a record as written: the epoch it was written in and the
// SDK's record.
type stored struct {
	E int
	R telco.LedgerRecord
}

// Ledger is a telco.Ledger in a bbolt file, from Open. Its methods are
// safe for concurrent use; the file stays held by this process until
// Close.
type Ledger struct {
	f      *boltfile.File
	opened time.Time

	mu    sync.Mutex
	head  header
	fresh bool
	found string          // the damage Open found, for Doubt
	mine  map[string]bool // keys this process claimed (LedgerSending)
}

var _ telco.Ledger = (*Ledger)(nil)

// Open opens the ledger file at path, creating it (mode 0600; not its
// directory) when there is none, and holds it until Close. It waits up to
// DefaultTimeout for another process that holds it, then fails with an
// error matching ErrBusy. A file that cannot be read is a *DamagedError,
// one that is not a ledger a *FormatError.
func Open(path string) (*Ledger, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options: another wait for the lock, or a
// read-only ledger.
func OpenWith(path string, o Options) (*Ledger, error) {
	f, err := boltfile.Open(path, boltfile.Options{What: "ledger", Timeout: o.Timeout, ReadOnly: o.ReadOnly})
	if err != nil {
		return nil, err
	}
	l := &Ledger{f: f, opened: time.Now(), mine: map[string]bool{}}
	if err := l.load(); err != nil {
		_ = f.Close()
		var fe *FormatError
		var de *DamagedError
		if errors.As(err, &fe) || errors.As(err, &de) {
			return nil, err
		}
		return nil, f.Damaged("reading its header failed", err)
	}
	return l, nil
}

// Recover replaces a ledger file that cannot be read (a *DamagedError,
// or a *FormatError) with a new one: the file is moved aside to
// path.damaged-<UTC time>, kept for inspection, and in the new ledger
// every ExternalId is in doubt, looked up at the service from since (when
// the ledger was first used, at the latest) before it is sent. movedTo
// names where the old file went. A ledger that opens is returned as Open
// returns it, untouched, with movedTo "".
func Recover(path string, since time.Time, o Options) (l *Ledger, movedTo string, err error) {
	o.ReadOnly = false
	l, err = OpenWith(path, o)
	var fe *FormatError
	switch {
	case err == nil:
		return l, "", nil
	case errors.Is(err, ErrUnreadable), errors.As(err, &fe):
	default:
		return nil, "", err
	}
	if movedTo, err = boltfile.MoveAside(path, time.Now()); err != nil {
		return nil, "", fmt.Errorf("moving ledger %s aside: %w", path, err)
	}
	if l, err = OpenWith(path, o); err != nil {
		return nil, movedTo, err
	}
	if err := l.writeHeader(func(*header) { l.castDoubt(since, nil) }); err != nil {
		_ = l.Close()
		return nil, movedTo, err
	}
	return l, movedTo, nil
}

// load reads the header (writing a new one for a new file) and casts
// doubt for the damage the file check found or the header shows.
func (l *Ledger) load() error {
	check := l.f.Check()
	read := func(tx *bolt.Tx) (bool, error) {
		mb := tx.Bucket(bucketMeta)
		if mb == nil {
			empty := true
			_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
			if !empty {
				if tx.Bucket(bucketRecords) != nil {
					return false, l.f.Damaged("its header is missing", nil)
				}
				return false, &FormatError{Path: l.f.Path()}
			}
			return false, nil
		}
		v := mb.Get(keyMeta)
		payload, ok := boltfile.Unseal(keyMeta, v)
		var old struct{ Version int }
		switch {
		case !ok && json.Unmarshal(v, &old) == nil && old.Version > 0:
			return false, &FormatError{Path: l.f.Path()} // an early batch journal of the CLI: plain JSON
		case !ok:
			return false, l.f.Damaged("its header record fails its checksum", nil)
		}
		var h header
		if json.Unmarshal(payload, &h) != nil || h.Format != formatName {
			// Another file of sealed records: the CLI's batch journal.
			return false, &FormatError{Path: l.f.Path()}
		}
		l.head = h
		return true, nil
	}
	var reasons []string
	doubt := func(tx *bolt.Tx) {
		if check.RolledBack {
			reasons = append(reasons, "a header page failed its checksum (the last change may be lost)")
		}
		if tx.Bucket(bucketRecords) == nil && !l.fresh {
			reasons = append(reasons, "its records are missing")
		}
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
		if n := news(check.Damaged[string(bucketRecords)]); n == 1 {
			reasons = append(reasons, "1 record fails its checksum")
		} else if n > 0 {
			reasons = append(reasons, fmt.Sprintf("%d records fail their checksum", n))
		}
		if n := news(check.Hidden); n == 1 {
			reasons = append(reasons, "1 page holds more than its elements say (records may be hidden)")
		} else if n > 0 {
			reasons = append(reasons, fmt.Sprintf("%d pages hold more than their elements say (records may be hidden)", n))
		}
	}
	if l.f.ReadOnly() {
		return l.f.View(func(tx *bolt.Tx) error {
			ok, err := read(tx)
			if err != nil {
				return err
			}
			if !ok {
				return &FormatError{Path: l.f.Path()}
			}
			doubt(tx)
			if len(reasons) > 0 {
				l.castDoubt(l.head.Created, reasons)
			}
			return nil
		})
	}
	return l.f.Update(func(tx *bolt.Tx) error {
		ok, err := read(tx)
		if err != nil {
			return err
		}
		if !ok {
			l.fresh = true
			l.head = header{Format: formatName, Created: time.Now().UTC(), Epoch: 1}
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
	l.found = strings.Join(reasons, "; ")
	if l.f.ReadOnly() {
		// Nothing is written in this epoch: every record is of an earlier one.
		l.head.DoubtBefore = l.head.Epoch + 1
	}
}

func (l *Ledger) putHeader(tx *bolt.Tx) error {
	return boltfile.PutJSON(tx, bucketMeta, keyMeta, &l.head)
}

// writeHeader changes the header with fn and writes it.
func (l *Ledger) writeHeader(fn func(*header)) error {
	return l.f.Update(func(tx *bolt.Tx) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		fn(&l.head)
		return l.putHeader(tx)
	})
}

// Path is the file's path.
func (l *Ledger) Path() string { return l.f.Path() }

// created is when the ledger was created.
func (l *Ledger) created() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head.Created
}

// Doubt reports whether doubt is cast on the whole ledger, after damage
// or Recover: every ExternalId it does not record as sent is looked up at
// the service, from the time returned, before it is sent. found says what
// damage this Open found ("" for none: the doubt was cast before).
func (l *Ledger) Doubt() (from time.Time, found string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head.DoubtFrom, l.found, l.head.DoubtBefore > 0
}

// Update is telco.Ledger's: fn runs on the records of propertySid's
// externalIDs in one bbolt transaction, which stores what it leaves and
// is synced to disk before Update returns.
func (l *Ledger) Update(ctx context.Context, propertySid string, externalIDs []string, fn func(recs []telco.LedgerRecord) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.f.Update(func(tx *bolt.Tx) error {
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
			if err := b.Put(keys[i], boltfile.Seal(keys[i], payload)); err != nil {
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
}

// Records returns the records of propertySid's externalIDs, in the order
// given, as Update would hand them to the SDK (a record never written is
// a zero LedgerRecord with its key set), without changing them: what the
// ledger knows of each message.
func (l *Ledger) Records(ctx context.Context, propertySid string, externalIDs []string) ([]telco.LedgerRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	recs := make([]telco.LedgerRecord, len(externalIDs))
	err := l.f.View(func(tx *bolt.Tx) error {
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
	payload, ok := boltfile.Unseal(key, v)
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

// Close writes nothing more, closes the file and releases it to other
// processes.
func (l *Ledger) Close() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}
