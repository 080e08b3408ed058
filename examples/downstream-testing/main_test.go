package main

import (
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMainOnTheFake runs main as `go run` would without credentials.
func TestMainOnTheFake(t *testing.T) {
	t.Setenv("TELCO_ACCOUNT_SID", "")
	t.Setenv("TELCO_TOKEN", "")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	require.NoError(t, w.Close())
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Contains(t, string(out), "notice for order A-1001 sent as MG")
}
