package batch

// A batch's journal: the SDK's send ledger in a bbolt file
// (boltledger), with the batch's own header beside the records: the
// input's checksum and project, which bind the journal to one batch, and
// the BatchID that derived ExternalIds start with.

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/telcosdk/telco/boltledger"
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

// journalKind marks the header of a batch's journal.
const journalKind = "sms-batch"

// journalHeader is the batch's header, kept in the ledger's.
type journalHeader struct {
	Kind     string
	Input    string // SHA-256 of the input, hex
	Property string
	BatchID  string // the prefix of derived ExternalIds, new for each --force
}

// Journal is an open journal.
type Journal struct {
	Ledger *boltledger.Ledger
	head   journalHeader
}

// JournalOptions say which batch a journal is opened for.
type JournalOptions struct {
	Input    string // the input's checksum (InputSum)
	Property string
	ReadOnly bool // for a dry run: nil, nil when there is none
	Timeout  time.Duration
}

// MismatchError is a journal of another batch: nothing was sent.
type MismatchError struct{ msg string }

func (e *MismatchError) Error() string { return e.msg }

// OpenJournal opens or creates the journal at path for the batch o names.
// A journal of another input or project is refused (*MismatchError), so
// that a resume can never mistake one batch for another. Other errors are
// boltledger's: ErrBusy, a *DamagedError, a *FormatError.
func OpenJournal(path string, o JournalOptions) (*Journal, error) {
	fresh := journalHeader{Kind: journalKind, Input: o.Input, Property: o.Property, BatchID: NewBatchID()}
	l, err := boltledger.Open(path, boltledger.Options{ReadOnly: o.ReadOnly, Timeout: o.Timeout, App: fresh})
	if err != nil {
		if o.ReadOnly && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	j := &Journal{Ledger: l}
	ok, err := l.App(&j.head)
	switch {
	case err != nil:
		err = &boltledger.DamagedError{Path: path, Reason: "its batch header cannot be decoded", Err: err}
	case !ok || j.head.Kind != journalKind:
		err = &MismatchError{fmt.Sprintf("%s is not the journal of an sms batch (is it a ledger of sms send?); give another --journal", path)}
	default:
		err = j.check(path, o)
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	return j, nil
}

func (j *Journal) check(path string, o JournalOptions) error {
	switch {
	case j.head.Input != o.Input:
		return &MismatchError{fmt.Sprintf("journal %s belongs to another input (the file changed since the batch began): resume with the same file, or give a new --journal to send this one as a new batch", path)}
	case j.head.Property != o.Property:
		return &MismatchError{fmt.Sprintf("journal %s belongs to project %s, not %s", path, j.head.Property, o.Property)}
	}
	return nil
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.Ledger.Path() }

// BatchID is the prefix of the batch's derived ExternalIds.
func (j *Journal) BatchID() string { return j.head.BatchID }

// Restart forgets every line and takes a new BatchID, for --force.
func (j *Journal) Restart() error {
	if err := j.Ledger.Reset(); err != nil {
		return err
	}
	j.head.BatchID = NewBatchID()
	return j.Ledger.SetApp(j.head)
}

// Close closes the journal's file.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	return j.Ledger.Close()
}

// Recovery is what RecoverJournal did.
type Recovery struct {
	MovedTo string    // where the unreadable journal went
	Since   time.Time // every line not found sent since then is looked up
	BatchID string
	// Salvaged says that the batch's header was read from the damaged
	// journal (or the earlier telco's journal), not given.
	Salvaged bool
}

// RecoverOptions are the answers RecoverJournal may need from the user.
type RecoverOptions struct {
	// Since is when the batch was first run: the look-ups search from
	// it. Zero takes the damaged journal's creation, when it can be read.
	Since time.Time
	// BatchID is the damaged journal's, for inputs whose lines have no
	// ExternalId of their own: "" takes it from the damaged journal.
	BatchID string
	// NeedBatchID says that some line has no ExternalId of its own.
	NeedBatchID bool
}

// RecoverJournal replaces a journal that cannot be read (damaged, or
// written by an earlier telco) with a new one in which every line is in
// doubt: looked up by its ExternalId, from r.Since, before it is sent.
// The old file is moved aside, not deleted. A journal that opens is left
// alone (a *MismatchError says so).
func RecoverJournal(path string, o JournalOptions, r RecoverOptions) (*Journal, *Recovery, error) {
	j, err := OpenJournal(path, o)
	if err == nil {
		j.Close()
		return nil, nil, &MismatchError{fmt.Sprintf("journal %s can be read: --recover is only for a journal that cannot; run without it", path)}
	}
	var fe *boltledger.FormatError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, &MismatchError{fmt.Sprintf("there is no journal %s to recover", path)}
	case errors.Is(err, boltledger.ErrUnreadable), errors.As(err, &fe):
	default:
		return nil, nil, err
	}
	rec := &Recovery{Since: r.Since, BatchID: r.BatchID}
	var head journalHeader
	var created time.Time
	if fe != nil && fe.Old != nil {
		var old struct {
			journalHeader
			Created time.Time
		}
		if json.Unmarshal(fe.Old, &old) == nil {
			head, created = old.journalHeader, old.Created
			head.Kind = journalKind
		}
	} else if h, ok := boltledger.Salvage(path); ok && json.Unmarshal(h.App, &head) == nil && head.Kind == journalKind {
		created = h.Created
	}
	if head.BatchID != "" {
		if head.Input != o.Input || head.Property != o.Property {
			return nil, nil, &MismatchError{fmt.Sprintf("the unreadable journal %s belongs to another input or project: give a new --journal for this one", path)}
		}
		rec.Salvaged = true
		if rec.BatchID == "" {
			rec.BatchID = head.BatchID
		}
		if rec.Since.IsZero() {
			rec.Since = created
		}
	}
	if rec.Since.IsZero() {
		return nil, nil, &MismatchError{fmt.Sprintf("the header of journal %s cannot be read: give --since, when the batch was first run (every line is looked up from then)", path)}
	}
	if rec.BatchID == "" {
		if r.NeedBatchID {
			return nil, nil, &MismatchError{fmt.Sprintf("the header of journal %s cannot be read, and lines without an ExternalId column were sent with ExternalIds made from it: give --batch-id (the part before the line number, tb...)", path)}
		}
		rec.BatchID = NewBatchID()
	}
	if rec.MovedTo, err = boltledger.MoveAside(path, time.Now()); err != nil {
		return nil, nil, fmt.Errorf("moving journal %s aside: %w", path, err)
	}
	head = journalHeader{Kind: journalKind, Input: o.Input, Property: o.Property, BatchID: rec.BatchID}
	l, err := boltledger.Open(path, boltledger.Options{Timeout: o.Timeout, App: head})
	if err != nil {
		return nil, nil, err
	}
	j = &Journal{Ledger: l, head: head}
	if err := l.CastDoubt(rec.Since); err != nil {
		l.Close()
		return nil, nil, err
	}
	return j, rec, nil
}

// NewBatchID is a short random prefix for derived ExternalIds: "tb" and
// 10 base-32 characters, unique enough among one project's batches.
func NewBatchID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	v := binary.BigEndian.Uint64(b[:])
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
