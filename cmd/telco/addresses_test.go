package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestAddressCreateAndDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var addr telco.Address
	h.jsonOf(&addr, "addresses", "create", "--line1", "1 Example St", "--city", "Sydney", "--country", "AU")
	r := h.run("addresses", "delete", addr.AddressSid)
	assert.Equal(t, 2, r.code, "not a terminal: --yes is needed")
	assert.Contains(t, r.stderr, "needs --yes")
	assert.Equal(t, "deleted "+addr.AddressSid+"\n", h.ok("addresses", "delete", addr.AddressSid, "--yes"))
	r = h.run("addresses", "delete", addr.AddressSid, "-y")
	assert.Equal(t, 1, r.code)
}

// On a terminal, delete asks; only yes deletes.
func TestAddressDeleteAsksOnATerminal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var addr telco.Address
	h.jsonOf(&addr, "addresses", "create", "--line1", "1 Example St", "--city", "Sydney", "--country", "AU")
	ask := func(answer string) (int, string, string) {
		var out, errOut bytes.Buffer
		a := &app{ctx: context.Background(), stdin: strings.NewReader(answer), stdout: &out, stderr: &errOut,
			env: envOf(h.env), intr: newInterrupts(nil), stdinTTY: true}
		root := a.rootCmd()
		root.SetArgs([]string{"addresses", "delete", addr.AddressSid})
		cmd, err := root.ExecuteC()
		return a.report(cmd, err), out.String(), errOut.String()
	}
	code, out, errOut := ask("n\n")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "Delete address "+addr.AddressSid+"?")
	assert.Contains(t, errOut, "nothing was deleted")
	assert.Empty(t, out)
	code, _, _ = ask("")
	assert.Equal(t, 2, code, "no answer is no")
	code, out, _ = ask("Yes\n")
	assert.Equal(t, 0, code)
	assert.Equal(t, "deleted "+addr.AddressSid+"\n", out)
}

func TestAddressListAndGet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var sydney, melbourne telco.Address
	h.jsonOf(&sydney, "addresses", "create", "--line1", "1 Example St", "--city", "Sydney", "--country", "AU")
	h.jsonOf(&melbourne, "addresses", "create", "--line1", "9 Queen St", "--city", "Melbourne", "--country", "AU")

	var page []telco.Address
	h.jsonOf(&page, "addresses", "list", "--city", "Sydney")
	require.Len(t, page, 1)
	assert.Equal(t, sydney.AddressSid, page[0].AddressSid)
	out := h.ok("addresses", "list", "--all", "--count", "1")
	assert.Contains(t, out, sydney.AddressSid)
	assert.Contains(t, out, melbourne.AddressSid)

	var got telco.Address
	h.jsonOf(&got, "addresses", "get", melbourne.AddressSid)
	assert.Equal(t, melbourne, got)
	r := h.run("addresses", "get", "ADNOPE")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "ADDRESS_NOT_FOUND")
	assert.Equal(t, 2, h.run("addresses", "list", "--country", "Australia").code, "refused before sending")
}
