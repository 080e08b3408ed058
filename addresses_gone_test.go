package telco

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAddressDeleteGoneAfterARetry: a retried Addresses.Delete whose
// earlier attempt may have removed the address succeeds when the service
// then says ADDRESS_NOT_FOUND, with the documented 400 or with a 404. Any
// other error, or a not-found on the first attempt, stays an error.
func TestAddressDeleteGoneAfterARetry(t *testing.T) {
	t.Parallel()
	notFound := `{"ResponseStatus":{"ErrorCode":"ADDRESS_NOT_FOUND","Message":"no such address"}}`
	other := `{"ResponseStatus":{"ErrorCode":"ACCOUNT_NOT_FOUND","Message":"no such account"}}`
	for _, tc := range []struct {
		name     string
		first    int // 0: the not-found is the first answer
		status   int
		body     string
		wantCode string // "" for success
	}{
		{"400 ADDRESS_NOT_FOUND after a 503", 503, 400, notFound, ""},
		{"404 ADDRESS_NOT_FOUND after a 503", 503, 404, notFound, ""},
		{"400 ADDRESS_NOT_FOUND first", 0, 400, notFound, CodeAddressNotFound},
		{"404 ADDRESS_NOT_FOUND first", 0, 404, notFound, CodeAddressNotFound},
		{"404 with another code after a 503", 503, 404, other, CodeAccountNotFound},
		{"400 with another code after a 503", 503, 400, other, CodeAccountNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, WithRetryPolicy(addressFastRetries))
			var n atomic.Int32
			mt.RegisterResponder("DELETE", testBase+addressDeletePath, func(*http.Request) (*http.Response, error) {
				if n.Add(1) == 1 && tc.first != 0 {
					return httpmock.NewStringResponse(tc.first, `{"ResponseStatus":{"ErrorCode":"X","Message":"busy"}}`), nil
				}
				return httpmock.NewStringResponse(tc.status, tc.body), nil
			})
			err := c.Addresses.Delete(bg, addressTestSid)
			if tc.wantCode == "" {
				require.NoError(t, err, "the earlier attempt removed the address")
				assert.EqualValues(t, 2, n.Load())
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.wantCode, ErrorCode(err), fmt.Sprint(err))
		})
	}
}
