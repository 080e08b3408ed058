package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The list has the 249 assigned codes of ISO 3166-1, each pair in the
// compact form the lookup splits, in alpha-2 order without repeats.
func TestISO3166ListIsWellFormed(t *testing.T) {
	t.Parallel()
	entries := strings.Fields(iso3166)
	assert.Len(t, entries, 249)
	seen := map[string]bool{}
	for i, e := range entries {
		if !assert.Len(t, e, 5, "entry %d", i) {
			continue
		}
		assert.Equal(t, strings.ToUpper(e), e, "entry %q is upper case", e)
		for _, code := range []string{e[:2], e[2:]} {
			assert.False(t, seen[code], "%s is listed twice", code)
			seen[code] = true
		}
		if i > 0 {
			assert.Less(t, entries[i-1][:2], e[:2], "alpha-2 order at %q", e)
		}
	}
}

func TestIsAssignedCountryCode(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"AU", "au", "Au", "AUS", "aus", "NZ", "NZL", "GB", "GBR", "US", "USA",
		"SS", "SSD", "CW", "CUW", "BQ", "BES", "SX", "SXM", "AX", "ALA", "KM", "COM", "TF", "ATF"} {
		assert.True(t, IsAssignedCountryCode(s), s)
	}
	for _, s := range []string{"", "A", "ZZ", "ZZZ", "XK", "XKX", "UK", "EU", "AA", "QZ", "AN", "ANT",
		"CS", "SCG", "YU", "AUX", "AUST", "A1", "ÅU", "au "} {
		assert.False(t, IsAssignedCountryCode(s), s)
	}
}
