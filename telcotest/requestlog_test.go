package telcotest

import (
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The log keeps the most recent RequestHistory requests however many
// arrive, Requests counts them all, and a status arriving for a request
// no longer held is dropped, not written over another.
func TestRequestLog_KeepsTheMostRecent(t *testing.T) {
	t.Parallel()
	srv := NewTestServer(t)
	const n = 2*RequestHistory + 7
	var nums []int
	for i := 1; i <= n; i++ {
		nums = append(nums, srv.arrive(httptest.NewRequest("GET", "/v2/Properties/P"+strconv.Itoa(i), nil)))
	}
	assert.Equal(t, n, nums[n-1])
	srv.answered(nums[0], 500) // long gone
	srv.answered(nums[n-1], 201)
	recs, total := srv.requestRecords()
	assert.Equal(t, n, total)
	assert.Equal(t, n, srv.Requests())
	require.Len(t, recs, RequestHistory)
	assert.Equal(t, "/v2/Properties/P"+strconv.Itoa(n-RequestHistory+1), recs[0].Path)
	assert.Equal(t, "/v2/Properties/P"+strconv.Itoa(n), recs[RequestHistory-1].Path)
	assert.Equal(t, "Properties.Get", recs[0].Op)
	assert.Equal(t, 201, recs[RequestHistory-1].Status)
	for _, r := range recs[:RequestHistory-1] {
		require.Equal(t, 0, r.Status, r.Path)
	}
	assert.LessOrEqual(t, len(srv.faults.log.recs), 2*RequestHistory, "memory stays bounded")
}
