package telcotest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

const formType = "application/x-www-form-urlencoded"

// rawForm sends an authenticated form-encoded request.
func rawForm(t *testing.T, srv *telcotest.Server, method, path string, form url.Values) rawResp {
	t.Helper()
	return rawDo(t, srv, basicAuth(srv.AccountSid, srv.Token), method, path, formType, form.Encode())
}

// Operations whose encoding the service leaves open take a form body too.
func TestForm_ConfigureNumberAndCreateAddress(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := rawForm(t, srv, http.MethodPost, "/v2/Accounts/"+srv.AccountSid+"/Addresses",
		url.Values{"Line1": {"1 Form St"}, "City": {"Sydney"}, "CountryCode": {"AU"}, "PostalCode": {"2000"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	// Both answer the bare resource, as the interface document shows it.
	var a telco.Address
	require.NoError(t, json.Unmarshal(r.Body, &a))
	assert.Equal(t, "1 Form St", a.Line1)
	assert.Equal(t, "2000", a.PostalCode)

	srv.AddNumber(srv.PropertySid, "+61255550001")
	r = rawForm(t, srv, http.MethodPost, "/v2/Numbers/61255550001", url.Values{
		"Friendly": {"Front desk"}, "AddressSid": {a.AddressSid}, "Attribution_Source": {"google"},
		"WebHookUrl": {"https://hooks.example/in"}, "WebHookMethod": {"get"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var n telco.NumberConfig
	require.NoError(t, json.Unmarshal(r.Body, &n), "a bare resource: Number is the number, not an envelope")
	assert.Equal(t, "61255550001", n.Number)
	assert.Equal(t, "Front desk", n.Friendly)
	assert.Equal(t, a.AddressSid, n.AddressSid)
	assert.Equal(t, "google", n.AttributionSource)
	assert.Equal(t, "GET", n.WebhookMethod)

	// The rules apply to form bodies as to JSON ones.
	r = rawForm(t, srv, http.MethodPost, "/v2/Accounts/"+srv.AccountSid+"/Addresses", url.Values{"Line1": {"1 St"}, "CountryCode": {"AU"}})
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, telco.CodeParameterRequired, errorBody(t, r).ResponseStatus.ErrorCode)
	r = rawDo(t, srv, basicAuth(srv.AccountSid, srv.Token), http.MethodPost, "/v2/Numbers/61255550001", formType, "Friendly=%zz")
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, "SerializationException", errorBody(t, r).ResponseStatus.ErrorCode)
}

// The batch (and the other operations documented with JSON bodies) refuse
// a form body with the service's whole-request error.
func TestForm_JSONOnlyOperationsRefuseForms(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, path := range []string{
		"/v2/Properties/" + srv.PropertySid + "/BatchMessages",
		"/v2/Properties/" + srv.PropertySid + "/Messages",
		"/v2/Properties",
	} {
		r := rawForm(t, srv, http.MethodPost, path, url.Values{"To": {"+61400000001"}, "From": {"Acme"}, "Text": {"x"}, "Name": {"x"}})
		assert.Equal(t, http.StatusBadRequest, r.Status, path)
		e := errorBody(t, r).ResponseStatus
		assert.Equal(t, "SerializationException", e.ErrorCode, path)
		assert.Contains(t, e.Message, "application/json", path)
	}
	page, err := srv.Client().Messages.Find(testCtx(t), srv.PropertySid, window())
	require.NoError(t, err)
	assert.Empty(t, page.Items, "nothing was sent")
}

// Number-block datetimes travel as /Date(ms+offset)/ strings.
func TestWire_NumberBlockDatetimes(t *testing.T) {
	t.Parallel()
	clock := telcotest.NewClock(time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC))
	srv := newServer(t, telcotest.WithClock(clock))
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Name: "b", Number: "0299990000"})
	r := raw(t, srv, http.MethodGet, "/v2/Properties/"+srv.PropertySid+"/numberblocks", "")
	require.Equal(t, http.StatusOK, r.Status)
	var env struct {
		Data []map[string]json.RawMessage
	}
	require.NoError(t, json.Unmarshal(r.Body, &env))
	require.Len(t, env.Data, 1)
	want := fmt.Sprintf(`"/Date(%d+0000)/"`, clock.Now().UnixMilli())
	assert.Equal(t, want, string(env.Data[0]["Created"]), "Created comes from the fake's clock, in the number-block form")
	assert.Regexp(t, regexp.MustCompile(`"TotalCount":1`), string(r.Body))
}

// Many goroutines of two accounts send, list and read while the clock
// moves and webhooks go out; run with -race.
func TestConcurrency_AccountsClockAndWebhooks(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	b := srv.AddAccount("", "")
	clients := map[string]*telco.Client{srv.PropertySid: srv.Client(), b.PropertySid: srv.ClientFor(b.AccountSid)}
	ctx := testCtx(t)
	const n = 20

	var wg sync.WaitGroup
	errs := make(chan error, 8*n)
	for i := range n {
		for prop, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				to := fmt.Sprintf("+614000001%02d", i%7)
				m, err := c.Messages.Send(ctx, prop, &telco.SendMessageParams{To: to, Text: "leased",
					DeliveryReceiptWebhookURI: rc.URL + "/dr", WebhookURI: rc.URL + "/lease"})
				if err != nil {
					errs <- err
					return
				}
				srv.Receive(prop, to, m.From, "reply")
				if _, err := c.Messages.Get(ctx, m.MessageSid); err != nil {
					errs <- err
				}
				if _, err := c.Messages.Find(ctx, prop, window()); err != nil {
					errs <- err
				}
				if _, err := c.Properties.List(ctx, nil); err != nil {
					errs <- err
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			clock.Advance(100 * time.Millisecond)
			srv.Flush() // may run while other callbacks start
			srv.Callbacks()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	clock.Advance(time.Minute)
	srv.Flush()

	kinds := map[telcotest.CallbackKind]int{}
	for _, cb := range srv.Callbacks() {
		assert.True(t, cb.OK(), cb.Err)
		kinds[cb.Kind]++
	}
	assert.Equal(t, 2*n, kinds[telcotest.CallbackDeliveryReceipt], "one receipt per message")
	assert.Equal(t, 2*n, kinds[telcotest.CallbackLeaseResponse], "one response per reply")

	// Each account leased its own sender per recipient: 7 recipients each.
	for prop, c := range clients {
		senders := map[string]map[string]bool{}
		for m, err := range c.Messages.FindAll(ctx, prop, &telco.FindMessagesParams{
			DateFrom: clock.Now().Add(-time.Hour), DateTo: clock.Now().Add(time.Hour), Direction: telco.DirectionTransmit}) {
			require.NoError(t, err)
			assert.Equal(t, telco.MessageDelivered, m.Status)
			if senders[m.To] == nil {
				senders[m.To] = map[string]bool{}
			}
			senders[m.To][m.From] = true
		}
		assert.Len(t, senders, 7)
		for to, s := range senders {
			assert.Len(t, s, 1, "one lease reused for %s", to)
		}
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

// ErrorCode is written as "" when nothing failed, as the spec says, in
// every answer that carries a message and in its callbacks; a failure's
// code is kept.
func TestMessages_ErrorCodeAlwaysWritten(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	srv.FailMessagesTo("+61400000666")
	r := raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/Messages",
		`{"From":"Acme","To":"+61400000001","Text":"hi","DeliveryReceiptWebhookUri":"`+rc.URL+`/dr"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), `"ErrorCode":""`)
	var sent struct{ Message telco.Message }
	require.NoError(t, json.Unmarshal(r.Body, &sent))
	send(t, srv.Client(), srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000666", Text: "x"})

	r = raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/BatchMessages", `{"Messages":[{"From":"Acme","To":"+61400000002","Text":"b"}]}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), `"ErrorCode":""`)

	r = raw(t, srv, http.MethodGet, "/v2/Messages/"+sent.Message.MessageSid, "")
	assert.Contains(t, string(r.Body), `"ErrorCode":""`)

	clock.Advance(telcotest.SubmitDelay + telcotest.DeliverDelay)
	now := clock.Now().Unix()
	r = raw(t, srv, http.MethodGet, fmt.Sprintf("/v2/Properties/%s/Messages?Date_From=%d&Date_To=%d", srv.PropertySid, now-3600, now+3600), "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, 2, strings.Count(string(r.Body), `"ErrorCode":""`), "%s", r.Body)
	assert.Equal(t, 1, strings.Count(string(r.Body), `"ErrorCode":"UNDELIVERABLE"`), "%s", r.Body)

	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 1)
	assert.Contains(t, string(hits[0].Body), `"ErrorCode":""`)
}
