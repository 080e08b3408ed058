package windowszones

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zone is one mapZone as the CLDR's JSON writes it.
func zone(other, territory, typ string) string {
	return `{"mapZone": {"_other": "` + other + `", "_type": "` + typ + `", "_territory": "` + territory + `"}}`
}

// doc is a windowsZones.json of CLDR version "47" with the zones given.
func doc(zones ...string) []byte { return docVersion(`"47"`, zones...) }

// docVersion is doc with the JSON value version as its _cldrVersion.
func docVersion(version string, zones ...string) []byte {
	return []byte(`{"supplemental": {"version": {"_unicodeVersion": "16.0.0", "_cldrVersion": ` + version + `},
		"windowsZones": {"mapTimezones": [` + strings.Join(zones, ",") + `]}}}`)
}

func TestParse(t *testing.T) {
	t.Parallel()
	tab, err := Parse(doc(
		zone("US Eastern Standard Time", "001", "America/Indianapolis"),
		zone("US Eastern Standard Time", "US", "America/Indianapolis America/Indiana/Marengo  America/Indiana/Vevay ")))
	require.NoError(t, err)
	assert.Equal(t, "47", tab.CLDRVersion)
	assert.Equal(t, map[string]string{"US Eastern Standard Time": "America/Indianapolis"}, tab.WindowsToIANA)
	assert.Equal(t, map[string]string{
		"America/Indianapolis":    "US Eastern Standard Time",
		"America/Indiana/Marengo": "US Eastern Standard Time",
		"America/Indiana/Vevay":   "US Eastern Standard Time",
	}, tab.IANAToWindows)
}

func TestParseRefusesWhatTheMapsCannotHold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		zones []string
		want  string
	}{
		{"no zones at all", nil, "no mapZone"},
		{"no canonical zone", []string{zone("X Standard Time", "US", "America/X")}, "no territory 001"},
		{"two canonical zones in one entry", []string{zone("X", "001", "A/B A/C")}, "2 canonical zones"},
		{"two canonical entries", []string{zone("X", "001", "A/B"), zone("X", "001", "A/C")}, "two canonical zones"},
		{"a zone under two IDs", []string{zone("X", "001", "A/B"), zone("Y", "001", "A/B")}, "listed under both"},
		{"an empty type", []string{zone("X", "001", " ")}, "lists no zone"},
		{"no Windows ID", []string{`{"mapZone": {"_territory": "001", "_type": "A/B"}}`}, "no Windows ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(doc(tt.zones...))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Parse([]byte(`{"supplemental": {"windowsZones": {`))
	assert.Error(t, err, "truncated JSON")
	_, err = Parse([]byte(`<supplementalData><windowsZones/></supplementalData>`))
	assert.Error(t, err, "the XML form is not read")
	// The version goes into the generated file: only digits and dots.
	for _, v := range []string{`""`, `" "`, `"48a"`, `"48\n"`, `48`, `null`} {
		_, err = Parse(docVersion(v, zone("X", "001", "A/B")))
		assert.Error(t, err, "CLDR version %s", v)
	}
	tab, err := Parse(docVersion(`"48.1"`, zone("X", "001", "A/B")))
	require.NoError(t, err)
	assert.Equal(t, "48.1", tab.CLDRVersion)
}

func TestGenerateCommittedJSON(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("windowsZones.json")
	require.NoError(t, err)
	src, err := Generate(data, "telco")
	require.NoError(t, err)
	s := string(src)
	assert.True(t, strings.HasPrefix(s, "// Code generated "), "marked as generated")
	assert.Contains(t, strings.SplitN(s, "\n", 2)[0], "from the Unicode CLDR 48 windowsZones.json; DO NOT EDIT.")
	// Lines are checked by pattern, not printed whole on failure: the
	// source is long and gofmt aligns its values.
	assert.True(t, strings.Contains(s, "\nconst cldrVersion = \"48\"\n"), "the CLDR version as a constant")
	assert.True(t, regexp.MustCompile(`"AUS Eastern Standard Time":\s+"Australia/Sydney",`).MatchString(s), "windowsToIANA entry")
	assert.True(t, regexp.MustCompile(`"America/Indiana/Vevay":\s+"US Eastern Standard Time",`).MatchString(s), "ianaToWindows entry")
	assert.True(t, regexp.MustCompile(`"America/Coyhaique":\s+"Magallanes Standard Time",`).MatchString(s), "a zone new in CLDR 48")
	again, err := Generate(data, "telco")
	require.NoError(t, err)
	assert.True(t, s == string(again), "output is deterministic")
}

// The generated file names the licence notice, and the notice is where it
// says, with the Unicode License v3 in it. No LICENSE file sits beside it:
// tools would take the folder for separately licensed code.
func TestGeneratedHeaderNamesTheNotice(t *testing.T) {
	t.Parallel()
	src, err := Generate(doc(zone("X", "001", "A/B")), "telco")
	require.NoError(t, err)
	header, _, found := strings.Cut(string(src), "\npackage ")
	require.True(t, found)
	assert.Contains(t, header, NoticePath)
	assert.True(t, strings.HasSuffix(header, "\n"), "a blank line keeps the header out of the package doc")

	notice, err := os.ReadFile(filepath.Base(NoticePath))
	require.NoError(t, err)
	assert.Contains(t, string(notice), "UNICODE LICENSE V3")
	assert.Contains(t, string(notice), "Copyright © 2004-2026 Unicode, Inc.", "the notice of the cldr-core package the data came from")
	assert.Contains(t, string(notice), "windowsZones.json")
	licences, err := filepath.Glob("LICEN[CS]E*")
	require.NoError(t, err)
	assert.Empty(t, licences)
}
