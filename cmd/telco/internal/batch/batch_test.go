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
	job, err := Prepare(ctx, "PR1", "sum", csvLines(t, "To,Text,ExternalId\n+61400000001,a,own\n+61400000002,b,\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, "own", job.IDs()[0])
	assert.Regexp(t, `^tb[a-z2-7]{10}-3$`, job.IDs()[1])

	_, err = Prepare(ctx, "PR1", "sum", csvLines(t, "To,Text,ExternalId\n+61400000001,a, x\n+61400000002,b,y\n+61400000003,c,z \n"), nil)
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), `line 2: ExternalId " x"`)
	assert.Contains(t, err.Error(), `line 4: ExternalId "z "`)

	_, err = Prepare(ctx, "PR1", "sum", csvLines(t, "To,Text,ExternalId\n+61400000001,a,x\n+61400000002,b,x\n"), nil)
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), `lines 2 and 3 share ExternalId "x"`)
}

// The orderer hands rows out in input order whatever order they come in,
// past lines that have none.
func TestOrdererKeepsInputOrder(t *testing.T) {
	t.Parallel()
	var got []int
	o := &orderer{emit: func(rows []Row) error {
		for _, r := range rows {
			got = append(got, r.Index)
		}
		return nil
	}, held: map[int]Row{}, none: map[int]bool{}}
	o.put(Row{Index: 2}, Row{Index: 4})
	assert.Empty(t, got, "waits for 0 and 1")
	o.put(Row{Index: 0})
	assert.Equal(t, []int{0}, got)
	o.pass(1)
	assert.Equal(t, []int{0, 2}, got, "1 has no row; 3 is still awaited")
	o.put(Row{Index: 5})
	o.drain()
	assert.Equal(t, []int{0, 2, 4, 5}, got, "drained in order past the gap")
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
	raw := b.String()
	lines := csvLines(t, raw)
	path := filepath.Join(t.TempDir(), "j")
	jo := JournalOptions{Input: InputSum([]byte(raw)), Property: srv.PropertySid}
	j, err := OpenJournal(path, jo)
	require.NoError(t, err)
	job, err := Prepare(ctx, srv.PropertySid, jo.Input, lines, j)
	require.NoError(t, err)
	assert.Equal(t, 30, job.ToDo())
	var rows []Row
	res := job.Run(ctx, srv.Client(telco.WithLedger(job.Ledger())), Options{ChunkSize: 3, Parallel: 4,
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

	j, err = OpenJournal(path, jo)
	require.NoError(t, err)
	defer j.Close()
	job, err = Prepare(ctx, srv.PropertySid, jo.Input, lines, j)
	require.NoError(t, err)
	assert.True(t, job.Complete())
	assert.Zero(t, job.ToDo())
	rows = nil
	res = job.Run(ctx, srv.Client(telco.WithLedger(job.Ledger())), Options{ChunkSize: 3,
		Rows: func(r []Row) error { rows = append(rows, r...); return nil }})
	assert.Equal(t, "29 of 30 lines sent (29 by an earlier run), 1 refused", res.Summary())
	require.Len(t, rows, 30)
	assert.True(t, rows[0].Earlier)
	assert.Equal(t, "Hello 0", rows[1].Message.Text, "the text from the input")
	assert.Len(t, srv.Messages(srv.PropertySid), 29, "nothing sent again")
}

// A journal is bound to its input and project.
func TestJournalMismatch(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j")
	j, err := OpenJournal(path, JournalOptions{Input: "a", Property: "PR1"})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	var me *MismatchError
	_, err = OpenJournal(path, JournalOptions{Input: "b", Property: "PR1"})
	require.ErrorAs(t, err, &me)
	_, err = OpenJournal(path, JournalOptions{Input: "a", Property: "PR2"})
	require.ErrorAs(t, err, &me)
	j, err = OpenJournal(path, JournalOptions{Input: "a", Property: "PR1", ReadOnly: true})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	j, err = OpenJournal(filepath.Join(t.TempDir(), "none"), JournalOptions{ReadOnly: true})
	require.NoError(t, err)
	assert.Nil(t, j, "a dry run without a journal")
}
