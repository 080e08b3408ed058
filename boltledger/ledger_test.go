package boltledger

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/boltfile"
	bolt "go.etcd.io/bbolt"
)

const prop = "PR00000000000000000000000000000001"

var ctx = context.Background()

func open(t *testing.T, path string) *Ledger {
	t.Helper()
	l, err := Open(path)
	require.NoError(t, err)
	return l
}

// put stores recs as they are.
func put(t *testing.T, l *Ledger, recs ...telco.LedgerRecord) {
	t.Helper()
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ExternalID
	}
	require.NoError(t, l.Update(ctx, prop, ids, func(got []telco.LedgerRecord) error {
		copy(got, recs)
		return nil
	}))
}

func get(t *testing.T, l *Ledger, ids ...string) []telco.LedgerRecord {
	t.Helper()
	recs, err := l.Records(ctx, prop, ids)
	require.NoError(t, err)
	return recs
}

var t0 = time.Date(2026, 11, 25, 9, 30, 0, 123456789, time.UTC)

// sample is one record of each state, as the SDK leaves them.
func sample() []telco.LedgerRecord {
	msg := &telco.Message{MessageSid: "MG00000000000000000000000000000001", PropertySid: prop, To: "+61400000001", ExternalID: "sent",
		Status: telco.MessageStatus("Processing"), Created: telco.TimestampOf(t0)}
	return []telco.LedgerRecord{
		{PropertySid: prop, ExternalID: "sent", State: telco.LedgerSent, Digest: "d1", First: t0, Last: t0, Ended: t0.Add(time.Second), Attempts: 1, Message: msg},
		{PropertySid: prop, ExternalID: "refused", State: telco.LedgerRefused, Digest: "d2", First: t0, Last: t0, Attempts: 1,
			Err: &telco.APIError{Op: "Messages.SendBatch", Code: "INVALID_PHONENUMBER_FORMAT", Message: "bad", Fields: []telco.FieldError{{FieldName: "To"}}}},
		{PropertySid: prop, ExternalID: "doubt", State: telco.LedgerInDoubt, Digest: "d3", First: t0, Last: t0.Add(time.Minute), Attempts: 2},
		{PropertySid: prop, ExternalID: "notsent", State: telco.LedgerNotSent, Digest: "d4", First: t0, Last: t0, Attempts: 1},
	}
}

var sampleIDs = []string{"sent", "refused", "doubt", "notsent"}

// A fresh ledger's records pass their checksum and read back as written,
// the same process's claims included.
func TestRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l")
	l := open(t, path)
	assert.True(t, l.fresh)
	want := sample()
	claim := telco.LedgerRecord{PropertySid: prop, ExternalID: "mine", State: telco.LedgerSending, First: t0, Last: t0, Claim: t0.Add(time.Hour), Attempts: 1}
	put(t, l, append(want, claim)...)
	got := get(t, l, append(sampleIDs, "mine", "never")...)
	for i := range want {
		assert.Equal(t, jsonOf(t, want[i]), jsonOf(t, got[i]), want[i].ExternalID)
	}
	assert.Equal(t, telco.LedgerSending, got[4].State, "this process's own claim stands")
	assert.Equal(t, telco.LedgerRecord{PropertySid: prop, ExternalID: "never"}, got[5], "never written: new")
	_, _, doubt := l.Doubt()
	assert.False(t, doubt)
	require.NoError(t, l.Close())

	// Every stored value passes its checksum; the file check finds nothing.
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	n := 0
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketRecords).ForEach(func(k, v []byte) error {
			_, ok := boltfile.Unseal(k, v)
			assert.True(t, ok, "%q", k)
			n++
			return nil
		})
	}))
	require.NoError(t, db.Close())
	assert.Equal(t, 5, n)
	l = open(t, path)
	defer l.Close()
	check := l.f.Check()
	assert.Empty(t, check.Damaged)
	assert.False(t, check.RolledBack)
	assert.Empty(t, check.Hidden)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// A claim left by a process that is gone (the lock proves it) reads as in
// doubt, its attempt ended when the file was opened: the SDK waits the
// settle time from then.
func TestClaimOfAProcessGoneReadsInDoubt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l")
	l := open(t, path)
	put(t, l, telco.LedgerRecord{PropertySid: prop, ExternalID: "x", State: telco.LedgerSending, Digest: "d", First: t0, Last: t0.Add(time.Second),
		Claim: time.Now().Add(time.Hour), Attempts: 2})
	require.NoError(t, l.Close())

	before := time.Now()
	l = open(t, path)
	defer l.Close()
	r := get(t, l, "x")[0]
	assert.Equal(t, telco.LedgerInDoubt, r.State)
	assert.True(t, r.Claim.IsZero(), "held by no one")
	assert.False(t, r.Ended.Before(before), "ended by the time the file was opened")
	assert.Equal(t, t0, r.First.UTC())
	assert.Equal(t, t0.Add(time.Second), r.Last.UTC(), "Last kept")
	assert.Equal(t, "d", r.Digest)
}

// A record whose state this version does not know is in doubt, from the
// ledger's creation, with no digest.
func TestUnknownStateReadsInDoubt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l")
	l := open(t, path)
	put(t, l, sample()...)
	require.NoError(t, l.Close())
	rewrite(t, path, "sent", func(s *stored) { s.R.State = "exploded" })

	l = open(t, path)
	defer l.Close()
	r := get(t, l, "sent")[0]
	assert.Equal(t, telco.LedgerInDoubt, r.State)
	assert.Empty(t, r.Digest)
	assert.Equal(t, l.created(), r.First)
	_, _, doubt := l.Doubt()
	assert.False(t, doubt, "a readable record of a newer state is no damage")
}

// rewrite changes the stored record of id, sealed anew.
func rewrite(t *testing.T, path, id string, fn func(*stored)) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketRecords)
		k := recordKey(prop, id)
		payload, ok := boltfile.Unseal(k, b.Get(k))
		require.True(t, ok)
		var s stored
		require.NoError(t, json.Unmarshal(payload, &s))
		fn(&s)
		payload, _ = json.Marshal(s)
		return b.Put(k, boltfile.Seal(k, payload))
	}))
}

// A flipped byte in a record: that record is in doubt, doubt is cast on
// the ledger once (every record not sent, and every key without one, is
// looked up), and what is written afterwards is trusted again, on this
// open and the next.
func TestDamagedRecordCastsDoubtOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l")
	l := open(t, path)
	put(t, l, sample()...)
	created := l.created()
	require.NoError(t, l.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	i := bytes.Index(raw, []byte(`"Digest":"d3"`))
	require.Positive(t, i)
	raw[i+len(`"Digest":"d`)] ^= 1
	require.NoError(t, os.WriteFile(path, raw, 0o600))

	l = open(t, path)
	from, found, doubt := l.Doubt()
	require.True(t, doubt)
	assert.Equal(t, created, from)
	assert.Contains(t, found, "1 record fails its checksum")
	got := get(t, l, append(sampleIDs, "never")...)
	assert.Equal(t, telco.LedgerSent, got[0].State, "a sent record stays sent")
	for _, r := range got[1:] {
		assert.Equal(t, telco.LedgerInDoubt, r.State, r.ExternalID)
		assert.False(t, r.First.After(created), "%s is looked up from its first attempt, or the ledger's creation", r.ExternalID)
	}
	assert.Equal(t, created, got[2].First, "the damaged record: from the ledger's creation")
	put(t, l, telco.LedgerRecord{PropertySid: prop, ExternalID: "never", State: telco.LedgerNotSent, First: t0, Attempts: 0},
		telco.LedgerRecord{PropertySid: prop, ExternalID: "doubt", State: telco.LedgerSent, First: t0, Message: &telco.Message{MessageSid: "MG2"}})
	require.NoError(t, l.Close())

	l = open(t, path)
	defer l.Close()
	_, found, doubt = l.Doubt()
	assert.True(t, doubt, "still cast: other keys may have been lost")
	assert.Empty(t, found, "the same damage found again is already accounted for")
	got = get(t, l, "never", "doubt", "notsent")
	assert.Equal(t, telco.LedgerNotSent, got[0].State, "written after the damage: trusted")
	assert.Equal(t, telco.LedgerSent, got[1].State)
	assert.Equal(t, telco.LedgerInDoubt, got[2].State)
}

// A ledger whose records bucket is gone: every key is in doubt.
func TestMissingRecordsBucketCastsDoubt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l")
	l := open(t, path)
	put(t, l, sample()...)
	require.NoError(t, l.Close())
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketRecords) }))
	require.NoError(t, db.Close())

	l = open(t, path)
	defer l.Close()
	_, found, doubt := l.Doubt()
	require.True(t, doubt)
	assert.Contains(t, found, "records are missing")
	for _, r := range get(t, l, sampleIDs...) {
		assert.Equal(t, telco.LedgerInDoubt, r.State, r.ExternalID)
	}
}

// A second process waits for the lock, then gets a clear error.
func TestLockedLedgerIsBusy(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l")
	l := open(t, path)
	defer l.Close()
	start := time.Now()
	_, err := OpenWith(path, Options{Timeout: 200 * time.Millisecond})
	require.ErrorIs(t, err, ErrBusy)
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "waited for the lock")
	assert.Equal(t, "ledger "+path+": in use by another process", err.Error())
}

// A read-only open changes nothing, and sees what a writer would.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := OpenWith(filepath.Join(dir, "missing"), Options{ReadOnly: true})
	require.ErrorIs(t, err, fs.ErrNotExist)
	path := filepath.Join(dir, "l")
	l := open(t, path)
	put(t, l, telco.LedgerRecord{PropertySid: prop, ExternalID: "x", State: telco.LedgerSending, First: t0, Last: t0, Attempts: 1})
	require.NoError(t, l.Close())
	before, _ := os.ReadFile(path)
	ro, err := OpenWith(path, Options{ReadOnly: true})
	require.NoError(t, err)
	assert.Equal(t, telco.LedgerInDoubt, get(t, ro, "x")[0].State)
	assert.Error(t, ro.Update(ctx, prop, []string{"x"}, func([]telco.LedgerRecord) error { return nil }))
	require.NoError(t, ro.Close())
	after, _ := os.ReadFile(path)
	assert.Equal(t, before, after)
}

// A ledger that cannot be read is moved aside by Recover, kept, and
// replaced by one in which every ExternalId is in doubt from since; a
// ledger that can be read is left as it is.
func TestRecover(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "l")
	l := open(t, path)
	put(t, l, sample()...)
	require.NoError(t, l.Close())

	l, moved, err := Recover(path, t0, Options{})
	require.NoError(t, err)
	assert.Empty(t, moved, "a readable ledger is not moved")
	assert.Equal(t, telco.LedgerSent, get(t, l, "sent")[0].State)
	require.NoError(t, l.Close())

	raw, _ := os.ReadFile(path)
	require.NoError(t, os.WriteFile(path, raw[:len(raw)/2+100], 0o600))
	_, err = Open(path)
	require.ErrorIs(t, err, ErrUnreadable)
	l, moved, err = Recover(path, t0, Options{})
	require.NoError(t, err)
	defer l.Close()
	assert.True(t, strings.HasPrefix(moved, path+".damaged-"), moved)
	assert.FileExists(t, moved, "kept for inspection")
	from, found, doubt := l.Doubt()
	assert.True(t, doubt)
	assert.Empty(t, found, "no damage in the new file")
	assert.True(t, from.Equal(t0))
	for _, r := range get(t, l, append(sampleIDs, "never")...) {
		assert.Equal(t, telco.LedgerInDoubt, r.State, r.ExternalID)
		assert.True(t, r.First.Equal(t0), "%s is looked up from since", r.ExternalID)
	}
}

// An sms batch journal of an earlier telco is not read as a ledger.
func TestEarlierJournalIsAnotherFormat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j")
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, _ := tx.CreateBucket([]byte("meta"))
		_, _ = tx.CreateBucket([]byte("lines"))
		return b.Put([]byte("meta"), []byte(`{"Version":1,"BatchID":"tbx"}`))
	}))
	require.NoError(t, db.Close())
	_, err = Open(path)
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "ledger "+path+" is not a telco ledger", err.Error())
}

// safe says whether a record read from a damaged file is safe against
// what was written: the same, or in doubt (looked up before any send).
func safe(orig, got telco.LedgerRecord) bool {
	if got.State == telco.LedgerInDoubt {
		return true
	}
	if orig.State == telco.LedgerSent {
		return got.State == telco.LedgerSent && got.Message != nil && got.Message.MessageSid == orig.Message.MessageSid
	}
	return got.State == orig.State && got.Attempts == orig.Attempts && got.Digest == orig.Digest
}

// bigLedger writes a ledger with enough records for branch pages and a
// free list with entries, and returns its bytes and records.
func bigLedger(t *testing.T, n int) (string, []byte, []telco.LedgerRecord) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "l")
	l := open(t, path)
	var all []telco.LedgerRecord
	for i := 0; i < n; i += 10 {
		var recs []telco.LedgerRecord
		for j := i; j < i+10 && j < n; j++ {
			r := sample()[j%4]
			r.ExternalID = fmt.Sprintf("id-%04d", j)
			recs = append(recs, r)
		}
		put(t, l, recs...)
		all = append(all, recs...)
	}
	require.NoError(t, l.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return path, raw, all
}

// checkDamaged opens a damaged copy: it must fail with a typed error, or
// read every record safely. It never panics.
func checkDamaged(t *testing.T, path, what string, all []telco.LedgerRecord, write bool) (opened bool) {
	t.Helper()
	l, err := OpenWith(path, Options{Timeout: time.Second, ReadOnly: !write})
	if err != nil {
		var fe *FormatError
		if !errors.Is(err, ErrUnreadable) && !errors.As(err, &fe) {
			t.Fatalf("%s: an untyped error: %v", what, err)
		}
		return false
	}
	defer l.Close()
	ids := make([]string, len(all))
	for i, r := range all {
		ids[i] = r.ExternalID
	}
	recs, err := l.Records(ctx, prop, ids)
	if err != nil {
		require.ErrorIs(t, err, ErrUnreadable)
		return true
	}
	for i, r := range recs {
		if !safe(all[i], r) {
			t.Fatalf("%s: record %s read as %q (attempts %d), was %s", what, r.ExternalID, r.State, r.Attempts, all[i].State)
		}
	}
	if !write {
		return true
	}
	// And the ledger is usable: a write of every key, and the file that
	// leaves still opens, every record safe.
	err = l.Update(ctx, prop, ids, func([]telco.LedgerRecord) error { return nil })
	if err != nil {
		require.ErrorIs(t, err, ErrUnreadable)
		return true
	}
	require.NoError(t, l.Close())
	again, err := OpenWith(path, Options{Timeout: time.Second, ReadOnly: true})
	require.NoError(t, err, what)
	defer again.Close()
	recs, err = again.Records(ctx, prop, ids)
	require.NoError(t, err, what)
	for i, r := range recs {
		if !safe(all[i], r) {
			t.Fatalf("%s, written and reopened: record %s read as %q, was %s", what, r.ExternalID, r.State, all[i].State)
		}
	}
	return true
}

// Truncated at any length, a ledger is refused with a clear error or (cut
// only in its unused tail) read safely; never a panic.
func TestTruncatedAnywhere(t *testing.T) {
	t.Parallel()
	_, raw, all := bigLedger(t, 300)
	path := filepath.Join(t.TempDir(), "cut")
	refused := 0
	var sizes []int
	for size := 0; size < len(raw); size += 2039 {
		sizes = append(sizes, size)
	}
	for p := 1; p < 24; p++ { // around page boundaries
		sizes = append(sizes, p*4096-1, p*4096, p*4096+1)
	}
	for _, size := range sizes {
		require.NoError(t, os.WriteFile(path, raw[:size], 0o600))
		if size == 0 {
			// An empty file is a new ledger: nothing was in it.
			l := open(t, path)
			require.NoError(t, l.Close())
			continue
		}
		if !checkDamaged(t, path, fmt.Sprintf("cut at %d", size), all, size%4 == 0) {
			refused++
		}
	}
	assert.Positive(t, refused)
}

// A byte flipped anywhere in the file, at every offset of a small ledger
// and at random ones of a larger: a typed error, or every record read
// safely. Never a panic, never a record read as newer than it is.
func TestFlippedByteAnywhere(t *testing.T) {
	t.Parallel()
	for _, n := range []int{12, 400} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			_, raw, all := bigLedger(t, n)
			path := filepath.Join(t.TempDir(), "flip")
			offsets := []int{}
			if n < 100 {
				// Every byte of both header pages' meta and of every page
				// header and element, and a stride through the rest of the
				// pages in use (the file's tail past them is unused).
				used := usedBytes(raw)
				const pageSize = 4096
				for i := 0; i < used; i++ {
					inPage := i % pageSize
					// page header 16 bytes, meta 64, elements 16 bytes each
					if inPage < 16+64 || inPage < 16+16*16 || i%13 == 0 {
						offsets = append(offsets, i)
					}
				}
			} else {
				seed := rand.Uint64()
				t.Logf("seed %d", seed)
				rng := rand.New(rand.NewPCG(seed, 0))
				for range 800 {
					offsets = append(offsets, rng.IntN(len(raw)))
				}
			}
			var refused, opened int
			for k, off := range offsets {
				b := append([]byte(nil), raw...)
				b[off] ^= byte(1 << (off % 8))
				require.NoError(t, os.WriteFile(path, b, 0o600))
				if checkDamaged(t, path, fmt.Sprintf("offset %d (page %d, byte %d)", off, off/4096, off%4096), all, k%16 == 0) {
					opened++
				} else {
					refused++
				}
			}
			t.Logf("%d flips: %d refused, %d opened and read safely", len(offsets), refused, opened)
			assert.Positive(t, refused)
			assert.Positive(t, opened)
		})
	}
}

// Updates from many goroutines are atomic: no claim is lost.
func TestConcurrentUpdates(t *testing.T) {
	t.Parallel()
	l := open(t, filepath.Join(t.TempDir(), "l"))
	defer l.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				require.NoError(t, l.Update(ctx, prop, []string{"n"}, func(recs []telco.LedgerRecord) error {
					recs[0].State = telco.LedgerNotSent
					recs[0].Attempts++
					return nil
				}))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 200, get(t, l, "n")[0].Attempts)
}

// usedBytes is the size of the pages a bbolt file of 4 KiB pages uses:
// the high-water mark of its later header page (txid at byte 48 of the
// meta, the mark at byte 40, the meta after a 16-byte page header).
func usedBytes(raw []byte) int {
	meta := func(page int) (txid, hwm uint64) {
		m := raw[page*4096+16:]
		return binary.NativeEndian.Uint64(m[48:]), binary.NativeEndian.Uint64(m[40:])
	}
	tx0, hwm := meta(0)
	if tx1, hwm1 := meta(1); tx1 > tx0 {
		hwm = hwm1
	}
	return int(hwm) * 4096
}
