package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/telcosdk/telco"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	assert.Equal(t, "telco-go "+telco.Version+"\n", h.ok("version"))
}
