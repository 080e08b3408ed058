package main

// Issue 34, "Once per account": sms send and sms batch share one send
// ledger per service and account, so an ExternalId goes out once whatever
// the command, journal, file or flags that send it.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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

// customers is the CSV: four customers with ExternalIds of their
// own, the last two with numbers the SDK refuses before sending.
const (
	customersBad = "To,Text,ExternalId\n" +
		"+61400000001,Your order shipped,b1\n" +
		"+61400000002,Your order shipped,b2\n" +
		"0400000003,Your order shipped,b3\n" +
		"0400000004,Your order shipped,b4\n"
	customersFixed = "To,Text,ExternalId\n" +
		"+61400000001,Your order shipped,b1\n" +
		"+61400000002,Your order shipped,b2\n" +
		"+61400000003,Your order shipped,b3\n" +
		"+61400000004,Your order shipped,b4\n"
)

// storedTo counts the fake's stored messages by recipient.
func storedTo(h *harness) map[string]int {
	out := map[string]int{}
	for _, m := range h.srv.Messages(h.srv.PropertySid) {
		out[m.To]++
	}
	return out
}

var fourCustomersOnce = map[string]int{"+61400000001": 1, "+61400000002": 1, "+61400000003": 1, "+61400000004": 1}

// Issue 34, reproduction 1: two lines refused for bad numbers, two sent;
// the user fixes the two lines and runs the same command (refused: the
// journal "belongs to another input"), or follows the hint and gives a
// new --journal (all four sent: two customers texted twice). Either way,
// each customer gets exactly one SMS.
func TestBatchFixAndResendSendsEachCustomerOnce(t *testing.T) {
	t.Parallel()
	for _, newJournal := range []bool{false, true} {
		t.Run(fmt.Sprintf("new journal %v", newJournal), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			file := filepath.Join(t.TempDir(), "customers.csv")
			require.NoError(t, os.WriteFile(file, []byte(customersBad), 0o644))
			r := h.run("sms", "batch", file, "-o", "json")
			require.Equal(t, 1, r.code, r.stderr)
			assert.Equal(t, map[string]int{"+61400000001": 1, "+61400000002": 1}, storedTo(h))

			require.NoError(t, os.WriteFile(file, []byte(customersFixed), 0o644))
			args := []string{"sms", "batch", file, "-o", "json"}
			if newJournal {
				args = append(args, "--journal", filepath.Join(t.TempDir(), "new.journal"))
			}
			r = h.run(args...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.NotContains(t, r.stderr, "another input")
			assert.Equal(t, fourCustomersOnce, storedTo(h), "each customer texted once")
			rows := decodeRows(t, r.stdout)
			require.Len(t, rows, 4)
			for _, row := range rows[:2] {
				assert.True(t, row.Earlier, "line %d: sent before, not again", row.Line)
				require.NotNil(t, row.Message)
				assert.NotEmpty(t, row.Message.MessageSid, "sent before, with its MessageSid")
			}
			for _, row := range rows[2:] {
				assert.Equal(t, "sent", row.State, "line %d", row.Line)
				assert.False(t, row.Earlier, "line %d: sent now", row.Line)
			}

			// The same command once more: nothing left to send.
			r = h.run(args...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, fourCustomersOnce, storedTo(h))
		})
	}
}

// The same, with lines the service refuses (a From of another project)
// rather than the SDK: the ledger holds their refusal, and the corrected
// lines, under the same ExternalIds, are sent.
func TestBatchFixAndResendAfterTheServiceRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	other, ok := h.srv.AddProperty(h.srv.AccountSid, "Other")
	require.True(t, ok)
	h.srv.AddNumber(other.PropertySid, "+61299990000")
	bad := "From,To,Text,ExternalId\n" +
		"Acme,+61400000001,Your order shipped,b1\n" +
		"Acme,+61400000002,Your order shipped,b2\n" +
		"+61299990000,+61400000003,Your order shipped,b3\n" +
		"+61299990000,+61400000004,Your order shipped,b4\n"
	file := filepath.Join(t.TempDir(), "customers.csv")
	require.NoError(t, os.WriteFile(file, []byte(bad), 0o644))
	r := h.run("sms", "batch", file, "-o", "json")
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "NUMBER_BELONGS_TO_DIFFERENT_PROPERTY")
	assert.Equal(t, map[string]int{"+61400000001": 1, "+61400000002": 1}, storedTo(h))

	fixed := strings.ReplaceAll(bad, "+61299990000,", "Acme,")
	require.NoError(t, os.WriteFile(file, []byte(fixed), 0o644))
	r = h.run("sms", "batch", file, "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, fourCustomersOnce, storedTo(h), "each customer texted once")
}

// Issue 34, reproduction 2: sms send then sms batch with one ExternalId
// stored it twice, and so did batch then send.
func TestSendAndBatchShareTheLedger(t *testing.T) {
	t.Parallel()
	line := "From,To,Text,ExternalId\nAcme,+61400000001,hi,order-1\n"
	t.Run("send then batch", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.ok(sendArgs("order-1", "hi")...)
		r := h.runIn(line, "sms", "batch", "-o", "json")
		require.Equal(t, 0, r.code, r.stderr)
		rows := decodeRows(t, r.stdout)
		require.Len(t, rows, 1)
		assert.True(t, rows[0].Earlier, "sent before by sms send")
		assert.Equal(t, map[string]int{"order-1": 1}, storedIDs(h.srv))
	})
	t.Run("batch then send", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		r := h.runIn(line, "sms", "batch")
		require.Equal(t, 0, r.code, r.stderr)
		r = h.run(sendArgs("order-1", "hi")...)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "already sent as")
		assert.Equal(t, map[string]int{"order-1": 1}, storedIDs(h.srv))
	})
}

// Issue 34, reproduction 3: a batch with its own ExternalIds run again
// with another --journal, --force, --no-journal or from standard input
// sent every line again. The account's ledger holds them: none is.
func TestOwnExternalIDIsNeverSentTwice(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 3, true)
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	h.ok("sms", "batch", file)
	once := map[string]int{"own-0": 1, "own-1": 1, "own-2": 1}
	require.Equal(t, once, storedIDs(h.srv))
	for _, args := range [][]string{
		{"sms", "batch", file, "--journal", filepath.Join(t.TempDir(), "other.journal")},
		{"sms", "batch", file, "--force"},
		{"sms", "batch", file, "--no-journal"},
		{"sms", "batch", "-"},
		{"sms", "batch", "-", "--force"},
	} {
		r := h.runIn(string(raw), append(args, "-o", "json")...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		for _, row := range decodeRows(t, r.stdout) {
			assert.True(t, row.Earlier, "%v: line %d reported as sent before", args, row.Line)
		}
		assert.Equal(t, once, storedIDs(h.srv), "%v", args)
	}
}

// Issue 34, reproduction 4: a batch of 150 lines that ended in doubt
// printed 3 KB of ExternalIds and flags on one line. It ends, exit 3,
// with the count, the command to run and the command that lists the
// lines, in a few lines, in a table or in JSON.
func TestBatchManyInDoubtSaidBriefly(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"table", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.env["TELCO_TEST_SETTLE_TIME"] = "10ms"
			file := writeBatch(t, 150, true)
			// The batch is stored but its answer lost, and no look-up can
			// settle it.
			h.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultDropAfterRead, Op: "Messages.SendBatch"})
			h.srv.Inject(1000, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 400, Op: "Messages.Find"})
			r := h.run("sms", "batch", file, "--chunk-size", "150", "-o", format)
			require.Equal(t, 3, r.code, r.stderr)
			t.Logf("standard error:\n%s", r.stderr)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			assert.LessOrEqual(t, len(lines), 30, "%s", r.stderr)
			assert.LessOrEqual(t, len(r.stderr), 3000, "%s", r.stderr)
			assert.NotContains(t, r.stderr, "own-149", "no ExternalId one by one")
			assert.Contains(t, r.stderr, "150 uncertain")
			assert.Contains(t, r.stderr, "run the same command")
			assert.Contains(t, r.stderr, "telco sms batch "+file+" --dry-run")
			if format == "json" {
				var e struct{ Error errorReport }
				require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &e), r.stderr)
				assert.Equal(t, 3, e.Error.ExitCode)
				assert.True(t, e.Error.MaybeSent)
				assert.Contains(t, e.Error.Resolve, "--dry-run")
			}

			// The command it names lists them; the same command again,
			// once the look-ups work, settles them without a resend.
			r = h.run("sms", "batch", file, "--dry-run", "-o", "json")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, 150, strings.Count(r.stdout, `"Action":"look-up"`))
			h.srv.ClearFaults()
			r = h.run("sms", "batch", file, "-o", "json")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Len(t, storedIDs(h.srv), 150)
			for id, n := range storedIDs(h.srv) {
				assert.Equal(t, 1, n, id)
			}
		})
	}
}

// A send the service refused left nothing at the service: the same
// command with the message corrected sends it under the same ExternalId,
// once.
func TestSendFixAndResendAfterTheServiceRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	other, ok := h.srv.AddProperty(h.srv.AccountSid, "Other")
	require.True(t, ok)
	h.srv.AddNumber(other.PropertySid, "+61299990000")
	args := []string{"sms", "send", "--to", "+61400000001", "--text", "hi", "--external-id", "fix-1"}
	r := h.run(append(args, "--from", "+61299990000")...)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "NUMBER_BELONGS_TO_DIFFERENT_PROPERTY")
	h.ok(append(args, "--from", "Acme")...)
	r = h.run(append(args, "--from", "Acme")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "already sent as")
	r = h.run(append(args, "--from", "Other")...)
	assert.Equal(t, 1, r.code, "sent: the ExternalId is bound to its message now")
	assert.Equal(t, map[string]int{"fix-1": 1}, storedIDs(h.srv))
}

// Two commands at once share the account's ledger by turns: a batch finds
// it held (by sms send, or a program) and waits, then stops with a clear
// error, nothing sent.
func TestBatchWaitsForTheLedger(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	path := filepath.Join(h.env["XDG_STATE_HOME"], "telco", "ledgers", ledgerName(h.srv.AccountSid, h.srv.URL))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	l, err := boltledger.Open(path)
	require.NoError(t, err)
	defer l.Close()
	start := time.Now()
	r := h.run("sms", "batch", writeBatch(t, 2, true))
	assert.Equal(t, 1, r.code, r.stderr)
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Second, "it waited")
	assert.Contains(t, r.stderr, "ledger "+path+": in use by another telco process")
	assert.Contains(t, r.stderr, "nothing sent")
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))
}

// Issue 34, "a fresh machine": a second home directory (a fresh state
// directory, so a fresh account's ledger) knew nothing the first one had
// sent and sent it all again. After telco ledger sync --since -1h, or
// with --look-up-first, it sends nothing the first one sent, by sms
// batch or by sms send; what is new is sent.
func TestFreshHomeSendsNothingTheFirstSent(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"ledger sync", "look-up-first"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.ok("sms", "batch", writeBatch(t, 5, true)) // own-0 to own-4
			h.ok(sendArgs("order-1", "hi")...)
			require.Len(t, storedIDs(h.srv), 6)

			h.env["XDG_STATE_HOME"] = t.TempDir() // the second home
			var extra []string
			if how == "ledger sync" {
				r := h.run("ledger", "sync", "--since", "-1h", "-o", "json")
				require.Equal(t, 0, r.code, r.stderr)
				var got struct {
					Recorded int
					Ledger   string
				}
				require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
				assert.Equal(t, 6, got.Recorded)
				assert.Equal(t, filepath.Join(h.env["XDG_STATE_HOME"], "telco", "ledgers", ledgerName(h.srv.AccountSid, h.srv.URL)), got.Ledger)
			} else {
				extra = []string{"--look-up-first"}
			}
			r := h.run(append(sendArgs("order-1", "hi"), extra...)...)
			require.Equal(t, 0, r.code, r.stderr)
			if how == "ledger sync" {
				assert.Contains(t, r.stderr, "already sent as")
			} else {
				assert.Contains(t, r.stderr, "found at the service as")
			}
			before := findRequests(h.srv)
			r = h.run(append([]string{"sms", "batch", writeBatch(t, 7, true), "--chunk-size", "1", "-o", "json"}, extra...)...)
			require.Equal(t, 0, r.code, r.stderr)
			if how == "look-up-first" {
				assert.LessOrEqual(t, findRequests(h.srv)-before, 2, "one scan of the window for the batch, not one search per line")
			}
			rows := decodeRows(t, r.stdout)
			require.Len(t, rows, 7)
			for k, row := range rows {
				assert.Equal(t, "sent", row.State, "line %d", row.Line)
				assert.Equal(t, k < 5, row.Earlier, "line %d: sent before by the first home", row.Line)
			}
			r = h.run(append(sendArgs("order-2", "hi"), extra...)...)
			require.Equal(t, 0, r.code, r.stderr)
			want := map[string]int{"order-1": 1, "order-2": 1}
			for i := range 7 {
				want[fmt.Sprintf("own-%d", i)] = 1
			}
			assert.Equal(t, want, storedIDs(h.srv))
		})
	}
}

// Without either, the second home's ledger knows nothing of the first's
// sends, and sends them again: what "once per send ledger" warns of.
func TestFreshHomeWithoutSyncSendsAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 2, true)
	h.ok("sms", "batch", file)
	h.env["XDG_STATE_HOME"] = t.TempDir()
	h.ok("sms", "batch", file, "--no-journal")
	assert.Equal(t, map[string]int{"own-0": 2, "own-1": 2}, storedIDs(h.srv))
}

// ledger sync: --since is required, the window must not be empty, the
// result is one record (table or JSON), and a ledger given with --ledger
// is the one filled; a second sync records nothing new.
func TestLedgerSync(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ok("sms", "batch", writeBatch(t, 3, true))
	r := h.run("ledger", "sync")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "give --since")
	r = h.run("ledger", "sync", "--since", "-1h", "--until", "-2h")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "--until must be after --since")

	path := filepath.Join(t.TempDir(), "shared.ledger")
	r = h.run("ledger", "sync", "--since", "-1h", "--ledger", path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `RECORDED +3\n`, r.stdout)
	assert.Contains(t, r.stdout, path)
	r = h.run("ledger", "sync", "--since", "-1h", "--ledger", path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `RECORDED +0\n`, r.stdout, "the ledger holds them already")
	l, err := boltledger.OpenWith(path, boltledger.Options{ReadOnly: true})
	require.NoError(t, err)
	defer l.Close()
	recs, err := l.Records(context.Background(), h.srv.PropertySid, []string{"own-0", "own-2", "never"})
	require.NoError(t, err)
	assert.Equal(t, telco.LedgerSent, recs[0].State)
	assert.Equal(t, telco.LedgerSent, recs[1].State)
	assert.Equal(t, telco.LedgerNew, recs[2].State)

	r = h.run("sms", "send", "--to", "+61400000001", "--text", "hi", "--look-up-first")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "go with --external-id")
	r = h.run("sms", "batch", writeBatch(t, 1, true), "--since", "-1h")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "--since goes with --recover or --look-up-first")
}

// findRequests counts the Messages.Find requests that reached srv.
func findRequests(srv *telcotest.Server) int {
	n := 0
	for _, r := range srv.RequestRecords() {
		if r.Op == "Messages.Find" {
			n++
		}
	}
	return n
}
