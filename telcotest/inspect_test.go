package telcotest_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func TestCounts_AndMessagesDoNotAdvanceStatus(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	before := srv.Counts()
	assert.Equal(t, telcotest.Counts{Properties: 1}, before)
	m, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "hi", ExternalID: "e1"})
	require.NoError(t, err)
	_, err = c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "p", MainDomain: "example.com", TimeZone: "AUS Eastern Standard Time"})
	require.NoError(t, err)
	assert.Equal(t, telcotest.Counts{Properties: 2, Messages: 1}, srv.Counts())
	for i := 0; i < 3; i++ {
		ms := srv.Messages(srv.PropertySid)
		require.Len(t, ms, 1)
		assert.Equal(t, m.MessageSid, ms[0].MessageSid)
		assert.Equal(t, "e1", ms[0].ExternalID)
		assert.Equal(t, m.Status, ms[0].Status, "reading through Messages changes nothing")
	}
	assert.Empty(t, srv.Messages("PRNOSUCHPROJECT"))
}

// Requests counts every request that reached the server, refused ones
// included; WaitIdle returns only once a delayed request has been stored.
func TestRequests_CountsRefusedRequestsAndWaitIdleWaitsForDelayed(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	require.Equal(t, 0, srv.Requests())
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodGet, srv.URL+"/v2/Properties", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req) // no credentials: 401
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, 1, srv.Requests(), "a refused request is counted")

	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 50 * time.Millisecond})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _, _ = rawSend(t, srv, "slow")
	}()
	for srv.Requests() < 2 {
		time.Sleep(time.Millisecond)
	}
	srv.WaitIdle()
	assert.Len(t, srv.Messages(srv.PropertySid), 1, "WaitIdle returned before the delayed send was stored")
	wg.Wait()
	assert.Equal(t, 2, srv.Requests())
}
