package telco

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const flowsPath = "/v2/Properties/" + testProp + "/Flows"

func TestFlowsListWire(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := reply(mt, "GET", flowsPath, 200, fixture(t, "list_flows.json"))
	page, err := c.Flows.List(bg, testProp, &ListParams{Count: 10, Skip: 20})
	require.NoError(t, err)

	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, flowsPath, got.Path)
	assert.Equal(t, url.Values{"Results_Count": {"10"}, "Results_Skip": {"20"}}, got.Query)
	assertCommonHeaders(t, got.Header)
	assert.Empty(t, got.Body)

	require.Len(t, page.Items, 2)
	assert.Equal(t, Flow{PropertySid: testProp, ConfigID: "cfg-reception-01", Revision: "7", Name: "Reception IVR",
		Type: "IVR", LastUpdated: 1700000000}, page.Items[0])
	assert.Equal(t, "cfg-after-hours", page.Items[1].ConfigID)
}

// The envelope is not documented: a bare array is read too, and nil
// params send no query.
func TestFlowsListBareArray(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := reply(mt, "GET", flowsPath, 200, fixture(t, "list_flows_bare.json"))
	page, err := c.Flows.List(bg, testProp, nil)
	require.NoError(t, err)
	assert.Empty(t, got.Query)
	require.Len(t, page.Items, 1)
	assert.Equal(t, "cfg-reception-01", page.Items[0].ConfigID)
}

// ListAll pages with Results_Skip and stops at a short page, since the
// listing announces no total.
func TestFlowsListAllPages(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", flowsPath,
		`[{"ConfigId":"a"},{"ConfigId":"b"}]`, `[{"ConfigId":"c"}]`)
	var ids []string
	for f, err := range c.Flows.ListAll(bg, testProp, &ListParams{Count: 2}) {
		require.NoError(t, err)
		ids = append(ids, f.ConfigID)
	}
	assert.Equal(t, []string{"a", "b", "c"}, ids)
	require.Len(t, got.Querys, 2)
	assert.Equal(t, "", got.Querys[0].Get("Results_Skip"))
	assert.Equal(t, "2", got.Querys[1].Get("Results_Skip"))
}
