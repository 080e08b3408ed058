package telcotest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

// fullStore fills a server with one of everything the store holds, every
// field that refers to memory set, so that a copy that shares any of it
// shows.
func fullStore(t *testing.T) *Server {
	t.Helper()
	clk := NewClock(time.Time{})
	srv := NewTestServer(t, WithClock(clk))
	c := srv.Client()
	ctx := context.Background()
	srv.AddNumber(srv.PropertySid, "+61299990000")
	mod := telco.DateTime{Time: clk.Now()}
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{NumberPattern: "+6129999000X", SipTrunkID: telco.Ptr(7), Modified: &mod,
		QuarantineStartDate: &mod, QuarantineEndDate: &mod,
		NumberBlockAssignments:  []telco.NumberBlockAssignment{{Raw: []byte(`{"a":1}`)}},
		AnalyticsDynamicNumbers: []telco.AnalyticsNumber{{PublicNumber: "61299990001"}}})
	srv.AddFlow(srv.PropertySid, telco.Flow{Name: "IVR"})
	call := srv.AddCall(srv.PropertySid, telco.Call{From: "+61400000001"}) // AddCall keeps no Extra
	require.NotEmpty(t, call.CallSid)
	_, err := c.OnlineLogins.Create(ctx, srv.PropertySid, &telco.CreateOnlineLoginParams{Email: "a@example.com",
		Password: "Str0ng!Passw0rd#", FirstName: "A", LastName: "B", Scopes: telco.Scopes{telco.ScopeManage}})
	require.NoError(t, err)
	_, err = c.SipTrunks.Create(ctx, srv.PropertySid, &telco.CreateSipTrunkParams{Name: "PBX", DefaultCallerID: "+61299990000",
		Type: telco.SipTrunkAuthenticated, Credentials: &telco.SipCredentials{Realm: "r", Password: "Tr0nk!Secret9"},
		AllowedCountries: []string{"AU"}})
	require.NoError(t, err)
	_, err = c.SipTrunks.Create(ctx, srv.PropertySid, &telco.CreateSipTrunkParams{Name: "IP", DefaultCallerID: "+61299990000",
		Type: telco.SipTrunkIPToIP, IPAddresses: []string{"52.62.10.7"}})
	require.NoError(t, err)
	_, err = c.Addresses.Create(ctx, srv.AccountSid, &telco.CreateAddressParams{Line1: "1 St", City: "Sydney", CountryCode: "AU"})
	require.NoError(t, err)
	p, err := c.Porting.Submit(ctx, srv.PropertySid, &telco.PortingRequestParams{AuthorisedContactName: "O",
		AuthorisedContactEmail: "o@example.com", DaytimeContactNumber: "+61299999999", CurrentCarrier: "X",
		CurrentCarrierAccountNo: "1", PreferredPortSchedule: telco.PortASAP,
		PortingNumbers: []telco.PortingNumberParams{{Number: "+61298765432", PortType: telco.PortTypeCatA, PortAddress: "1 St",
			IncomingActionType: telco.IncomingAnsweringPoint, IncomingAnswerPoint: "+61400000000"}}})
	require.NoError(t, err)
	require.True(t, srv.SetPortingStatus(p.PortingNo, "Approved"))
	_, err = c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "leased"})
	require.NoError(t, err)
	_, err = c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{From: "+61299990000", To: "+61400000002", Text: "later",
		Schedule: clk.Now().Add(time.Hour)})
	require.NoError(t, err)
	srv.Receive(srv.PropertySid, "+61400000001", "+61299990000", "in")
	srv.FailMessagesTo("+61400000009")
	srv.SetAccountSmsEnabled(srv.AccountSid, true)
	return srv
}

// A copy of the store shares no memory with it: no pointer, no slice's
// array, no map, however deep, so that what changes one never changes
// the other. A field added to the store or to a record that clone does
// not copy deeply fails here (fullStore must set it).
func TestStoreClone_SharesNothing(t *testing.T) {
	t.Parallel()
	srv := fullStore(t)
	srv.mu.Lock()
	defer srv.mu.Unlock()
	cp := srv.st.clone()
	assert.True(t, reflect.DeepEqual(cp.properties, srv.st.properties))
	assert.Len(t, cp.messages, len(srv.st.messages))
	var shared []string
	seen := 0
	walkShared(reflect.ValueOf(srv.st), reflect.ValueOf(cp), "store", &shared, &seen)
	assert.Empty(t, shared, "memory shared between the store and its copy")
	assert.Greater(t, seen, 50, "the walk reached the records")
}

// walkShared walks a and b, values of one type, and lists the paths where
// they refer to the same memory. A *time.Location is shared by design: it
// is never changed.
func walkShared(a, b reflect.Value, path string, shared *[]string, seen *int) {
	if a.Type() == reflect.TypeOf((*time.Location)(nil)) {
		return
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return
		}
		*seen++
		if a.Pointer() == b.Pointer() {
			*shared = append(*shared, path)
			return
		}
		walkShared(a.Elem(), b.Elem(), path, shared, seen)
	case reflect.Slice:
		if a.Len() == 0 || b.Len() == 0 {
			return
		}
		*seen++
		if a.Pointer() == b.Pointer() {
			*shared = append(*shared, path)
			return
		}
		for i := 0; i < min(a.Len(), b.Len()); i++ {
			walkShared(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), shared, seen)
		}
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return
		}
		*seen++
		if a.Pointer() == b.Pointer() {
			*shared = append(*shared, path)
			return
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				walkShared(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k), shared, seen)
			}
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			walkShared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, shared, seen)
		}
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			walkShared(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), shared, seen)
		}
	case reflect.Interface:
		if !a.IsNil() && !b.IsNil() {
			walkShared(a.Elem(), b.Elem(), path, shared, seen)
		}
	}
}

// Reset undoes what happened after the checkpoint, in place changes to
// the records included, and puts the pending messages back on the timer:
// a message scheduled before the checkpoint still goes out after a reset.
func TestReset_RestoresRecordsAndPending(t *testing.T) {
	t.Parallel()
	srv := fullStore(t)
	srv.Checkpoint()
	srv.mu.Lock()
	want := srv.st.clone()
	srv.mu.Unlock()

	srv.mu.Lock()
	srv.st.porting[0].req.PortingNumbers[0].StatusHistory[0].FdxStatusTo = "changed in place"
	srv.st.trunks[0].trunk.SipTrunkCredentials.Realm = "changed in place"
	srv.st.logins[0].Permissions[0].Scopes[0] = telco.ScopeAdmin
	srv.st.blocks[0].block.AnalyticsDynamicNumbers[0].PublicNumber = "changed in place"
	*srv.st.blocks[0].block.SipTrunkID = 8
	srv.st.numbers["61299990000"].cfg.Friendly = "changed in place"
	srv.st.properties[0].Name = "changed in place"
	srv.st.accounts[srv.AccountSid].Token = "changed in place"
	srv.mu.Unlock()
	srv.Reset()

	srv.mu.Lock()
	got := srv.st
	assert.True(t, reflect.DeepEqual(want.porting, got.porting), "porting")
	assert.True(t, reflect.DeepEqual(want.trunks, got.trunks), "trunks")
	assert.True(t, reflect.DeepEqual(want.logins, got.logins), "logins")
	assert.True(t, reflect.DeepEqual(want.blocks, got.blocks), "blocks")
	assert.True(t, reflect.DeepEqual(want.calls, got.calls), "calls")
	assert.True(t, reflect.DeepEqual(want.numbers, got.numbers), "numbers")
	assert.True(t, reflect.DeepEqual(want.properties, got.properties), "properties")
	assert.True(t, reflect.DeepEqual(want.accounts, got.accounts), "accounts")
	assert.Equal(t, want.pending.next(), got.pending.next(), "the scheduled message is pending again")
	srv.mu.Unlock()

	srv.clock.Advance(2 * time.Hour)
	var statuses []telco.MessageStatus
	for _, m := range srv.Messages(srv.PropertySid) {
		statuses = append(statuses, m.Status)
	}
	assert.Equal(t, []telco.MessageStatus{telco.MessageDelivered, telco.MessageDelivered, telco.MessageReceived}, statuses)
}
