package main

import (
	"bytes"
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
	"github.com/telcosdk/telco/cmd/telco/internal/batch"
)

func TestBatchFromCSVAndJSONLines(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	csvIn := "From,To,Text,ExternalId,Schedule,DeliveryReceipt\n" +
		"Acme,+61400000001,Hello one,b-1,,true\n" +
		"Acme,+61400000002,\"Hello, two\",b-2,,false\n" +
		"Acme,0400000003,Hello three,b-3,,\n"
	jsonl := `{"From":"Acme","To":"+61400000004","Text":"Hi four","ExternalId":"j-4"}` + "\n\n" +
		`{"From":"Acme","To":"+61400000005","Text":"Hi five","ExternalId":"j-5","DeliveryReceipt":false,"Schedule":` +
		fmt.Sprint(time.Now().Add(time.Hour).Unix()) + `}` + "\n"

	dir := t.TempDir()
	csvFile := filepath.Join(dir, "msgs.csv")
	require.NoError(t, os.WriteFile(csvFile, []byte(csvIn), 0o644))
	jsonlFile := filepath.Join(dir, "msgs.jsonl")
	require.NoError(t, os.WriteFile(jsonlFile, []byte(jsonl), 0o644))
	plainFile := filepath.Join(dir, "msgs.txt") // detected from its first character
	require.NoError(t, os.WriteFile(plainFile, []byte(jsonl), 0o644))

	cases := []struct {
		name, stdin string
		args        []string
		wantCode    int
		accepted    []string // ExternalIds
		rejected    []int    // line numbers
	}{
		{"CSV from a file, chunks of 2", "", []string{csvFile, "--chunk-size", "2"}, 1, []string{"b-1", "b-2"}, []int{4}},
		{"CSV from stdin", csvIn, nil, 1, []string{"b-1", "b-2"}, []int{4}},
		{"CSV from stdin with -", csvIn, []string{"-", "--format", "csv"}, 1, []string{"b-1", "b-2"}, []int{4}},
		{"JSON lines from a file", "", []string{jsonlFile}, 0, []string{"j-4", "j-5"}, nil},
		{"JSON lines detected by content", "", []string{plainFile}, 0, []string{"j-4", "j-5"}, nil},
		{"JSON lines from stdin", jsonl, []string{"--format", "jsonl"}, 0, []string{"j-4", "j-5"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.runIn(tc.stdin, append([]string{"sms", "batch", "-o", "json"}, tc.args...)...)
			require.Equal(t, tc.wantCode, r.code, r.stderr)
			rows := decodeRows(t, r.stdout)
			var accepted []string
			var rejected []int
			for _, row := range rows {
				if row.Message != nil {
					accepted = append(accepted, row.Message.ExternalID)
				} else {
					require.NotNil(t, row.Err)
					assert.Equal(t, telco.CodeInvalidPhoneNumberFormat, row.Err.Code)
					rejected = append(rejected, row.Line)
				}
			}
			assert.Equal(t, tc.accepted, accepted)
			assert.Equal(t, tc.rejected, rejected)
			if tc.wantCode == 1 {
				assert.Contains(t, r.stderr, "1 of 3 messages rejected")
			}
		})
	}

	// The messages really reached the fake, with their options.
	var found []telco.Message
	h.jsonOf(&found, "sms", "find", "--all")
	byID := map[string]telco.Message{}
	for _, m := range found {
		byID[m.ExternalID] = m
	}
	assert.True(t, byID["b-1"].DeliveryReceipt)
	assert.False(t, byID["b-2"].DeliveryReceipt)
	assert.Equal(t, "Hello, two", byID["b-2"].Text)
	assert.NotZero(t, byID["j-5"].Scheduled)
	assert.False(t, byID["j-5"].DeliveryReceipt)

	// From a file, from standard input, and again: the account's ledger
	// sent each ExternalId once.
	assert.Equal(t, map[string]int{"b-1": 1, "b-2": 1, "j-4": 1, "j-5": 1}, storedIDs(h.srv))

	// The table names the line and the service's code and field.
	r := h.runIn(csvIn, "sms", "batch")
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `(?m)^4\s+0400000003\s+b-3\s+INVALID_PHONENUMBER_FORMAT: .*\[To\]$`, r.stdout)
	assert.Regexp(t, `(?m)^2\s+\+61400000001\s+MG[A-Z0-9]{30}\s+b-1\s+accepted \(sent before\)$`, r.stdout)
	fresh := newHarness(t)
	r = fresh.runIn(csvIn, "sms", "batch")
	assert.Regexp(t, `(?m)^2\s+\+61400000001\s+MG[A-Z0-9]{30}\s+b-1\s+accepted$`, r.stdout)
}

func TestBatchInputErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct{ name, stdin, format, want string }{
		{"unknown CSV column", "To,Txt\n+61400000001,hi\n", "", `unknown column "Txt"`},
		{"short CSV row", "To,Text\n+61400000001\n", "", "wrong number of fields"},
		{"bad schedule", "To,Text,Schedule\n+61400000001,hi,tomorrow\n", "", "line 2: the Schedule value"},
		{"bad receipt flag", "To,Text,DeliveryReceipt\n+61400000001,hi,perhaps\n", "", "DeliveryReceipt"},
		{"bad JSON line", `{"To":"+61400000001","Text":"hi"}` + "\n{oops\n", "jsonl", "line 2: not a JSON object"},
		{"unknown JSON field", `{"To":"+61400000001","Txt":"hi"}`, "jsonl", `unknown field "Txt"`},
		{"empty input", "", "", "no messages"},
		{"header only", "To,Text\n", "csv", "no messages"},
		{"unknown format", "To,Text\n", "xml", "--format must be one of csv, jsonl"},
		{"same ExternalId twice", "To,Text,ExternalId\n+61400000001,a,x\n+61400000002,b,x\n", "", `lines 2 and 3 share ExternalId "x"`},
		{"number for To", `{"To":61400000001,"Text":"hi"}`, "", `line 1: field "To" must be a JSON string, not 61400000001`},
		{"object for Text", `{"To":"+61400000001","Text":{"a":1}}`, "jsonl", `field "Text" must be a JSON string`},
		{"bool for ExternalId", "\n" + `{"To":"+61400000001","Text":"hi"}` + "\n" + `{"To":"+61400000001","Text":"hi","ExternalId":true}`, "", `line 3: field "ExternalId"`},
		{"array element not an object", `[{"To":"+61400000001","Text":"hi"}, 5]`, "", "array element 2: not a JSON object"},
		{"array element with a number", `[{"To":"+61400000001","Text":7}]`, "", `array element 1: field "Text" must be a JSON string`},
		{"broken array", `[{"To":"+61400000001","Text":"hi"}`, "", "batch JSON array"},
		{"input after the array", `[{"To":"+61400000001","Text":"hi"}] {}`, "", "more input after the array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"sms", "batch"}
			if tc.format != "" {
				args = append(args, "--format", tc.format)
			}
			r := h.runIn(tc.stdin, args...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assert.Empty(t, r.stdout, "nothing is sent")
		})
	}
	r := h.run("sms", "batch", filepath.Join(t.TempDir(), "missing.csv"))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no such file")
}

// A chunk answered 500 may or may not have been stored: the batch looks
// its ExternalIds up and sends only what is missing, so every line is
// stored once.
func TestBatchWholeRequestFailureIsReconciled(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.FailNext(1, 500)
	r := h.runIn("To,Text,ExternalId\n+61400000001,a,x-1\n+61400000002,b,x-2\n+61400000003,c,x-3\n",
		"sms", "batch", "--chunk-size", "2", "-o", "json")
	assert.Equal(t, 0, r.code, r.stderr)
	rows := decodeRows(t, r.stdout)
	require.Len(t, rows, 3)
	count := map[string]int{}
	for _, m := range h.srv.Messages(h.srv.PropertySid) {
		count[m.ExternalID]++
	}
	assert.Equal(t, map[string]int{"x-1": 1, "x-2": 1, "x-3": 1}, count, "each line stored once")
}

// A whole-batch rejection (not a maybe) stops the run: the lines are not
// sent, and the journal keeps them pending for the next run.
func TestBatchWholeRequestRejectionStops(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "in.csv")
	require.NoError(t, os.WriteFile(file, []byte("To,Text,ExternalId\n+61400000001,a,x-1\n+61400000002,b,x-2\n"), 0o644))
	h.srv.FailNext(1, 400)
	r := h.run("sms", "batch", file)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "lines 2 to 3 were not sent")
	assert.NotContains(t, r.stderr, "later", "no line comes after them")
	assert.Contains(t, r.stderr, "re-run the same command to resume")
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))
	r = h.run("sms", "batch", file)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), 2)
}

// A JSON array, as jq -s writes, is read as JSON whatever the format
// hint; Schedule may be a number and DeliveryReceipt a boolean.
func TestBatchJSONArray(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	in := `  [{"To":"+61400000001","Text":"one","ExternalId":"a-1","DeliveryReceipt":false},
 {"To":"+61400000002","Text":"two","ExternalId":"a-2","Schedule":null}]`
	for _, args := range [][]string{{"sms", "batch"}, {"sms", "batch", "--format", "jsonl"}} {
		r := h.runIn(in, append(args, "-o", "json")...)
		require.Equal(t, 0, r.code, r.stderr)
		rows := decodeRows(t, r.stdout)
		require.Len(t, rows, 2)
		assert.Equal(t, 1, rows[0].Line)
		assert.Equal(t, "a-1", rows[0].Message.ExternalID)
		assert.False(t, rows[0].Message.DeliveryReceipt)
		assert.Equal(t, 2, rows[1].Line)
		assert.Equal(t, "two", rows[1].Message.Text)
	}
	file := filepath.Join(t.TempDir(), "msgs.json")
	require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
	r := h.run("sms", "batch", file)
	assert.Equal(t, 0, r.code, r.stderr)
}

// Every line refused before sending: nothing was sent, a validation
// error. One accepted line makes it a service answer again.
func TestBatchRefusedBeforeSendingExits2(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.runIn("To,Text\n0400000001,a\n+61400000002,\n", "sms", "batch")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "2 of 2 messages refused before sending")
	assert.Contains(t, r.stdout, "INVALID_PHONENUMBER_FORMAT", "each line's result is still printed")
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))
	r = h.runIn("To,Text\n0400000001,a\n+61400000002,b\n", "sms", "batch")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "1 of 2 messages rejected")
}

func TestBatchHelpNamesTheColumns(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	help := h.ok("sms", "batch", "--help")
	for _, name := range batch.FieldNames() { // internal/smswire's table
		assert.Contains(t, help, name)
	}
}

// batchRowOut is a line of sms batch -o json.
type batchRowOut struct {
	Line       int
	ExternalID string `json:"ExternalId"`
	State      string
	Earlier    bool
	Found      bool
	Message    *telco.Message
	Err        *telco.APIError
	Resolve    string
}

// decodeRows reads the JSON lines of sms batch, one object per line.
func decodeRows(t *testing.T, out string) []batchRowOut {
	t.Helper()
	var rows []batchRowOut
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var r batchRowOut
		require.NoError(t, json.Unmarshal([]byte(line), &r), "one JSON object per line: %q", line)
		rows = append(rows, r)
	}
	return rows
}

// runBatchFile sends file to completion with --journal journal and
// returns the rows.
func runBatchFile(t *testing.T, h *harness, file, journal string, extra ...string) []batchRowOut {
	t.Helper()
	r := h.run(append([]string{"sms", "batch", file, "--journal", journal, "-o", "json"}, extra...)...)
	require.Equal(t, 0, r.code, r.stderr)
	return decodeRows(t, r.stdout)
}

// assertStoredOnce checks that the fake holds exactly one message for
// each of ids and nothing else.
func assertStoredOnce(t *testing.T, h *harness, ids ...string) {
	t.Helper()
	want := map[string]int{}
	for _, id := range ids {
		want[id] = 1
	}
	assert.Equal(t, want, storedIDs(h.srv), "every line stored exactly once")
}

// Issue 22, reproduction 2: one damaged byte in a journal's record of a
// sent line (the ledger's record now) made the next run read the line as
// never sent and send it again, exiting 0. A record that fails its
// checksum is in doubt: it is looked up, found, and not sent again.
func TestBatchLedgerDamagedByteIsLookedUpNotResent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 4, true)
	journal, ledger := filepath.Join(t.TempDir(), "j"), filepath.Join(t.TempDir(), "l")
	runBatchFile(t, h, file, journal, "--ledger", ledger)

	raw, err := os.ReadFile(ledger)
	require.NoError(t, err)
	mark := []byte(`"State":"sent"`)
	require.Equal(t, 4, bytes.Count(raw, mark), "one live record per line, no stale copy")
	i := bytes.Index(raw, mark) + len(`"State":"`)
	raw[i] ^= 0x20 // "sent" becomes "Sent": one byte
	require.NoError(t, os.WriteFile(ledger, raw, 0o600))

	rows := runBatchFile(t, h, file, journal, "--ledger", ledger)
	require.Len(t, rows, 4)
	assertStoredOnce(t, h, "own-0", "own-1", "own-2", "own-3")
	found := 0
	for _, r := range rows {
		assert.Equal(t, "sent", r.State, "line %d", r.Line)
		if r.Found {
			found++
		}
	}
	assert.Equal(t, 1, found, "the damaged line was looked up and found")
}

// Issue 22, reproduction 2: a record with a state this version does not
// know was read as never sent. It is in doubt: looked up, not resent.
func TestBatchLedgerUnknownStateIsLookedUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 3, true)
	journal, ledger := filepath.Join(t.TempDir(), "j"), filepath.Join(t.TempDir(), "l")
	runBatchFile(t, h, file, journal, "--ledger", ledger)
	setLedgerState(t, ledger, "own-1", "exploded")

	rows := runBatchFile(t, h, file, journal, "--ledger", ledger)
	require.Len(t, rows, 3)
	assertStoredOnce(t, h, "own-0", "own-1", "own-2")
	assert.True(t, rows[1].Found, "looked up and found: %+v", rows[1])
}

// Issue 22, reproduction 2: a journal (a ledger now) whose meta survived
// but whose records bucket is gone was read as "nothing sent". Every line
// is then in doubt, looked up before anything is sent.
func TestBatchLedgerMissingBucketIsLookedUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 3, true)
	journal, ledger := filepath.Join(t.TempDir(), "j"), filepath.Join(t.TempDir(), "l")
	runBatchFile(t, h, file, journal, "--ledger", ledger)
	dropLedgerRecords(t, ledger)

	rows := runBatchFile(t, h, file, journal, "--ledger", ledger)
	require.Len(t, rows, 3)
	assertStoredOnce(t, h, "own-0", "own-1", "own-2")
	for _, r := range rows {
		assert.True(t, r.Found, "line %d looked up and found", r.Line)
	}
}

// Issue 22, reproduction 3: one input reached by two names (a symlink)
// had two default journals, and the second name sent every line again.
func TestBatchSymlinkedInputSharesItsJournal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 3, false)
	link := filepath.Join(t.TempDir(), "link.csv")
	require.NoError(t, os.Symlink(file, link))

	r := h.run("sms", "batch", link)
	require.Equal(t, 0, r.code, r.stderr)
	r = h.run("sms", "batch", file)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "every line was sent before")
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), 3, "sent once, whatever the name")
	assert.NoFileExists(t, link+journalSuffix, "the journal is beside the file the link resolves to")
}

// Issue 22, reproduction 4: an ExternalId with a leading or trailing
// blank (kept from a CSV) cannot be found again by a service that trims
// it. It is refused before any request, naming the line.
func TestBatchExternalIDWithBlanksIsRefused(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"To,Text,ExternalId\n+61400000001,a,x-1\n+61400000002,b,x-2\n+61400000003,c, x-3\n",
		"To,Text,ExternalId\n+61400000001,a,x-1\n+61400000002,b,x-2\n+61400000003,c,x-3\t\n",
	} {
		h := newHarness(t)
		r := h.runIn(in, "sms", "batch", "--chunk-size", "1")
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, "line 4")
		assert.Contains(t, r.stderr, "blank")
		assert.Empty(t, h.srv.Messages(h.srv.PropertySid), "nothing sent")
	}
	// From a file: no journal is bound to the faulty input, so the
	// corrected file is sent.
	h := newHarness(t)
	file := filepath.Join(t.TempDir(), "in.csv")
	require.NoError(t, os.WriteFile(file, []byte("To,Text,ExternalId\n+61400000001,a,x-1 \n"), 0o644))
	r := h.run("sms", "batch", file)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.NoFileExists(t, file+journalSuffix)
	require.NoError(t, os.WriteFile(file, []byte("To,Text,ExternalId\n+61400000001,a,x-1\n"), 0o644))
	r = h.run("sms", "batch", file)
	assert.Equal(t, 0, r.code, r.stderr)
}

// Issue 36: counts of one are said in the singular ("1 lines" was).
func TestBatchCountsOfOne(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.runIn("To,Text\n0400000001,a\n", "sms", "batch")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "1 of 1 message refused before sending; none was sent")
	r = h.runIn("To,Text\n+61400000001,a\n", "sms", "batch", "--dry-run")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "dry run, nothing sent: 1 line would be sent\n")
	r = h.runIn("To,Text\n+61400000001,a\n", "sms", "batch")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "1 of 1 line sent\n")
	for _, out := range []string{r.stdout, r.stderr} {
		assert.NotRegexp(t, `\b1 (lines|messages|records|results)\b`, out)
	}
}

// Issue 36: --dry-run shows the ExternalIds the real run sends, derived
// ones included: from a file (whose journal the dry run does not create),
// from standard input without a journal, and for --force on a finished
// batch. The same file in another project is another batch.
func TestBatchDryRunShowsTheIDsTheRunSends(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	in := "To,Text\n+61400000001,one\n+61400000002,two\n"
	file := filepath.Join(t.TempDir(), "campaign.csv")
	require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
	ids := func(out string) []string {
		t.Helper()
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var row struct {
				ExternalID string `json:"ExternalId"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &row), line)
			got = append(got, row.ExternalID)
		}
		return got
	}
	run := func(stdin string, args ...string) []string {
		t.Helper()
		r := h.runIn(stdin, append([]string{"sms", "batch", "-o", "json"}, args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		return ids(r.stdout)
	}

	planned := run("", file, "--dry-run")
	require.Len(t, planned, 2)
	assert.Regexp(t, `^tb[a-z2-7]{10}-2$`, planned[0])
	assert.Equal(t, planned, run("", file, "--dry-run"), "the same on every dry run")
	assert.Equal(t, planned, run("", file), "the real run sends what the dry run showed")
	assert.Equal(t, planned, run(in, "--dry-run"), "the same input on standard input is the same batch")
	assert.Equal(t, planned, run(in, "--no-journal", "--dry-run"))

	again := run("", file, "--dry-run", "--force")
	assert.NotEqual(t, planned, again, "--force is a new batch, with new ExternalIds")
	assert.Equal(t, again, run("", file, "--force"), "which the dry run showed")
	assert.NotEqual(t, again, run("", file, "--dry-run", "--force"), "and the next --force another")

	other, _ := h.srv.AddProperty(h.srv.AccountSid, "Other")
	assert.NotEqual(t, planned, run(in, "--property", other.PropertySid, "--dry-run"), "another project, another batch")
}
