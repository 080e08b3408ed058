package main

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	line := h.ok("version")
	assert.Regexp(t, `^telco `+telco.Version+` \(commit [^,]+, go[0-9.]+.*\)\n$`, line)
	assert.Equal(t, line, h.ok("--version"), "--version prints the same line")

	var bi buildInfo
	require.NoError(t, json.Unmarshal([]byte(h.ok("version", "-o", "json")), &bi))
	assert.Equal(t, telco.Version, bi.Version)
	assert.Equal(t, runtime.Version(), bi.GoVersion)
}
