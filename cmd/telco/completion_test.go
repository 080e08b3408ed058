package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompletion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for shell, marker := range map[string]string{"bash": "bash completion", "zsh": "#compdef telco", "fish": "complete -c telco", "powershell": "Register-ArgumentCompleter"} {
		assert.Contains(t, h.ok("completion", shell), marker, shell)
	}
	// Dynamic completion of a flag's values.
	assert.Contains(t, h.ok("__complete", "projects", "list", "--output", ""), "json")
	assert.Contains(t, h.ok("__complete", "sms", "s"), "send")
}

// A shell cobra does not know is a usage error, not its help and success.
func TestCompletionOfAnUnknownShellExits2(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.run("completion", "tcsh")
	assert.Equal(t, 2, r.code, r.stdout)
	assert.Contains(t, r.stderr, `unknown command "tcsh"`)
}
