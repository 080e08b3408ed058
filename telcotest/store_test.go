package telcotest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
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
