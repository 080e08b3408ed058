package main

// The journal of a batch send: what each line of the input became, kept
// in one bbolt file so that a batch cut short (a hang-up, a crash, a kill)
// resumes where it stopped and never sends a line twice. bbolt is a
// transactional store in one file, in pure Go: each commit is written and
// synced before Update returns, and a crash leaves the last commit intact.
//
// A line is written as "sending" (with the time) in one commit before the
// request that carries it, and as sent, refused or uncertain in another
// after it, so that at any moment the journal knows which lines may have
// reached the service. On a re-run, sent and refused lines are skipped,
// lines found "sending" or "uncertain" are looked up by their ExternalId
// (FindByExternalID) before anything is sent, and pending ones are sent.

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/telcosdk/telco"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Line states in the journal.
const (
	statePending   = "pending"   // not sent yet
	stateSending   = "sending"   // a request carrying it began: it may have been sent
	stateSent      = "sent"      // stored by the service: MessageSid known
	stateRefused   = "refused"   // rejected, by the service or before sending
	stateUncertain = "uncertain" // the send failed in a way that may have reached the service
)

// lineRecord is one line's state as the journal keeps it.
type lineRecord struct {
	State      string
	Line       int    // the line number in the input
	ExternalID string // the ExternalId the line is sent with
	Attempt    int64  `json:",omitempty"` // Unix milliseconds when the last request carrying it began
	Message    *telco.Message
	Err        *telco.APIError `json:",omitempty"`
}

var (
	bucketMeta  = []byte("meta")
	bucketLines = []byte("lines")
)

// journalMeta identifies the batch a journal belongs to.
type journalMeta struct {
	Version  int
	Input    string // SHA-256 of the input, hex
	Property string
	BatchID  string // the prefix of derived ExternalIds, new for each --force
	Created  time.Time
}

const journalVersion = 1

// journal is an open journal.
type journal struct {
	db   *bolt.DB
	path string
	meta journalMeta
}

// errJournalBusy is returned when another process holds the journal.
var errJournalBusy = errors.New("in use by another telco process (is the batch still running?)")

// openJournal opens or creates the journal at path for the input whose
// SHA-256 is sum, sent to prop. A journal of another input or project is
// refused, so that a resume can never mistake one batch for another.
// readOnly opens an existing journal without taking it for writing (for
// --dry-run); it returns nil, nil when there is none.
func openJournal(path, sum, prop string, readOnly bool) (*journal, error) {
	opts := &bolt.Options{Timeout: time.Second, ReadOnly: readOnly}
	if readOnly {
		if !fileExists(path) {
			return nil, nil
		}
	}
	db, err := bolt.Open(path, 0o600, opts)
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("journal %s: %w", path, errJournalBusy)
	}
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	j := &journal{db: db, path: path}
	fresh := false
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		if b == nil {
			fresh = true
			return nil
		}
		return json.Unmarshal(b.Get([]byte("meta")), &j.meta)
	})
	if err == nil && fresh && !readOnly {
		j.meta = journalMeta{Version: journalVersion, Input: sum, Property: prop, BatchID: newBatchID(), Created: time.Now().UTC()}
		err = j.writeMeta(true)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	switch {
	case fresh:
	case j.meta.Version != journalVersion:
		err = usagef("journal %s was written by another version of telco (format %d); give a new --journal", path, j.meta.Version)
	case j.meta.Input != sum:
		err = usagef("journal %s belongs to another input (the file changed since the batch began): resume with the same file, or give a new --journal to send this one as a new batch", path)
	case j.meta.Property != prop:
		err = usagef("journal %s belongs to project %s, not %s", path, j.meta.Property, prop)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return j, nil
}

// writeMeta writes the meta record; reset also empties the lines.
func (j *journal) writeMeta(reset bool) error {
	return j.db.Update(func(tx *bolt.Tx) error {
		if reset {
			if tx.Bucket(bucketLines) != nil {
				if err := tx.DeleteBucket(bucketLines); err != nil {
					return err
				}
			}
		}
		if _, err := tx.CreateBucketIfNotExists(bucketLines); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		v, _ := json.Marshal(j.meta)
		return b.Put([]byte("meta"), v)
	})
}

// restart forgets every line's state and takes a new BatchID, for --force.
func (j *journal) restart() error {
	j.meta.BatchID = newBatchID()
	j.meta.Created = time.Now().UTC()
	return j.writeMeta(true)
}

// records returns the state of each line by index in the input.
func (j *journal) records() (map[int]lineRecord, error) {
	out := map[int]lineRecord{}
	err := j.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLines)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r lineRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("line record %x: %w", k, err)
			}
			out[int(binary.BigEndian.Uint32(k))] = r
			return nil
		})
	})
	return out, err
}

// put writes records, by index in the input, in one commit.
func (j *journal) put(recs map[int]lineRecord) error {
	if j == nil || len(recs) == 0 {
		return nil
	}
	return j.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketLines)
		if err != nil {
			return err
		}
		var k [4]byte
		for i, r := range recs {
			binary.BigEndian.PutUint32(k[:], uint32(i))
			v, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := b.Put(k[:], v); err != nil {
				return err
			}
		}
		return nil
	})
}

func (j *journal) close() error {
	if j == nil {
		return nil
	}
	return j.db.Close()
}

// newBatchID is a short random prefix for derived ExternalIds: "tb" and 10
// base-32 characters, unique enough among one project's batches.
func newBatchID() string {
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

// inputSum identifies an input by its content.
func inputSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
