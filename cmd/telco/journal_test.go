package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/boltledger"
	"github.com/telcosdk/telco/cmd/telco/internal/batch"
	"github.com/telcosdk/telco/telcotest"
	bolt "go.etcd.io/bbolt"
)

// writeBatch writes a CSV of n messages, without an ExternalId column
// unless ids, and returns its path.
func writeBatch(t testing.TB, n int, ids bool) string {
	t.Helper()
	var b strings.Builder
	if ids {
		b.WriteString("To,Text,ExternalId\n")
	} else {
		b.WriteString("To,Text\n")
	}
	for i := range n {
		fmt.Fprintf(&b, "+6140%07d,Message %d", i, i)
		if ids {
			fmt.Fprintf(&b, ",own-%d", i)
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "batch.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// storedIDs counts the fake's stored messages by ExternalId.
func storedIDs(srv *telcotest.Server) map[string]int {
	out := map[string]int{}
	for _, m := range srv.Messages(srv.PropertySid) {
		out[m.ExternalID]++
	}
	return out
}

// Re-running a finished batch sends nothing and prints the whole record;
// --force sends it again as a new batch, with new made-up ExternalIds.
func TestBatchRerunSendsNothingUnlessForced(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 7, false)
	r := h.run("sms", "batch", file, "--chunk-size", "3", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	first := decodeRows(t, r.stdout)
	require.Len(t, first, 7)
	assert.FileExists(t, file+journalSuffix, "the journal is beside the input")
	for _, row := range first {
		assert.Regexp(t, `^tb[a-z2-7]{10}-\d+$`, row.ExternalID, "made up from the batch and the line")
		assert.True(t, strings.HasSuffix(row.ExternalID, fmt.Sprintf("-%d", row.Line)))
		assert.False(t, row.Earlier)
	}

	r = h.run("sms", "batch", file, "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "every line was sent before (ledger ")
	assert.Contains(t, r.stderr, "--force")
	again := decodeRows(t, r.stdout)
	require.Len(t, again, 7, "the whole record again")
	for i, row := range again {
		assert.True(t, row.Earlier)
		assert.Equal(t, first[i].Message.MessageSid, row.Message.MessageSid)
	}
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), 7, "nothing sent again")

	r = h.run("sms", "batch", file, "--force", "--dry-run", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 7, strings.Count(r.stdout, `"Action":"send"`), "a dry run shows the new batch")
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), 7, "and sends nothing")

	r = h.run("sms", "batch", file, "--force", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	forced := decodeRows(t, r.stdout)
	require.Len(t, forced, 7)
	assert.NotEqual(t, first[0].ExternalID, forced[0].ExternalID, "a new batch has new ExternalIds")
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), 14)
}

// A journal belongs to one project: the same file sent to another
// project needs a journal of its own.
func TestBatchJournalOfAnotherProjectIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 2, false)
	h.ok("sms", "batch", file)
	var other telco.Property
	h.jsonOf(&other, "projects", "create", "--name", "Other", "--domain", "other.example", "--time-zone", "AUS Eastern Standard Time", "--sms")
	r := h.run("sms", "batch", file, "--property", other.PropertySid)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "belongs to project "+h.srv.PropertySid)
	r = h.run("sms", "batch", file, "--journal", filepath.Join(t.TempDir(), "j"), "--property", other.PropertySid)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), 2)
	assert.Len(t, h.srv.Messages(other.PropertySid), 2, "the other project's batch, with its own journal")
}

// Lines the ledger says may have been sent are looked up before anything
// is resent: one that was stored is not sent again, one that was not is.
func TestBatchResumeReconcilesUncertainLines(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 4, true)
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	lines, err := batch.Read(strings.NewReader(string(raw)), "", file, nil)
	require.NoError(t, err)

	// A run that died in its second chunk: lines 0 and 1 sent, lines 2
	// and 3 in flight, of which only line 2 reached the service.
	ledger := filepath.Join(t.TempDir(), "l")
	l, err := boltledger.Open(ledger)
	require.NoError(t, err)
	c := h.srv.Client()
	var sent [3]*telco.Message
	for i := range 3 {
		p := lines[i].Params
		sent[i], err = c.Messages.Send(context.Background(), h.srv.PropertySid, &p)
		require.NoError(t, err)
	}
	attempt := time.Now().Add(-3 * time.Second)
	require.NoError(t, l.Update(context.Background(), h.srv.PropertySid, []string{"own-0", "own-1", "own-2", "own-3"},
		func(recs []telco.LedgerRecord) error {
			for i := range 2 {
				recs[i] = telco.LedgerRecord{State: telco.LedgerSent, First: attempt, Last: attempt, Attempts: 1, Message: sent[i]}
			}
			for i := 2; i < 4; i++ {
				recs[i] = telco.LedgerRecord{State: telco.LedgerSending, First: attempt, Last: attempt, Attempts: 1, Claim: time.Now().Add(time.Hour)}
			}
			return nil
		}))
	require.NoError(t, l.Close())

	r := h.run("sms", "batch", file, "--ledger", ledger, "--dry-run", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"Action":"look-up"`)
	assert.Contains(t, r.stderr, "0 lines would be sent, 2 looked up first (they may have been sent), 2 sent before")

	r = h.run("sms", "batch", file, "--ledger", ledger, "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	rows := decodeRows(t, r.stdout)
	require.Len(t, rows, 4)
	byID := map[string]batchRowOut{}
	for _, row := range rows {
		byID[row.ExternalID] = row
	}
	assert.True(t, byID["own-0"].Earlier)
	assert.Equal(t, "Message 0", byID["own-0"].Message.Text, "the text comes from the input: a ledger keeps none")
	assert.True(t, byID["own-2"].Found, "found by its ExternalId, not sent again")
	assert.Equal(t, "sent", byID["own-3"].State)
	assert.False(t, byID["own-3"].Found, "not found: sent")
	assert.Equal(t, map[string]int{"own-0": 1, "own-1": 1, "own-2": 1, "own-3": 1}, storedIDs(h.srv))
	assert.Contains(t, r.stderr, "4 of 4 lines sent")
}

// --dry-run checks every line, prints what would be sent with scheduled
// times in the user's zone, and sends nothing.
func TestBatchDryRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["TZ"] = "Australia/Sydney"
	syd, err := time.LoadLocation("Australia/Sydney")
	require.NoError(t, err)
	sched := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	in := fmt.Sprintf("To,Text,ExternalId,Schedule\n+61400000001,Hello,d-1,%d\n0400000002,Bad,d-2,\n", sched.Unix())
	r := h.runIn(in, "sms", "batch", "--dry-run", "-o", "json")
	assert.Equal(t, 2, r.code, "a line would be refused")
	assert.Contains(t, r.stderr, "dry run, nothing sent: 1 line would be sent, 1 refused")
	assert.Contains(t, r.stdout, `"Schedule":"`+sched.In(syd).Format(time.RFC3339)+`"`)
	assert.Contains(t, r.stdout, `"Action":"refuse"`)
	r = h.runIn(in, "sms", "batch", "--dry-run")
	assert.Contains(t, r.stdout, sched.In(syd).Format(time.RFC3339), "the table shows the time as JSON does")
	r = h.runIn(in, "sms", "batch", "--dry-run", "--utc")
	assert.Contains(t, r.stdout, sched.UTC().Format(time.RFC3339), "--utc")

	// A Schedule without a zone is read in the user's zone.
	local := time.Now().Add(3 * time.Hour).Truncate(time.Minute).In(syd)
	r = h.runIn("To,Text,Schedule\n+61400000001,Hi,"+local.Format("2006-01-02 15:04")+"\n", "sms", "batch", "--dry-run", "-o", "json")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"Schedule":"`+local.Format(time.RFC3339)+`"`)
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))

	// No credentials needed to check a file.
	code := run(context.Background(), []string{"sms", "batch", "--dry-run", "--property", h.srv.PropertySid}, strings.NewReader(in),
		&strings.Builder{}, &strings.Builder{}, envOf(map[string]string{}))
	assert.Equal(t, 2, code)
}

// Two runs of one batch at once: the second finds the journal locked.
func TestBatchJournalIsLocked(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 1, true)
	path, err := batch.DefaultJournalPath(file)
	require.NoError(t, err)
	j, err := batch.OpenJournal(path, batch.JournalOptions{Property: h.srv.PropertySid})
	require.NoError(t, err)
	defer j.Close()
	r := h.run("sms", "batch", file)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "in use by another telco process")
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))
}

// setLedgerState rewrites the state of id's record in the ledger at
// path, sealed anew (a valid record of a state this version does not
// know, as a newer telco might write).
func setLedgerState(t *testing.T, path, id, state string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("records"))
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var s struct {
				E int
				R map[string]any
			}
			require.NoError(t, json.Unmarshal(v[4:], &s))
			if s.R["ExternalID"] == id {
				s.R["State"] = state
				payload, _ := json.Marshal(s)
				sum := crc32.Update(crc32.Checksum(k, crc32.MakeTable(crc32.Castagnoli)), crc32.MakeTable(crc32.Castagnoli), payload)
				return b.Put(append([]byte(nil), k...), append(binary.BigEndian.AppendUint32(nil, sum), payload...))
			}
		}
		return fmt.Errorf("no record for %s", id)
	}))
}

// dropLedgerRecords deletes every bucket of the ledger at path but its
// meta.
func dropLedgerRecords(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		var names [][]byte
		_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			if string(name) != "meta" {
				names = append(names, append([]byte(nil), name...))
			}
			return nil
		})
		require.NotEmpty(t, names)
		for _, n := range names {
			if err := tx.DeleteBucket(n); err != nil {
				return err
			}
		}
		return nil
	}))
}

// halfSentBatch sends the first two chunks of a 30-line batch with
// derived ExternalIds and has the third refused as a whole, so that the
// journal records 14 lines sent and the rest not; it returns the file,
// its journal and the rows printed.
func halfSentBatch(t *testing.T, h *harness) (string, string, []batchRowOut) {
	t.Helper()
	file := writeBatch(t, 30, false)
	journal, err := batch.DefaultJournalPath(file)
	require.NoError(t, err)
	h.srv.Inject(2, telcotest.Fault{Op: "Messages.SendBatch"}) // handled normally
	h.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 400, Op: "Messages.SendBatch"})
	r := h.run("sms", "batch", file, "--chunk-size", "7", "-o", "json")
	require.Equal(t, 1, r.code, r.stderr)
	rows := decodeRows(t, r.stdout)
	require.Len(t, rows, 14)
	return file, journal, rows
}

// A journal bbolt cannot read (both header pages damaged) stops the
// batch with exit 3, nothing sent; --recover moves it aside, salvages the
// batch's ID and start from its header record, and makes the same
// ExternalIds again: the ledger knows the lines sent, every line it does
// not know is looked up, and only those not found are sent: every line
// stored once.
func TestBatchRecoverSalvagesTheHeader(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["TELCO_TEST_SETTLE_TIME"] = "20ms"
	file, journal, first := halfSentBatch(t, h)
	raw, err := os.ReadFile(journal)
	require.NoError(t, err)
	raw[16+56] ^= 0xff      // the first header page's checksum
	raw[4096+16+56] ^= 0xff // the second's
	require.NoError(t, os.WriteFile(journal, raw, 0o600))

	r := h.run("sms", "batch", file, "-o", "json")
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "cannot be read")
	assert.Contains(t, r.stderr, "--recover")
	assert.Empty(t, r.stdout)
	assert.Len(t, storedIDs(h.srv), 14, "nothing sent")

	r = h.run("sms", "batch", file, "--recover", "--chunk-size", "7", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "moved aside to "+journal+".damaged-")
	assert.Contains(t, r.stderr, "read from the damaged journal")
	rows := decodeRows(t, r.stdout)
	require.Len(t, rows, 30)
	for k, row := range rows {
		assert.Equal(t, "sent", row.State)
		if k < 14 {
			assert.True(t, row.Earlier, "line %d: the ledger holds it as sent, not sent again", row.Line)
			assert.Equal(t, first[k].ExternalID, row.ExternalID, "the same ExternalId: the batch ID was salvaged")
		} else {
			assert.False(t, row.Found)
			assert.False(t, row.Earlier)
		}
	}
	stored := storedIDs(h.srv)
	assert.Len(t, stored, 30)
	for id, n := range stored {
		assert.Equal(t, 1, n, id)
	}
	r = h.run("sms", "batch", file)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "every line was sent before")
}

// With the header lost too (the file cut to 100 bytes), --recover needs
// --since, and --batch-id for lines whose ExternalIds were made up from
// it; with them, nothing is sent twice.
func TestBatchRecoverWithoutTheHeader(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["TELCO_TEST_SETTLE_TIME"] = "20ms"
	file, journal, first := halfSentBatch(t, h)
	raw, err := os.ReadFile(journal)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(journal, raw[:100], 0o600))

	r := h.run("sms", "batch", file, "--recover")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "give --since")
	r = h.run("sms", "batch", file, "--recover", "--since", "-1h")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "give --batch-id")
	assert.FileExists(t, journal, "not moved aside before the recovery can go ahead")

	id := strings.TrimSuffix(first[0].ExternalID, "-2")
	r = h.run("sms", "batch", file, "--recover", "--since", "-1h", "--batch-id", id, "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	rows := decodeRows(t, r.stdout)
	require.Len(t, rows, 30)
	earlier := 0
	for _, row := range rows {
		if row.Earlier {
			earlier++
		}
	}
	assert.Equal(t, 14, earlier, "the ledger knows the lines sent under the ExternalIds made again")
	stored := storedIDs(h.srv)
	assert.Len(t, stored, 30)
	for id, n := range stored {
		assert.Equal(t, 1, n, id)
	}
}

// --recover is for a journal or a ledger that cannot be read: readable
// ones are left alone.
func TestBatchRecoverReadableJournalIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 2, true)
	h.ok("sms", "batch", file)
	r := h.run("sms", "batch", file, "--recover")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "can be read: --recover is only for a journal or a ledger that cannot")
	r = h.run("sms", "batch", file, "--since", "-1h")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "--since goes with --recover or --look-up-first")
}

// A line an earlier run left in doubt an hour ago, which this run cannot
// settle either (its look-ups fail), exits 3 with a look-up that
// searches from before that first attempt, not from this run.
func TestBatchUnresolvedHintSearchesFromTheFirstAttempt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["TELCO_TEST_SETTLE_TIME"] = "20ms"
	file := writeBatch(t, 2, true)
	ledger := filepath.Join(t.TempDir(), "l")
	l, err := boltledger.Open(ledger)
	require.NoError(t, err)
	first := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	require.NoError(t, l.Update(context.Background(), h.srv.PropertySid, []string{"own-0"}, func(recs []telco.LedgerRecord) error {
		recs[0] = telco.LedgerRecord{State: telco.LedgerInDoubt, First: first, Last: first, Attempts: 1}
		return nil
	}))
	require.NoError(t, l.Close())
	h.srv.Inject(100, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 400, Op: "Messages.Find"})

	r := h.run("sms", "batch", file, "--ledger", ledger, "-o", "json")
	assert.Equal(t, 3, r.code, r.stderr)
	rows := decodeRows(t, r.stdout)
	require.Len(t, rows, 2)
	assert.Equal(t, "uncertain", rows[0].State)
	assert.Equal(t, "sent", rows[1].State, "the other line of the chunk is sent meanwhile")
	since := first.Add(-time.Minute).Format(time.RFC3339)
	assert.Contains(t, rows[0].Resolve, "--since "+since)
	var e struct{ Error errorReport }
	require.NoError(t, json.Unmarshal([]byte(r.stderr[strings.LastIndex(r.stderr[:len(r.stderr)-1], "\n")+1:]), &e), r.stderr)
	assert.Equal(t, 3, e.Error.ExitCode)
	assert.Contains(t, e.Error.Resolve, "--since "+since)
	assert.Contains(t, e.Error.Resolve, "--external-id own-0")
	assert.Equal(t, map[string]int{"own-1": 1}, storedIDs(h.srv), "the line in doubt is not sent while it cannot be settled")
}

// A journal of the earlier telco (plain JSON, no checksums) is not read:
// exit 3, nothing sent; --recover takes its batch ID and start from its
// header and looks every line up, so the lines it had sent are found.
func TestBatchRecoverEarlierJournal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["TELCO_TEST_SETTLE_TIME"] = "20ms"
	file := writeBatch(t, 3, false)
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	journal, err := batch.DefaultJournalPath(file)
	require.NoError(t, err)
	started := time.Now().Add(-10 * time.Minute).UTC()
	db, err := bolt.Open(journal, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		meta, _ := tx.CreateBucket([]byte("meta"))
		_, _ = tx.CreateBucket([]byte("lines"))
		v, _ := json.Marshal(map[string]any{"Version": 1, "Input": fmt.Sprintf("%x", sha256.Sum256(raw)), "Property": h.srv.PropertySid,
			"BatchID": "tbearlier0001", "Created": started})
		return meta.Put([]byte("meta"), v)
	}))
	require.NoError(t, db.Close())
	c := h.srv.Client()
	for _, line := range []int{2, 3} { // what the earlier run had sent
		_, err := c.Messages.Send(context.Background(), h.srv.PropertySid,
			&telco.SendMessageParams{To: fmt.Sprintf("+6140%07d", line-2), Text: fmt.Sprintf("Message %d", line-2), ExternalID: fmt.Sprintf("tbearlier0001-%d", line)})
		require.NoError(t, err)
	}

	r := h.run("sms", "batch", file)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "written by an earlier version of telco")
	assert.Contains(t, r.stderr, "--recover")
	r = h.run("sms", "batch", file, "--recover", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	rows := decodeRows(t, r.stdout)
	require.Len(t, rows, 3)
	assert.True(t, rows[0].Found)
	assert.True(t, rows[1].Found)
	assert.False(t, rows[2].Found)
	assert.Equal(t, map[string]int{"tbearlier0001-2": 1, "tbearlier0001-3": 1, "tbearlier0001-4": 1}, storedIDs(h.srv))
}
