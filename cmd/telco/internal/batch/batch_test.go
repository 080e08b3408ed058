package batch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/boltledger"
	"github.com/telcosdk/telco/telcotest"
)

var ctx = context.Background()

func csvLines(t *testing.T, in string) []Line {
	t.Helper()
	lines, err := Read(strings.NewReader(in), "csv", "in.csv", nil)
	require.NoError(t, err)
	return lines
}

// ExternalIds are the input's own or derived from the batch; a blank at
// either end, or one shared by two lines, refuses the input naming the
// lines, before anything is sent.
func TestPrepareExternalIDs(t *testing.T) {
	t.Parallel()
	prepare := func(in string) (*Job, error) {
		lines := csvLines(t, in)
		ids, _ := AssignIDs(lines, BatchIDOf("sum", "PR1", ""), nil)
		return Prepare(ctx, "PR1", lines, ids, nil)
	}
	job, err := prepare("To,Text,ExternalId\n+61400000001,a,own\n+61400000002,b,\n")
	require.NoError(t, err)
	assert.Equal(t, "own", job.IDs()[0])
	assert.Regexp(t, `^tb[a-z2-7]{10}-3$`, job.IDs()[1])

	_, err = prepare("To,Text,ExternalId\n+61400000001,a, x\n+61400000002,b,y\n+61400000003,c,z \n")
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), `line 2: ExternalId " x"`)
	assert.Contains(t, err.Error(), `line 4: ExternalId "z "`)

	_, err = prepare("To,Text,ExternalId\n+61400000001,a,x\n+61400000002,b,x\n")
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), `lines 2 and 3 share ExternalId "x"`)
}

// A run with chunks in flight at once hands every row out in input
// order, and its summary counts them; a second run on the same journal
// finds every line settled and sends nothing.
func TestRunInOrderAndResume(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	defer srv.Close()
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 200 * time.Millisecond, Op: "Messages.SendBatch"})
	var b strings.Builder
	b.WriteString("To,Text\n0400000000,not E.164\n")
	for i := range 29 {
		fmt.Fprintf(&b, "+6140%07d,Hello %d\n", i, i)
	}
	lines := csvLines(t, b.String())
	dir := t.TempDir()
	jo := JournalOptions{Property: srv.PropertySid}
	j, err := OpenJournal(filepath.Join(dir, "j"), jo)
	require.NoError(t, err)
	ids, err := j.IDs(lines, true)
	require.NoError(t, err)
	ledger, err := boltledger.Open(filepath.Join(dir, "l"))
	require.NoError(t, err)
	job, err := Prepare(ctx, srv.PropertySid, lines, ids, ledger)
	require.NoError(t, err)
	assert.Equal(t, 30, job.ToDo())
	var rows []Row
	res := job.Run(ctx, srv.Client(telco.WithLedger(ledger)), Options{ChunkSize: 3, Parallel: 4,
		Rows: func(r []Row) error { rows = append(rows, r...); return nil }})
	require.NoError(t, res.Failed)
	require.Len(t, rows, 30)
	for k, r := range rows {
		assert.Equal(t, k, r.Index)
	}
	assert.Equal(t, StateRefused, rows[0].State)
	assert.Equal(t, "29 of 30 lines sent, 1 refused", res.Summary())
	assert.Len(t, srv.Messages(srv.PropertySid), 29)
	require.NoError(t, j.Close())

	j, err = OpenJournal(filepath.Join(dir, "j"), jo)
	require.NoError(t, err)
	defer j.Close()
	again, err := j.IDs(lines, true)
	require.NoError(t, err)
	assert.Equal(t, ids, again, "the journal gives every line the ExternalId it had")
	job, err = Prepare(ctx, srv.PropertySid, lines, again, ledger)
	require.NoError(t, err)
	assert.False(t, job.Complete(), "the refused line is not sent")
	assert.Equal(t, 1, job.ToDo(), "only the refused line is handled again")
	rows = nil
	res = job.Run(ctx, srv.Client(telco.WithLedger(ledger)), Options{ChunkSize: 3,
		Rows: func(r []Row) error { rows = append(rows, r...); return nil }})
	assert.Equal(t, "29 of 30 lines sent (29 sent before), 1 refused", res.Summary())
	require.Len(t, rows, 30)
	assert.False(t, rows[0].Earlier, "refused again, not as before")
	assert.True(t, rows[1].Earlier)
	assert.Equal(t, "Hello 0", rows[1].Message.Text, "the text from the input")
	assert.Len(t, srv.Messages(srv.PropertySid), 29, "nothing sent again")
	require.NoError(t, ledger.Close())
}

// A journal belongs to one project; a dry run without one reads none.
func TestJournalMismatch(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j")
	j, err := OpenJournal(path, JournalOptions{Property: "PR1"})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	var me *MismatchError
	_, err = OpenJournal(path, JournalOptions{Property: "PR2"})
	require.ErrorAs(t, err, &me)
	j, err = OpenJournal(path, JournalOptions{Property: "PR1", ReadOnly: true})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	j, err = OpenJournal(filepath.Join(t.TempDir(), "none"), JournalOptions{ReadOnly: true})
	require.NoError(t, err)
	assert.Nil(t, j, "a dry run without a journal")
	ledger, err := boltledger.Open(filepath.Join(t.TempDir(), "l"))
	require.NoError(t, err)
	require.NoError(t, ledger.Close())
	_, err = OpenJournal(ledger.Path(), JournalOptions{Property: "PR1"})
	require.ErrorAs(t, err, &me, "a send ledger is not a journal")
}

// An edited input keeps the ExternalIds the journal made up for the lines
// that did not change, wherever they moved; a new or changed line gets a
// new one, never one given to another line before.
func TestJournalKeepsMadeUpIDsAcrossEdits(t *testing.T) {
	t.Parallel()
	j, err := OpenJournal(filepath.Join(t.TempDir(), "j"), JournalOptions{Input: "sum", Property: "PR1"})
	require.NoError(t, err)
	defer j.Close()
	assert.Equal(t, BatchIDOf("sum", "PR1", ""), j.BatchID(), "derived, as a dry run derives it")
	first, err := j.IDs(csvLines(t, "To,Text\n+61400000001,a\n+61400000002,b\n+61400000002,b\n0400000003,c\n"), true)
	require.NoError(t, err)
	batch := j.BatchID()
	assert.Equal(t, []string{batch + "-2", batch + "-3", batch + "-4", batch + "-5"}, first)

	// A line inserted at the top, the bad number fixed, one copy of b gone.
	edited, err := j.IDs(csvLines(t, "To,Text,ExternalId\n+61400000009,new,\n+61400000001,a,\n+61400000002,b,\n+61400000003,c,\n+61400000004,d,own\n"), true)
	require.NoError(t, err)
	assert.Equal(t, batch+"-2.2", edited[0], "line 2's ID is taken: a suffix")
	assert.Equal(t, first[0], edited[1], "a moved line keeps its ID")
	assert.Equal(t, first[1], edited[2], "the first copy of b keeps its ID")
	assert.Equal(t, batch+"-5.2", edited[3], "a corrected line is a new message")
	assert.Equal(t, "own", edited[4])

	again, err := j.IDs(csvLines(t, "To,Text,ExternalId\n+61400000009,new,\n+61400000001,a,\n+61400000002,b,\n+61400000003,c,\n+61400000004,d,own\n"), false)
	require.NoError(t, err)
	assert.Equal(t, edited, again, "written once, read back")

	require.NoError(t, j.Restart("sum2"))
	assert.Equal(t, BatchIDOf("sum2", "PR1", batch), j.BatchID(), "--force: the next batch, as a dry run derives it")
	forced, err := j.IDs(csvLines(t, "To,Text\n+61400000001,a\n"), true)
	require.NoError(t, err)
	assert.Equal(t, []string{j.BatchID() + "-2"}, forced)
}
