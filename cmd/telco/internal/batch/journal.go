package batch

// A batch's journal: what a batch needs, beyond the account's send
// ledger, to be run again. The ledger records every ExternalId sent and
// how each attempt ended; the journal records only the ExternalIds the
// batch made up for lines without one of their own, each under its
// line's content, so that a run over the same file, or over the file
// edited, gives an unchanged line the ExternalId it had (and the ledger
// then knows it as sent), and a new or corrected line a new one. It is
// never the only record of an ExternalId: a journal lost costs the made-up
// ExternalIds, which --recover makes again from the batch's ID.
//
// The file is a bbolt file opened through internal/boltfile (locked,
// checked before bbolt maps it, every value sealed): its header (the
// project, the batch's ID, when it began) and a bucket from line keys to
// ExternalIds. Any damage the check finds makes the journal unreadable
// (exit 3, --recover): a made-up ExternalId it may have lost would be sent
// under another.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/telcosdk/telco/internal/boltfile"
	"github.com/telcosdk/telco/internal/smswire"
	bolt "go.etcd.io/bbolt"
)

// JournalSuffix names the default journal, beside the input.
const JournalSuffix = ".telco-journal"

// DefaultJournalPath is the journal of the input file at input: beside
// the file it resolves to, so that one file reached by two names (a
// symbolic link, a relative and an absolute path) has one journal.
func DefaultJournalPath(input string) (string, error) {
	p, err := filepath.EvalSymlinks(input)
	if err != nil {
		return "", err
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", err
	}
	return p + JournalSuffix, nil
}

// journalFormat marks a journal of this version in its header.
const journalFormat = "telco-journal/1"

var (
	bucketMeta = []byte("meta")
	keyMeta    = []byte("meta")
	bucketIDs  = []byte("ids")
)

// journalHeader is the journal's own record.
type journalHeader struct {
	Format string // journalFormat, first, so that Salvage finds it
	// Seq grows with every write of the header: of the copies a damaged
	// file still holds, the latest has the highest.
	Seq      int
	Created  time.Time // when the batch was first run: a recovery looks up from then
	Property string
	BatchID  string // the prefix of made-up ExternalIds, new for each --force
}

// Journal is an open journal.
type Journal struct {
	f    *boltfile.File
	head journalHeader
	ids  map[string]string // line key -> the ExternalId made up for it
}

// JournalOptions say which batch a journal is opened for.
type JournalOptions struct {
	// Input is the input's InputSum: a new journal's BatchID is derived
	// from it (BatchIDOf), as a run without a journal derives its own.
	Input    string
	Property string
	ReadOnly bool // for a dry run: nil, nil when there is none
	Timeout  time.Duration
}

// MismatchError is a journal that is not this batch's (another project,
// or not a journal): nothing was sent.
type MismatchError struct{ msg string }

// Error says which batch the journal is not.
func (e *MismatchError) Error() string { return e.msg }

// EarlierError is a journal written by an earlier telco, which kept the
// records of the batch's sends in the journal itself rather than in the
// account's ledger: the batch cannot go on from it without looking every
// line up (RecoverJournal).
type EarlierError struct {
	Path     string
	BatchID  string
	Created  time.Time
	Property string
}

// Error names the journal.
func (e *EarlierError) Error() string {
	return "journal " + e.Path + " was written by an earlier version of telco"
}

// OpenJournal opens or creates the journal at path for a batch of
// o.Property. A journal of another project, or a file that is not a
// journal, is a *MismatchError; one of an earlier telco an *EarlierError;
// other errors are boltfile's (ErrBusy, a *DamagedError).
func OpenJournal(path string, o JournalOptions) (*Journal, error) {
	f, err := boltfile.Open(path, boltfile.Options{What: "journal", Timeout: o.Timeout, ReadOnly: o.ReadOnly})
	if err != nil {
		if o.ReadOnly && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	j := &Journal{f: f, ids: map[string]string{}}
	if err := j.load(o); err != nil {
		_ = f.Close()
		if o.ReadOnly && errors.Is(err, errEmpty) {
			return nil, nil
		}
		return nil, err
	}
	return j, nil
}

var errEmpty = errors.New("empty")

// load reads the header and the ExternalIds, or writes a new journal's
// header when the file is empty.
func (j *Journal) load(o JournalOptions) error {
	var found bool
	err := j.f.View(func(tx *bolt.Tx) error {
		var err error
		found, err = j.readHeader(tx)
		if err != nil || !found {
			return err
		}
		return tx.Bucket(bucketIDs).ForEach(func(k, v []byte) error {
			id, ok := boltfile.Unseal(k, v)
			if !ok {
				return j.f.Damaged("an ExternalId fails its checksum", nil)
			}
			j.ids[string(k)] = string(id)
			return nil
		})
	})
	switch {
	case err != nil:
		return err
	case !found && j.f.ReadOnly():
		return errEmpty
	case !found:
		j.head = journalHeader{Format: journalFormat, Created: time.Now().UTC(), Property: o.Property, BatchID: BatchIDOf(o.Input, o.Property, "")}
		return j.f.Update(func(tx *bolt.Tx) error {
			if _, err := tx.CreateBucketIfNotExists(bucketIDs); err != nil {
				return err
			}
			return j.putHeader(tx)
		})
	case j.head.Property != o.Property:
		return &MismatchError{fmt.Sprintf("journal %s belongs to project %s, not %s: give another --journal for this project", j.f.Path(), j.head.Property, o.Property)}
	}
	return nil
}

// readHeader reads the header: false for an empty file; an error for a
// damaged one, one of an earlier telco, or another kind of file.
func (j *Journal) readHeader(tx *bolt.Tx) (bool, error) {
	path := j.f.Path()
	notJournal := &MismatchError{fmt.Sprintf("%s is not the journal of an sms batch (is it a send ledger?): give another --journal", path)}
	mb := tx.Bucket(bucketMeta)
	if mb == nil {
		switch {
		case tx.Bucket(bucketIDs) != nil:
			return false, j.f.Damaged("its header is missing", nil)
		case tx.ForEach(func([]byte, *bolt.Bucket) error { return notJournal }) != nil:
			return false, notJournal
		}
		return false, nil
	}
	v := mb.Get(keyMeta)
	payload, ok := boltfile.Unseal(keyMeta, v)
	if !ok {
		if e, ok := earlierHeader(path, v); ok {
			return false, e // the first journals: plain JSON, no seal
		}
		return false, j.f.Damaged("its header record fails its checksum", nil)
	}
	var probe struct {
		Format  string
		Created time.Time
		App     json.RawMessage // a send ledger's: an earlier telco's journal kept its header there
	}
	if json.Unmarshal(payload, &probe) != nil {
		return false, j.f.Damaged("its header record cannot be decoded", nil)
	}
	switch probe.Format {
	case journalFormat:
	case "telco-ledger/1":
		var app struct{ Kind, Property, BatchID string }
		if json.Unmarshal(probe.App, &app) == nil && app.Kind == "sms-batch" {
			return false, &EarlierError{Path: path, BatchID: app.BatchID, Created: probe.Created, Property: app.Property}
		}
		return false, notJournal
	default:
		return false, notJournal
	}
	if err := json.Unmarshal(payload, &j.head); err != nil || tx.Bucket(bucketIDs) == nil {
		return false, j.f.Damaged("its header record cannot be decoded, or its ExternalIds are missing", err)
	}
	if reason := damage(j.f.Check()); reason != "" {
		return false, j.f.Damaged(reason, nil)
	}
	return true, nil
}

// earlierHeader reads the header of the first journals, plain JSON with
// a Version.
func earlierHeader(path string, v []byte) (*EarlierError, bool) {
	var old struct {
		Version           int
		BatchID, Property string
		Created           time.Time
	}
	if json.Unmarshal(v, &old) != nil || old.Version <= 0 {
		return nil, false
	}
	return &EarlierError{Path: path, BatchID: old.BatchID, Created: old.Created, Property: old.Property}, true
}

// damage says what the file check found that the journal cannot vouch
// for, "" for nothing.
func damage(c boltfile.Check) string {
	var rs []string
	if c.RolledBack {
		rs = append(rs, "a header page failed its checksum (the last change may be lost)")
	}
	n := 0
	for _, ids := range c.Damaged {
		n += len(ids)
	}
	if n == 1 {
		rs = append(rs, "1 entry fails its checksum")
	} else if n > 0 {
		rs = append(rs, fmt.Sprintf("%d entries fail their checksum", n))
	}
	if n := len(c.Hidden); n == 1 {
		rs = append(rs, "1 page holds more than its elements say")
	} else if n > 0 {
		rs = append(rs, fmt.Sprintf("%d pages hold more than their elements say", n))
	}
	return strings.Join(rs, "; ")
}

func (j *Journal) putHeader(tx *bolt.Tx) error {
	j.head.Seq++
	return boltfile.PutJSON(tx, bucketMeta, keyMeta, &j.head)
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.f.Path() }

// BatchID is the prefix of the batch's made-up ExternalIds.
func (j *Journal) BatchID() string { return j.head.BatchID }

// Created is when the batch was first run.
func (j *Journal) Created() time.Time { return j.head.Created }

// IDs gives every line its ExternalId (see AssignIDs), from the ones this
// journal made up before; with write, the new ones are committed to the
// journal, in one synced write, before IDs returns: before anything is
// sent under them.
func (j *Journal) IDs(lines []Line, write bool) ([]string, error) {
	ids, added := AssignIDs(lines, j.head.BatchID, j.ids)
	if !write || len(added) == 0 {
		return ids, nil
	}
	err := j.f.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketIDs)
		for k, id := range added {
			if err := b.Put([]byte(k), boltfile.Seal([]byte(k), []byte(id))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, id := range added {
		j.ids[k] = id
	}
	return ids, nil
}

// Restart forgets the made-up ExternalIds and takes the next BatchID
// (NextBatchID), for --force: the lines without an ExternalId of their
// own are then a new batch.
func (j *Journal) Restart(input string) error {
	head := j.head
	head.BatchID = BatchIDOf(input, head.Property, head.BatchID)
	err := j.f.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketIDs); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
			return err
		}
		if _, err := tx.CreateBucket(bucketIDs); err != nil {
			return err
		}
		old := j.head
		j.head = head
		if err := j.putHeader(tx); err != nil {
			j.head = old
			return err
		}
		return nil
	})
	if err == nil {
		j.ids = map[string]string{}
	}
	return err
}

// Close closes the journal's file.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	return j.f.Close()
}

// AssignIDs gives every line its ExternalId: its own; else the one known
// (a journal's, by line key) for a line of the same content; else one
// made from batchID and the line number (tbq3x7k2m9ab-42), or, when that
// one is known for another line, the same with a suffix (-42.2). A line's
// key is its content, every field but ExternalId, and which of the lines
// of that content it is, so that an edit elsewhere in the file leaves it
// unchanged. added holds the new ones by line key.
func AssignIDs(lines []Line, batchID string, known map[string]string) (ids []string, added map[string]string) {
	taken := make(map[string]bool, len(known))
	for _, id := range known {
		taken[id] = true
	}
	ids = make([]string, len(lines))
	added = map[string]string{}
	seen := map[string]int{} // lines of each content so far
	for i, l := range lines {
		if l.Params.ExternalID != "" {
			ids[i] = l.Params.ExternalID
			continue
		}
		c := contentKey(l)
		seen[c]++
		key := c + "#" + strconv.Itoa(seen[c])
		if id, ok := known[key]; ok {
			ids[i] = id
			continue
		}
		id := batchID + "-" + strconv.Itoa(l.Num)
		for n := 2; taken[id]; n++ {
			id = batchID + "-" + strconv.Itoa(l.Num) + "." + strconv.Itoa(n)
		}
		taken[id] = true
		ids[i], added[key] = id, id
	}
	return ids, added
}

// contentKey is a hash of a line's fields, ExternalId apart, by their
// wire names and text: the same for the same message however the file
// around it changes.
func contentKey(l Line) string {
	h := sha256.New()
	for _, f := range smswire.Fields() {
		v := f.Get(&l.Params)
		if f.Name == "ExternalId" || v == "" {
			continue // a field added later, unset, leaves keys as they were
		}
		for _, s := range []string{f.Name, v} {
			h.Write(binary.AppendUvarint(nil, uint64(len(s))))
			h.Write([]byte(s))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Recovery is what RecoverJournal did.
type Recovery struct {
	MovedTo string    // where the unreadable journal went
	Since   time.Time // every line the ledger does not know is looked up from then
	BatchID string
	// Salvaged says that the batch's header was read from the damaged
	// journal (or the earlier telco's journal), not given.
	Salvaged bool
}

// RecoverOptions are the answers RecoverJournal may need from the user.
type RecoverOptions struct {
	// Since is when the batch was first run: the look-ups search from
	// it. Zero takes the damaged journal's start, when it can be read.
	Since time.Time
	// BatchID is the damaged journal's, for inputs whose lines have no
	// ExternalId of their own: "" takes it from the damaged journal.
	BatchID string
	// NeedBatchID says that some line has no ExternalId of its own.
	NeedBatchID bool
}

// RecoverJournal replaces a journal that cannot be read (damaged, or
// written by an earlier telco) with a new one for the same batch: the old
// file is moved aside, not deleted, and the new one has the batch's ID
// (salvaged, or given) and start. Its made-up ExternalIds are made again
// from the ID and the line numbers, as a first run makes them; the caller
// then has what the service shows as sent since Recovery.Since recorded
// in the ledger (Messages.FillLedger) before any line is sent. A journal
// that opens is left alone (a *MismatchError says so).
func RecoverJournal(path string, o JournalOptions, r RecoverOptions) (*Journal, *Recovery, error) {
	j, err := OpenJournal(path, o)
	if err == nil {
		j.Close()
		return nil, nil, &MismatchError{fmt.Sprintf("journal %s can be read: --recover is only for a journal that cannot; run without it", path)}
	}
	var ee *EarlierError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, &MismatchError{fmt.Sprintf("there is no journal %s to recover", path)}
	case errors.Is(err, boltfile.ErrUnreadable), errors.As(err, &ee):
	default:
		return nil, nil, err
	}
	rec := &Recovery{Since: r.Since, BatchID: r.BatchID}
	var head journalHeader
	if ee != nil {
		head = journalHeader{Created: ee.Created, Property: ee.Property, BatchID: ee.BatchID}
	} else {
		head = salvage(path)
	}
	if head.BatchID != "" {
		if head.Property != o.Property {
			return nil, nil, &MismatchError{fmt.Sprintf("the unreadable journal %s belongs to project %s, not %s: give another --journal for this project", path, head.Property, o.Property)}
		}
		rec.Salvaged = true
		if rec.BatchID == "" {
			rec.BatchID = head.BatchID
		}
		if rec.Since.IsZero() {
			rec.Since = head.Created
		}
	}
	if rec.Since.IsZero() {
		return nil, nil, &MismatchError{fmt.Sprintf("the header of journal %s cannot be read: give --since, when the batch was first run (every line is looked up from then)", path)}
	}
	if rec.BatchID == "" {
		if r.NeedBatchID {
			return nil, nil, &MismatchError{fmt.Sprintf("the header of journal %s cannot be read, and lines without an ExternalId column were sent with ExternalIds made from it: give --batch-id (the part before the line number, tb...)", path)}
		}
		rec.BatchID = BatchIDOf(o.Input, o.Property, "") // no line's ExternalId is made from it
	}
	if rec.MovedTo, err = boltfile.MoveAside(path, time.Now()); err != nil {
		return nil, nil, fmt.Errorf("moving journal %s aside: %w", path, err)
	}
	f, err := boltfile.Open(path, boltfile.Options{What: "journal", Timeout: o.Timeout})
	if err != nil {
		return nil, nil, err
	}
	j = &Journal{f: f, ids: map[string]string{},
		head: journalHeader{Format: journalFormat, Created: rec.Since.UTC(), Property: o.Property, BatchID: rec.BatchID}}
	err = f.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketIDs); err != nil {
			return err
		}
		return j.putHeader(tx)
	})
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return j, rec, nil
}

// salvage reads the batch's header from a journal bbolt cannot read: the
// latest intact copy of this version's header, else the header an earlier
// telco's journal kept in its send ledger's; zero when none is intact.
func salvage(path string) journalHeader {
	var best journalHeader
	for _, raw := range boltfile.Salvage(path, keyMeta, []byte(`{"Format":"`+journalFormat+`"`)) {
		var h journalHeader
		if json.Unmarshal(raw, &h) == nil && h.BatchID != "" && h.Seq >= best.Seq {
			best = h
		}
	}
	if best.BatchID != "" {
		return best
	}
	var latest struct {
		Epoch   int
		Created time.Time
	}
	for _, raw := range boltfile.Salvage(path, keyMeta, []byte(`{"Format":"telco-ledger/1"`)) {
		var h struct {
			Epoch   int
			Created time.Time
			App     struct{ Kind, Property, BatchID string }
		}
		if json.Unmarshal(raw, &h) != nil || h.App.Kind != "sms-batch" {
			continue
		}
		if best.BatchID == "" || h.Epoch > latest.Epoch || (h.Epoch == latest.Epoch && h.Created.After(latest.Created)) {
			best = journalHeader{Created: h.Created, Property: h.App.Property, BatchID: h.App.BatchID}
			latest.Epoch, latest.Created = h.Epoch, h.Created
		}
	}
	return best
}

// BatchIDOf is the prefix of derived ExternalIds for an input (its
// InputSum) sent to a project: "tb" and 10 base-32 characters of a
// SHA-256 of the two, and of after, the batch ID it follows ("" for the
// first; --force takes the next). It is derived rather than random so
// that a dry run, which creates no journal, shows the ExternalIds the run
// will send, with a journal or without. The same input sent again to the
// same project without --force (its journal deleted, or none kept) so
// reuses its ExternalIds, which the account's ledger then holds as sent:
// nothing is sent again. An edited input without its journal is a new
// batch: its lines without an ExternalId of their own get new ones.
func BatchIDOf(input, property, after string) string {
	sum := sha256.Sum256([]byte("telco sms batch\x00" + input + "\x00" + property + "\x00" + after))
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	v := binary.BigEndian.Uint64(sum[:8])
	var s strings.Builder
	s.WriteString("tb")
	for range 10 {
		s.WriteByte(alphabet[v&31])
		v >>= 5
	}
	return s.String()
}

// InputSum identifies an input by its content.
func InputSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
