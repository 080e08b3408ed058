package boltledger

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// Issue 34: a Go program run twice by cron had no file ledger it could
// import. testdata/cronsend, built and run twice with one ledger file
// against the fake, sends its ExternalId once; the second run prints the
// first run's message.
func TestProgramRunTwiceSendsOnce(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewTestServer(t)
	bin := filepath.Join(t.TempDir(), "cronsend")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/cronsend").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	ledger := filepath.Join(t.TempDir(), "sends.ledger")
	env := append(os.Environ(), telco.EnvBaseURL+"="+srv.URL, telco.EnvAccountSid+"="+srv.AccountSid,
		telco.EnvToken+"="+srv.Token, "TELCO_PROPERTY_SID="+srv.PropertySid)
	var sids []string
	for range 2 {
		cmd := exec.Command(bin, ledger)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "cronsend: %s", stderr.String())
		sids = append(sids, strings.TrimSpace(string(out)))
	}
	assert.Equal(t, sids[0], sids[1], "the second run answered from the ledger")
	msgs := srv.Messages(srv.PropertySid)
	require.Len(t, msgs, 1, "sent once")
	assert.Equal(t, "order-1001", msgs[0].ExternalID)
}

// Two Clients, each opening the ledger file in turn as separate runs of a
// program would, send an ExternalId once; a third that opens it while
// another holds it waits for it, then finds the message sent.
func TestClientsTakingTurnsSendOnce(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewTestServer(t)
	path := filepath.Join(t.TempDir(), "sends.ledger")
	p := telco.SendMessageParams{From: "Acme", To: "+61400000002", Text: "hi", ExternalID: "turns-1"}
	send := func() string {
		l, err := Open(path)
		require.NoError(t, err)
		defer l.Close()
		m, err := srv.Client(telco.WithLedger(l)).Messages.SendOnce(context.Background(), srv.PropertySid, &p)
		require.NoError(t, err)
		return m.MessageSid
	}
	first := send()
	assert.Equal(t, first, send())

	held, err := Open(path)
	require.NoError(t, err)
	var wg sync.WaitGroup
	var third string
	wg.Add(1)
	go func() {
		defer wg.Done()
		third = send() // waits for held's Close
	}()
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, held.Close())
	wg.Wait()
	assert.Equal(t, first, third)
	assert.Len(t, srv.Messages(srv.PropertySid), 1)
}
