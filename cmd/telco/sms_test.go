package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/boltledger"
	"github.com/telcosdk/telco/telcotest"
)

func TestFindPagesAndWindows(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i := 0; i < 5; i++ {
		h.ok("sms", "send", "--from", "Acme", "--to", fmt.Sprintf("+6140000000%d", i), "--text", "hi")
	}
	var msgs []telco.Message
	r := h.run("sms", "find", "--count", "2", "--skip", "1", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &msgs))
	assert.Len(t, msgs, 2)
	assert.Contains(t, r.stderr, "more results exist", "3 of 5 are left")
	for _, m := range msgs {
		assert.False(t, m.Created.Time().IsZero(), "Created reads back from RFC 3339")
	}
	assert.Regexp(t, `"Created": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`, r.stdout, "times are RFC 3339")
	var all []telco.Message
	h.jsonOf(&all, "sms", "find", "--all", "--count", "2")
	assert.Len(t, all, 5, "every page of 2")
	h.jsonOf(&all, "sms", "find", "--all", "--since", "+1h", "--until", "+2h")
	assert.Empty(t, all)
}

// sms find --all --parallel N keeps up to N page requests in flight
// (issue 35) and lists the same messages in the same order as one page
// after another, in a table and in JSON; --external-id's scan takes it
// too. N is 1 to 16, and goes with --all or --external-id.
func TestFindAllInParallelListsTheSame(t *testing.T) {
	t.Parallel()
	// The fake's clock stands still, so that no status moves on between
	// the runs whose outputs are compared whole.
	h := newHarness(t, telcotest.WithClock(telcotest.NewClock(time.Now())))
	c := h.srv.Client()
	for b := range 3 {
		msgs := make([]telco.SendMessageParams, 90)
		for i := range msgs {
			n := b*len(msgs) + i
			msgs[i] = telco.SendMessageParams{From: "Acme", To: fmt.Sprintf("+6140%07d", n), Text: fmt.Sprintf("m%d", n), ExternalID: fmt.Sprintf("p-%d", n)}
		}
		_, err := c.Messages.SendBatch(context.Background(), h.srv.PropertySid, msgs)
		require.NoError(t, err)
	}
	for _, format := range []string{"json", "table"} {
		one := h.run("sms", "find", "--all", "--count", "25", "-o", format)
		require.Equal(t, 0, one.code, one.stderr)
		for _, n := range []string{"2", "8", "16"} {
			r := h.run("sms", "find", "--all", "--count", "25", "--parallel", n, "-o", format)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, one.stdout, r.stdout, "--parallel %s, %s: the same messages in the same order", n, format)
		}
	}
	var all []telco.Message
	h.jsonOf(&all, "sms", "find", "--all", "--count", "25", "--parallel", "4")
	require.Len(t, all, 270, "every page of 25, the last one short")
	for i := 1; i < len(all); i++ {
		assert.NotEqual(t, all[i-1].MessageSid, all[i].MessageSid)
	}
	r := h.run("sms", "find", "--external-id", "p-3", "--external-id", "p-260", "--parallel", "4", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 2, strings.Count(r.stdout, `"MessageSid"`))

	for _, bad := range [][]string{{"--all", "--parallel", "0"}, {"--all", "--parallel", "17"}, {"--parallel", "4"}} {
		r := h.run(append([]string{"sms", "find"}, bad...)...)
		assert.Equal(t, 2, r.code, "%v: %s", bad, r.stderr)
		assert.Contains(t, r.stderr, "--parallel", "%v", bad)
	}
}

func TestGetUnknownMessageExits1(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.run("sms", "get", "MGXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX")
	assert.Equal(t, 1, r.code, r.stderr)
}

// sendArgs is an sms send of text with ExternalId id.
func sendArgs(id, text string, extra ...string) []string {
	return append([]string{"sms", "send", "--from", "Acme", "--to", "+61400000001", "--text", text, "--external-id", id}, extra...)
}

// sms send --external-id sends once: the same command again sends
// nothing and says when and as what the message was sent. The ledger is
// the account's, in the state directory.
func TestSendWithExternalIDSendsOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var first, again telco.Message
	h.jsonOf(&first, sendArgs("order-1", "Shipped")...)
	r := h.run(append(sendArgs("order-1", "Shipped"), "-o", "json")...)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &again))
	assert.Equal(t, first.MessageSid, again.MessageSid, "the message as it was sent")
	assert.Equal(t, "Shipped", again.Text)
	path := filepath.Join(h.env["XDG_STATE_HOME"], "telco", "ledgers", ledgerName(h.srv.AccountSid, h.srv.URL))
	assert.Contains(t, r.stderr, "(ledger "+path+"): nothing sent")
	assert.Regexp(t, `already sent as `+first.MessageSid+` at \d{4}-\d\d-\d\dT\S+ \(ledger `, r.stderr)
	assert.Equal(t, map[string]int{"order-1": 1}, storedIDs(h.srv), "one message stored")
	assert.FileExists(t, path)
	assert.Regexp(t, `^`+h.srv.AccountSid+`@127\.0\.0\.1_\d+-[0-9a-f]{8}\.ledger$`, filepath.Base(path))
}

// Each service and account has a ledger of its own, however the
// credentials are given.
func TestLedgerName(t *testing.T) {
	t.Parallel()
	const sid = "AC0000000000000000000000000000AA"
	def := ledgerName(sid, "")
	assert.Equal(t, def, ledgerName(sid, telco.DefaultBaseURL+"/"), "the default service, however it is written")
	assert.Equal(t, def, ledgerName(sid, "HTTPS://API.fonedynamics.com"))
	assert.True(t, strings.HasPrefix(def, sid+"@api.fonedynamics.com-"), def)
	assert.NotEqual(t, def, ledgerName("AC0000000000000000000000000000BB", ""), "another account")
	assert.NotEqual(t, ledgerName(sid, "http://127.0.0.1:8080"), ledgerName(sid, "http://127.0.0.1:8081"), "another service")
	assert.NotEqual(t, ledgerName(sid, "https://gw.example/a"), ledgerName(sid, "https://gw.example/b"), "another prefix")
	assert.Equal(t, sid+"@127.0.0.1_8080-", ledgerName(sid, "http://127.0.0.1:8080")[:len(sid)+16])
}

// The same ExternalId with another message is refused: nothing sent,
// exit 1.
func TestSendExternalIDReusedIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ok(sendArgs("order-2", "Shipped")...)
	r := h.run(sendArgs("order-2", "Cancelled")...)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, `ExternalId "order-2": ExternalId already used for a different message`)
	assert.Contains(t, r.stderr, "nothing sent")
	assert.Equal(t, map[string]int{"order-2": 1}, storedIDs(h.srv))
}

// --ledger chooses the file; without $XDG_STATE_HOME the ledger is under
// ~/.local/state (on Unix); without --external-id there is none.
func TestSendLedgerPlaces(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "my.ledger")
	h.ok(sendArgs("order-3", "hi", "--ledger", path)...)
	assert.FileExists(t, path)
	r := h.run(sendArgs("order-3", "hi", "--ledger", path)...)
	assert.Contains(t, r.stderr, "already sent")

	home := t.TempDir()
	delete(h.env, "XDG_STATE_HOME")
	h.env["HOME"] = home
	h.ok(sendArgs("order-4", "hi")...)
	if runtime.GOOS == "linux" {
		assert.FileExists(t, filepath.Join(home, ".local", "state", "telco", "ledgers", ledgerName(h.srv.AccountSid, h.srv.URL)))
	}
	plain := newHarness(t)
	plain.ok("sms", "send", "--to", "+61400000001", "--text", "no id")
	assert.NoDirExists(t, filepath.Join(plain.env["XDG_STATE_HOME"], "telco"), "no ledger without --external-id")
	r = plain.run("sms", "send", "--to", "+61400000001", "--text", "no id", "--ledger", path)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--ledger, --recover, --look-up-first and --since go with --external-id")
}

// An ExternalId with a blank at either end is refused before anything is
// sent, naming the flag.
func TestSendExternalIDWithBlanksIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.run(sendArgs(" order-5", "hi")...)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "--external-id")
	assert.Contains(t, r.stderr, "blanks")
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))
}

// A second sms send waits a few seconds for the ledger another holds,
// then fails with a clear error, nothing sent.
func TestSendLedgerInUse(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "l")
	l, err := boltledger.Open(path)
	require.NoError(t, err)
	defer l.Close()
	start := time.Now()
	r := h.run(sendArgs("order-6", "hi", "--ledger", path)...)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Second, "it waited")
	assert.Contains(t, r.stderr, "in use by another telco process")
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))
}

// A ledger that cannot be read sends nothing and exits 3, naming
// --recover; --recover moves it aside and looks the ExternalId up before
// sending: a message that went out is not sent again.
func TestSendDamagedLedgerRecovers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["TELCO_TEST_SETTLE_TIME"] = "20ms"
	path := filepath.Join(t.TempDir(), "l")
	h.ok(sendArgs("order-7", "hi", "--ledger", path)...)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw[:5000], 0o600))

	r := h.run(sendArgs("order-7", "hi", "--ledger", path)...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "cannot be read")
	assert.Contains(t, r.stderr, "--recover --since")
	assert.NotContains(t, r.stderr, "panic")

	r = h.run(sendArgs("order-7", "hi", "--ledger", path, "--recover", "--since", "-1h")...)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "moved aside to "+path+".damaged-")
	assert.Contains(t, r.stderr, "found as MG")
	assert.Equal(t, map[string]int{"order-7": 1}, storedIDs(h.srv), "found, not sent again")
	matches, _ := filepath.Glob(path + ".damaged-*")
	assert.Len(t, matches, 1, "the damaged ledger is kept")

	r = h.run(sendArgs("order-8", "hi", "--ledger", path, "--recover", "--since", "-1h")...)
	assert.Equal(t, 2, r.code, "a readable ledger is not recovered: %s", r.stderr)
	h.ok(sendArgs("order-8", "hi", "--ledger", path)...)
	assert.Equal(t, map[string]int{"order-7": 1, "order-8": 1}, storedIDs(h.srv))
}

// sms find --external-id lists every message stored with the ExternalId,
// duplicates included, and says so on standard error.
func TestFindByExternalIDShowsDuplicates(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.srv.Client()
	var sids []string
	for range 2 {
		m, err := c.Messages.Send(context.Background(), h.srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "twice", ExternalID: "dup-1"})
		require.NoError(t, err)
		sids = append(sids, m.MessageSid)
	}
	h.ok(sendArgs("single-1", "once")...)
	r := h.run("sms", "find", "--since", "-5m", "--external-id", "dup-1", "--external-id", "single-1", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var found []telco.Message
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &found))
	require.Len(t, found, 3)
	assert.Equal(t, []string{"dup-1", "dup-1", "single-1"}, []string{found[0].ExternalID, found[1].ExternalID, found[2].ExternalID})
	assert.ElementsMatch(t, sids, []string{found[0].MessageSid, found[1].MessageSid})
	assert.Contains(t, r.stderr, "ExternalId dup-1 has 2 messages (sent more than once)")
	assert.NotContains(t, r.stderr, "single-1")
}

// A batch's journal is not a send ledger, nor the other way round.
func TestLedgerAndJournalAreNotMixedUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	file := writeBatch(t, 1, true)
	journal := filepath.Join(t.TempDir(), "j")
	h.ok("sms", "batch", file, "--journal", journal)
	r := h.run(sendArgs("order-1", "hi", "--ledger", journal)...)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "is not a send ledger")
	ledger := filepath.Join(t.TempDir(), "l")
	h.ok(sendArgs("order-1", "hi", "--ledger", ledger)...)
	r = h.run("sms", "batch", file, "--journal", ledger)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "is not the journal of an sms batch")
	assert.Len(t, h.srv.Messages(h.srv.PropertySid), 2)
}
