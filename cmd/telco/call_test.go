package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

// runCall stops at the first failure: without credentials no call is made,
// and a call that fails prints nothing.
func TestRunCallStopsAtTheFirstFailure(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	noPrint := func(int) error { t.Error("printed after a failure"); return nil }

	a := &app{stdout: &out, env: func(string) string { return "" }}
	called := false
	err := runCall(a, func(*telco.Client) (int, error) { called = true; return 1, nil }, noPrint)
	var ue *usageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "no credentials")
	assert.False(t, called, "no client, no call")

	h := newHarness(t)
	a = &app{stdout: &out, env: envOf(h.env)}
	boom := errors.New("boom")
	err = runCall(a, func(c *telco.Client) (int, error) {
		assert.NotNil(t, c)
		return 0, boom
	}, noPrint)
	assert.ErrorIs(t, err, boom)
	assert.Empty(t, out.String())

	err = runCall(a, func(*telco.Client) (int, error) { return 7, nil }, func(v int) error {
		return json.NewEncoder(&out).Encode(v)
	})
	require.NoError(t, err)
	assert.Equal(t, "7\n", out.String())
}

// runList prints the page the SDK returned, or with all every item of the
// iterator, and nothing when the page fails.
func TestRunListPrintsOnePageOrEvery(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var out, errOut bytes.Buffer
	a := &app{stdout: &out, stderr: &errOut, env: envOf(h.env), output: "json"}
	cols := []column[string]{{name: "NAME", get: func(s *string) string { return *s }}}
	page := func(*telco.Client) (any, []string, error) {
		return pageOf(&telco.Page[string]{Items: []string{"one"}, TotalCount: 3, NextPageToken: "2"}, nil)
	}
	every := func(*telco.Client) iter.Seq2[string, error] {
		return func(yield func(string, error) bool) {
			_ = yield("one", nil) && yield("two", nil) && yield("three", nil)
		}
	}

	require.NoError(t, runList(a, false, cols, nil, page, every))
	var p []string
	require.NoError(t, json.Unmarshal(out.Bytes(), &p), out.String())
	assert.Equal(t, []string{"one"}, p, "-o json prints a page as an array, the shape of --all")
	assert.Contains(t, errOut.String(), "more results exist", "and says on stderr that more pages exist")

	out.Reset()
	require.NoError(t, runList(a, true, cols, nil, page, every))
	var all []string
	require.NoError(t, json.Unmarshal(out.Bytes(), &all), out.String())
	assert.Equal(t, []string{"one", "two", "three"}, all)

	out.Reset()
	a.output = "table"
	require.NoError(t, runList(a, false, cols, nil, page, every))
	assert.Equal(t, "NAME\none\n", out.String(), "a table shows the page's items")

	out.Reset()
	boom := errors.New("boom")
	failing := func(*telco.Client) (any, []string, error) { return pageOf[string](nil, boom) }
	assert.ErrorIs(t, runList(a, false, cols, nil, failing, every), boom)
	assert.Empty(t, out.String())
}
