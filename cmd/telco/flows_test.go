package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestFlowsList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := h.srv.AddFlow(h.srv.PropertySid, telco.Flow{Name: "Sales", Type: "IVR"})
	out := h.ok("flows", "list")
	assert.Contains(t, out, "CONFIG ID")
	assert.Contains(t, out, f.ConfigID)
	assert.Contains(t, out, "Main menu")

	var page []telco.Flow
	h.jsonOf(&page, "flows", "list", "--count", "2")
	assert.Len(t, page, 2)
	var all []telco.Flow
	h.jsonOf(&all, "flows", "list", "--count", "2", "--all")
	require.Len(t, all, 3)
	assert.Equal(t, "Sales", all[2].Name)

	h.env["TELCO_PROPERTY_SID"] = ""
	assert.Equal(t, 2, h.run("flows", "list").code, "no project")
}
