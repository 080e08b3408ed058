package telcotest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
