package telcotest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

// Every project has its default flows; a number routes only to a flow of
// its own project, which Flows.List lets the caller check first.
func TestFlows_SeededPerProjectAndCheckedOnConfigure(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	page, err := c.Flows.List(ctx, srv.PropertySid, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.Equal(t, "Main menu", page.Items[0].Name)
	assert.Equal(t, srv.PropertySid, page.Items[0].PropertySid)
	assert.NotEmpty(t, page.Items[0].ConfigID)
	assert.NotZero(t, page.Items[0].LastUpdated)

	added := srv.AddFlow(srv.PropertySid, telco.Flow{Name: "Sales", Type: "IVR"})
	var names []string
	for f, err := range c.Flows.ListAll(ctx, srv.PropertySid, &telco.ListParams{Count: 2}) {
		require.NoError(t, err)
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"Main menu", "Voicemail", "Sales"}, names)

	srv.AddNumber(srv.PropertySid, "+61299999999")
	cfg, err := c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{
		RoutingMethod: telco.RoutingFlow, Flow: added.ConfigID})
	require.NoError(t, err)
	assert.Equal(t, added.ConfigID, cfg.Flow)

	_, err = c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{
		RoutingMethod: telco.RoutingFlow, Flow: "cfg-unknown"})
	assert.Equal(t, telco.CodeFlowNotFound, telco.ErrorCode(err))

	// Another project's flow is as unknown to this number.
	other, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "B", MainDomain: "b.example", TimeZone: "UTC"})
	require.NoError(t, err)
	theirs, err := c.Flows.List(ctx, other.PropertySid, nil)
	require.NoError(t, err)
	require.NotEmpty(t, theirs.Items)
	_, err = c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{
		RoutingMethod: telco.RoutingFlow, Flow: theirs.Items[0].ConfigID})
	assert.Equal(t, telco.CodeFlowNotFound, telco.ErrorCode(err))

	stranger := srv.AddAccount("", "")
	_, err = srv.ClientFor(stranger.AccountSid).Flows.List(ctx, srv.PropertySid, nil)
	assert.Equal(t, telco.CodeForbidden, telco.ErrorCode(err))
}

// A number block routes only to a flow of its own project, refused as
// Numbers.Configure refuses it: the same status, code and field.
func TestFlows_CheckedOnNumberBlockConfigure(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	res, err := c.NumberBlocks.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberBlockParams{AnswerPoint: "+61299990000"})
	require.NoError(t, err)
	srv.AddNumber(srv.PropertySid, "+61299999999")

	_, numErr := c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{RoutingMethod: telco.RoutingFlow, Flow: "cfg-unknown"})
	want := requireAPIError(t, numErr, http.StatusBadRequest, telco.CodeFlowNotFound)
	_, err = c.NumberBlocks.Configure(ctx, res.NumberBlockSid, &telco.ConfigureNumberBlockParams{
		RoutingMethod: telco.BlockRoutingFlow, Flow: "cfg-unknown"})
	got := requireAPIError(t, err, want.StatusCode, want.Code)
	assert.Equal(t, []string{"Flow"}, fieldNames(got.Fields))
	assert.Equal(t, fieldNames(want.Fields), fieldNames(got.Fields))

	other, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "B", MainDomain: "b.example", TimeZone: "UTC"})
	require.NoError(t, err)
	theirs, err := c.Flows.List(ctx, other.PropertySid, nil)
	require.NoError(t, err)
	require.NotEmpty(t, theirs.Items)
	_, err = c.NumberBlocks.Configure(ctx, res.NumberBlockSid, &telco.ConfigureNumberBlockParams{
		RoutingMethod: telco.BlockRoutingFlow, Flow: theirs.Items[0].ConfigID})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeFlowNotFound)

	page, err := c.NumberBlocks.ListByProperty(ctx, srv.PropertySid, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, "endpoint", page.Data[0].RoutingMethod, "a refused flow leaves the block as it was")

	ours, err := c.Flows.List(ctx, srv.PropertySid, nil)
	require.NoError(t, err)
	conf, err := c.NumberBlocks.Configure(ctx, res.NumberBlockSid, &telco.ConfigureNumberBlockParams{
		RoutingMethod: telco.BlockRoutingFlow, Flow: ours.Items[0].ConfigID})
	require.NoError(t, err)
	assert.Equal(t, "flow", conf.Block.RoutingMethod)
}
