package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestAPI(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := h.ok("api", "GET", "/v2/Properties/"+h.srv.PropertySid, "--include")
	head, body, ok := strings.Cut(out, "\n\n")
	require.True(t, ok, out)
	assert.True(t, strings.HasPrefix(head, "HTTP 200\n"), head)
	assert.Contains(t, head, "X-Request-Id: RQ")
	var p struct{ Property telco.Property }
	require.NoError(t, json.Unmarshal([]byte(body), &p))
	assert.Equal(t, h.srv.PropertySid, p.Property.PropertySid)

	// A PATCH from a file, answered 204: nothing printed.
	file := filepath.Join(t.TempDir(), "patch.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"Name":"From a file"}`), 0o600))
	assert.Empty(t, h.ok("api", "patch", "Properties/"+h.srv.PropertySid, "--body", "@"+file))
	// A POST from standard input.
	r := h.runIn(`{"Name":"Piped","MainDomain":"p.example","TimeZone":"UTC"}`, "api", "POST", "/v2/Properties", "--body", "@-")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"Name": "Piped"`)
	assert.Contains(t, h.ok("api", "GET", "/v2/Properties/"+h.srv.PropertySid), "From a file")

	r = h.run("api", "GET", "/v2/Properties/PRNOSUCHPROJECT")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "PROPERTY_NOT_FOUND")
	for _, args := range [][]string{
		{"api", "TRACE", "/v2/Properties"},
		{"api", "GET", "https://elsewhere.example/v2/Properties"},
		{"api", "POST", "/v2/Properties", "--body", "{not json"},
		{"api", "POST", "/v2/Properties", "--body", "@/no/such/file"},
		{"api", "GET"},
	} {
		assert.Equal(t, 2, h.run(args...).code, "%v", args)
	}
}
