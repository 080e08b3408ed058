package telcotest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// The interface document types NextPageToken as a string for online
// logins, SIP trunks and porting status (only the projects listing allows
// null): their last page carries "", never null.
func TestListing_NextPageTokenIsAStringOnTheLastPage(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, path := range []string{
		"/v2/OnlineLogins",
		"/v2/Properties/" + srv.PropertySid + "/SipTrunks",
		"/v2/Properties/" + srv.PropertySid + "/Porting/Status?From=0&To=4102444800",
		"/v2/Accounts/" + srv.AccountSid + "/Porting/Status?From=0&To=4102444800",
	} {
		r := raw(t, srv, http.MethodGet, path, "")
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", path, r.Body)
		var env map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(r.Body, &env), path)
		assert.JSONEq(t, `""`, string(env["NextPageToken"]), path)
		assert.JSONEq(t, `0`, string(env["TotalCount"]), path)
	}
}

// Paging values whose offsets overflow an int are refused naming the
// field, never a dropped connection.
func TestPaging_OverflowIsRefused(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Name: "B"})
	huge := "9223372036854775807"
	for _, tc := range []struct{ path, field string }{
		{"/v2/numberblocks?AccountSid=" + srv.AccountSid + "&PageIndex=4611686018427387904&PageSize=2", "PageIndex"},
		{"/v2/Accounts/" + srv.AccountSid + "/numberblocks?PageIndex=" + huge + "&PageSize=10", "PageIndex"},
		{"/v2/Properties?Results_Skip=1&Results_Count=" + huge, "Results_Count"},
		{"/v2/OnlineLogins?Results_Skip=" + huge + "&Results_Count=5", "Results_Count"},
		{"/v2/Properties/" + srv.PropertySid + "/SipTrunks?Results_Skip=2&Results_Count=" + huge, "Results_Count"},
		{"/v2/Properties/" + srv.PropertySid + "/Messages?Date_From=0&Date_To=4000000000&Results_Skip=2&Results_Count=" + huge, "Results_Count"},
		{"/v2/Properties/" + srv.PropertySid + "/Porting/Status?From=0&To=4000000000&Results_Skip=2&Results_Count=" + huge, "Results_Count"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := raw(t, srv, http.MethodGet, tc.path, "")
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			e := errorBody(t, r)
			assert.Equal(t, telco.CodeParameterInvalid, e.ResponseStatus.ErrorCode)
			require.Len(t, e.ResponseStatus.Errors, 1)
			assert.Equal(t, tc.field, e.ResponseStatus.Errors[0].FieldName)
		})
	}
	// A huge but representable count still answers, clamped to the store.
	r := raw(t, srv, http.MethodGet, "/v2/Properties?Results_Skip=0&Results_Count=9223372036854775806", "")
	assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r = raw(t, srv, http.MethodGet, "/v2/numberblocks?AccountSid="+srv.AccountSid+"&PageIndex=1&PageSize=9223372036854775807", "")
	assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

// The fake keeps every message for as long as it runs: its cost per
// message is what a long `telco mock` run or a load test pays. The
// package doc states the figures measured here; this test keeps them
// honest.
func TestMemoryPerStoredMessage(t *testing.T) {
	// Not parallel: it reads the process's heap.
	const n = 4000
	clock := telcotest.NewClock(time.Time{}) // statuses stay put: nothing is freed meanwhile
	srv := telcotest.NewServer(telcotest.WithClock(clock))
	defer srv.Close()
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Warm up the client, the connection and the fake's first allocations.
	_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000000", Text: "warm up"})
	require.NoError(t, err)

	text := strings.Repeat("x", 60)
	before := liveHeap()
	for i := range n {
		_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{
			To: fmt.Sprintf("+614%08d", i), Text: text, ExternalID: fmt.Sprintf("order-%08d", i),
			DeliveryReceiptWebhookURI: "https://hooks.example.com/telco/receipts?tenant=7"})
		require.NoError(t, err)
	}
	sent := float64(liveHeap()-before) / n

	before = liveHeap()
	srv.SeedInbound(srv.PropertySid, "+61255550000", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), n)
	received := float64(liveHeap()-before) / n
	// A kept callback: a receipt's JSON body and its record. The
	// receiver keeps nothing.
	hooks := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer hooks.Close()
	number := "+61255550001"
	srv.AddNumber(srv.PropertySid, number)
	_, err = c.Numbers.Configure(ctx, number, &telco.NumberConfigParams{WebhookURL: hooks.URL + "/in?tenant=7"})
	require.NoError(t, err)
	srv.Receive(srv.PropertySid, "+61400000001", number, text)
	srv.Flush()
	const m = 500
	before = liveHeap()
	for range m {
		srv.Receive(srv.PropertySid, "+61400000001", number, text)
	}
	srv.Flush()
	callback := float64(liveHeap()-before)/m - received
	require.Len(t, srv.Callbacks(), m+1)
	runtime.KeepAlive(srv)
	t.Logf("live heap per stored message: sent %.0f B, received %.0f B; per kept callback %.0f B", sent, received, callback)
	assert.Less(t, callback, 2048.0, "bytes per kept callback")

	// The package doc says 0.8, 0.4 and about 1 KiB: fail when a figure
	// has roughly doubled and the doc is wrong.
	assert.Less(t, sent, 1536.0, "bytes per sent message")
	assert.Less(t, received, 1024.0, "bytes per received message")
	assert.Greater(t, sent, 200.0, "the measurement measures something")
}
