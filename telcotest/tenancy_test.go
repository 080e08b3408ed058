package telcotest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// This is a cross-cutting suite, not the tests of one source file: it
// checks that every operation keeps one account away from another's
// resources, so it spans all the handlers.

// Every way of reaching another account's resource answers 403 FORBIDDEN
// in the service's error shape; the owner still reaches it.
func TestAccounts_OtherAccountsResourcesAre403(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	b := srv.AddAccount("", "")
	mine, theirs := srv.Client(), srv.ClientFor(b.AccountSid)
	ctx := testCtx(t)

	// Resources of account B, made through its own client.
	msg := send(t, theirs, b.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "b"})
	login, err := theirs.OnlineLogins.Create(ctx, b.PropertySid, loginParams("b@example.com"))
	require.NoError(t, err)
	trunk := createTrunk(t, theirs, b.PropertySid, ipTrunk("b"))
	addr, err := theirs.Addresses.Create(ctx, b.AccountSid, &telco.CreateAddressParams{Line1: "1 B St", City: "Sydney", CountryCode: "AU"})
	require.NoError(t, err)
	srv.AddNumber(b.PropertySid, "+61299990001")
	pr := submit(t, theirs, b.PropertySid, portingParams("+61299990002"))

	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"get project", func() error { _, err := mine.Properties.Get(ctx, b.PropertySid); return err }},
		{"update project", func() error {
			return mine.Properties.Update(ctx, b.PropertySid, &telco.UpdatePropertyParams{Name: telco.Ptr("x")})
		}},
		{"send", func() error {
			_, err := mine.Messages.Send(ctx, b.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x"})
			return err
		}},
		{"batch", func() error {
			_, err := mine.Messages.SendBatch(ctx, b.PropertySid, []telco.SendMessageParams{{From: "Acme", To: "+61400000001", Text: "x"}})
			return err
		}},
		{"find", func() error { _, err := mine.Messages.Find(ctx, b.PropertySid, window()); return err }},
		{"get message", func() error { _, err := mine.Messages.Get(ctx, msg.MessageSid); return err }},
		{"create login", func() error {
			_, err := mine.OnlineLogins.Create(ctx, b.PropertySid, loginParams("a@example.com"))
			return err
		}},
		{"get login", func() error { _, err := mine.OnlineLogins.Get(ctx, login.OnlineLoginSid); return err }},
		{"create trunk", func() error { _, err := mine.SipTrunks.Create(ctx, b.PropertySid, ipTrunk("a")); return err }},
		{"list trunks", func() error { _, err := mine.SipTrunks.List(ctx, b.PropertySid, nil); return err }},
		{"trunk by project", func() error { _, err := mine.SipTrunks.GetByProperty(ctx, b.PropertySid, trunk); return err }},
		{"trunk by own account", func() error { _, err := mine.SipTrunks.GetByAccount(ctx, srv.AccountSid, trunk); return err }},
		{"trunk by their account", func() error { _, err := mine.SipTrunks.GetByAccount(ctx, b.AccountSid, trunk); return err }},
		{"submit porting", func() error {
			_, err := mine.Porting.Submit(ctx, b.PropertySid, portingParams("+61299990003"))
			return err
		}},
		{"porting by project", func() error { _, err := mine.Porting.StatusByProperty(ctx, b.PropertySid, portingWindow()); return err }},
		{"porting by account", func() error { _, err := mine.Porting.StatusByAccount(ctx, b.AccountSid, portingWindow()); return err }},
		{"create address", func() error {
			_, err := mine.Addresses.Create(ctx, b.AccountSid, &telco.CreateAddressParams{Line1: "1 St", City: "Sydney", CountryCode: "AU"})
			return err
		}},
		{"delete address", func() error { return mine.Addresses.Delete(ctx, addr.AddressSid) }},
		{"configure number", func() error {
			_, err := mine.Numbers.Configure(ctx, "+61299990001", &telco.NumberConfigParams{Friendly: "x"})
			return err
		}},
		{"blocks by project", func() error { _, err := mine.NumberBlocks.ListByProperty(ctx, b.PropertySid, nil); return err }},
		{"blocks by account", func() error { _, err := mine.NumberBlocks.ListByAccount(ctx, b.AccountSid, nil); return err }},
		{"block search by account", func() error {
			_, err := mine.NumberBlocks.Search(ctx, &telco.NumberBlockSearchParams{AccountSid: b.AccountSid})
			return err
		}},
		{"block search by project", func() error {
			_, err := mine.NumberBlocks.Search(ctx, &telco.NumberBlockSearchParams{PropertySid: b.PropertySid})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireAPIError(t, tc.call(), http.StatusForbidden, telco.CodeForbidden)
		})
	}

	// Nothing was changed or created in B, and B still reaches it all.
	p, err := theirs.Properties.Get(ctx, b.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, "Default project", p.Name)
	_, err = theirs.Messages.Get(ctx, msg.MessageSid)
	require.NoError(t, err)
	_, err = theirs.OnlineLogins.Get(ctx, login.OnlineLoginSid)
	require.NoError(t, err)
	_, err = theirs.SipTrunks.GetByAccount(ctx, b.AccountSid, trunk)
	require.NoError(t, err)
	page, err := theirs.Porting.StatusByAccount(ctx, b.AccountSid, portingWindow())
	require.NoError(t, err)
	assert.Equal(t, []string{pr.PortingNo}, portingNos(page))
	found, err := theirs.Messages.Find(ctx, b.PropertySid, window())
	require.NoError(t, err)
	assert.Len(t, found.Items, 1, "the refused send and batch stored nothing")

	// The 403 body is the service's error envelope.
	r := raw(t, srv, http.MethodGet, "/v2/Properties/"+b.PropertySid, "")
	assert.Equal(t, http.StatusForbidden, r.Status)
	assert.Equal(t, telco.CodeForbidden, errorBody(t, r).ResponseStatus.ErrorCode)
}

// Account-wide listings hold only the caller's resources.
func TestAccounts_ListingsAreScopedToTheCaller(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	b := srv.AddAccount("", "")
	mine, theirs := srv.Client(), srv.ClientFor(b.AccountSid)
	ctx := testCtx(t)
	_, err := theirs.OnlineLogins.Create(ctx, b.PropertySid, loginParams("b@example.com"))
	require.NoError(t, err)
	own, err := mine.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("a@example.com"))
	require.NoError(t, err)
	logins, err := mine.OnlineLogins.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, logins.Items, 1)
	assert.Equal(t, own.OnlineLoginSid, logins.Items[0].OnlineLoginSid)
	assert.Equal(t, 1, logins.TotalCount)

	srv.AddNumberBlock(b.PropertySid, telco.NumberBlock{Name: "theirs", Number: "0299990000"})
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Name: "mine", Number: "0288880000"})
	blocks, err := mine.NumberBlocks.ListByAccount(ctx, srv.AccountSid, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"mine"}, blockNames(blocks))
	blocks, err = mine.NumberBlocks.SearchText(ctx, "0299", nil)
	require.NoError(t, err)
	assert.Empty(t, blocks.Data, "a text search does not find another account's blocks")

	submit(t, theirs, b.PropertySid, portingParams("+61299990002"))
	pr := submit(t, mine, srv.PropertySid, portingParams("+61288880002"))
	page, err := mine.Porting.StatusByAccount(ctx, srv.AccountSid, portingWindow())
	require.NoError(t, err)
	assert.Equal(t, []string{pr.PortingNo}, portingNos(page))

	// An address of another account cannot be put on one's own number.
	addr, err := theirs.Addresses.Create(ctx, b.AccountSid, &telco.CreateAddressParams{Line1: "1 B St", City: "Sydney", CountryCode: "AU"})
	require.NoError(t, err)
	assert.Equal(t, b.AccountSid, addr.AccountSid)
	srv.AddNumber(srv.PropertySid, "+61288880001")
	_, err = mine.Numbers.Configure(ctx, "+61288880001", &telco.NumberConfigParams{AddressSid: addr.AddressSid})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAddressNotFound)

	// A project created by B belongs to B.
	p, err := theirs.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "B2", MainDomain: "b.example.com", TimeZone: "UTC"})
	require.NoError(t, err)
	assert.Equal(t, b.AccountSid, p.AccountSid)
	_, err = mine.Properties.Get(ctx, p.PropertySid)
	requireAPIError(t, err, http.StatusForbidden, telco.CodeForbidden)
}

// The same requests without the SDK's validation, as raw HTTP: the 403 is
// the server's, and an unknown account is 400 ACCOUNT_NOT_FOUND.
func TestAccounts_Raw403And400(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	b := srv.AddAccount("", "")
	now := time.Now().Unix()
	for _, tc := range []struct {
		sid    string
		status int
		code   string
	}{{b.AccountSid, http.StatusForbidden, telco.CodeForbidden}, {"AC" + strings.Repeat("X", 30), http.StatusBadRequest, telco.CodeAccountNotFound}} {
		for _, path := range []string{
			"/v2/Accounts/" + tc.sid + "/numberblocks",
			fmt.Sprintf("/v2/Accounts/%s/Porting/Status?From=%d&To=%d", tc.sid, now-60, now+60),
			"/v2/numberblocks?AccountSid=" + tc.sid,
		} {
			r := raw(t, srv, http.MethodGet, path, "")
			assert.Equal(t, tc.status, r.Status, "%s: %s", path, r.Body)
			assert.Equal(t, tc.code, errorBody(t, r).ResponseStatus.ErrorCode, path)
		}
	}
}

// A send From another project's number is refused, so its configured
// delivery-receipt URL never sees another account's message; a From no
// project holds is accepted (the service may own it, e.g. a verified
// caller ID).
func TestSend_FromAnotherProjectsNumber(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	ctx := testCtx(t)
	a := srv.Client()
	b := srv.AddAccount("", "")
	theirs := srv.ClientFor(b.AccountSid)
	srv.AddNumber(srv.PropertySid, "+61255550001")
	_, err := a.Numbers.Configure(ctx, "+61255550001", &telco.NumberConfigParams{
		DeliveryReceiptWebhookURL: rc.URL + "/a-dr"})
	require.NoError(t, err)

	_, err = theirs.Messages.Send(ctx, b.PropertySid, &telco.SendMessageParams{From: "+61255550001", To: "+61400000001", Text: "secret"})
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeNumberBelongsToDifferentProperty)
	require.Len(t, ae.Fields, 1)
	assert.Equal(t, "From", ae.Fields[0].FieldName)
	res, err := theirs.Messages.SendBatch(ctx, b.PropertySid, []telco.SendMessageParams{{From: "+61255550001", To: "+61400000001", Text: "secret"}})
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.NotNil(t, res[0].Err)
	assert.Equal(t, telco.CodeNumberBelongsToDifferentProperty, res[0].Err.Code)

	// Another project of the same account is another property too.
	other, err := a.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "Other", MainDomain: "o.example.com", TimeZone: "UTC", SmsEnabled: true})
	require.NoError(t, err)
	_, err = a.Messages.Send(ctx, other.PropertySid, &telco.SendMessageParams{From: "+61255550001", To: "+61400000001", Text: "x"})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeNumberBelongsToDifferentProperty)

	// The owner and an unowned number are fine.
	send(t, a, srv.PropertySid, telco.SendMessageParams{From: "+61255550001", To: "+61400000001", Text: "mine"})
	send(t, theirs, b.PropertySid, telco.SendMessageParams{From: "+61299998888", To: "+61400000001", Text: "unowned"})

	// A receipt goes to the number's URL only while the message's own
	// project holds the number: moved to account B, it is not A's to see.
	srv.AddNumber(srv.PropertySid, "+61255550002")
	_, err = a.Numbers.Configure(ctx, "+61255550002", &telco.NumberConfigParams{DeliveryReceiptWebhookURL: rc.URL + "/a-dr2"})
	require.NoError(t, err)
	send(t, a, srv.PropertySid, telco.SendMessageParams{From: "+61255550002", To: "+61400000002", Text: "moved"})
	srv.AddNumber(b.PropertySid, "+61255550002")
	_, err = theirs.Numbers.Configure(ctx, "+61255550002", &telco.NumberConfigParams{DeliveryReceiptWebhookURL: rc.URL + "/b-dr"})
	require.NoError(t, err)

	clock.Advance(telcotest.SubmitDelay + telcotest.DeliverDelay)
	srv.Flush()
	var paths []string
	for _, h := range rc.got() {
		paths = append(paths, h.Path)
		assert.NotEqual(t, "/b-dr", h.Path, "B's URL got A's message: %s", h.Body)
	}
	assert.Equal(t, []string{"/a-dr"}, paths, "only A's own message from its own number reached A's URL")
}
