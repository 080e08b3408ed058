package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryOperationIsReachable(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	want := []string{
		"projects create", "projects get", "projects list", "projects update",
		"numbers configure",
		"number-blocks search", "number-blocks search-text", "number-blocks list-by-property", "number-blocks list-by-account",
		"number-blocks purchase", "number-blocks configure",
		"sms send", "sms batch", "sms find", "sms get",
		"logins create", "logins get", "logins list", "logins update",
		"sip-trunks create", "sip-trunks list", "sip-trunks get", "sip-trunks update",
		"porting submit", "porting status",
		"addresses create", "addresses delete",
		"lookup", "api",
	}
	for _, path := range want {
		r := h.run(append(strings.Fields(path), "--help")...)
		assert.Equal(t, 0, r.code, path)
		assert.Contains(t, r.stdout, "telco "+path, path)
	}
}

func TestHelpListsEveryGroup(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	help := h.ok("--help")
	for _, cmd := range []string{"mock", "projects", "numbers", "number-blocks", "sms", "logins", "sip-trunks",
		"porting", "addresses", "lookup", "api", "completion", "version"} {
		assert.Contains(t, help, "\n  "+cmd+" ", "help lists %s", cmd)
	}
}
