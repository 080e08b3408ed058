package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunOnTheFake runs what `go run` runs without credentials or -to.
func TestRunOnTheFake(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, func(string) string { return "" }, ""))
	assert.Contains(t, out.String(), "No credentials")
	assert.Contains(t, out.String(), "notice for order A-1001 sent as MG")
}
