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

func doc(zones string) []byte {
	return []byte(`<supplementalData><windowsZones><mapTimezones otherVersion="7e1">` + zones + `</mapTimezones></windowsZones></supplementalData>`)
}

func TestParse(t *testing.T) {
	t.Parallel()
	tab, err := Parse(doc(`
		<mapZone other="US Eastern Standard Time" territory="001" type="America/Indianapolis"/>
		<mapZone other="US Eastern Standard Time" territory="US" type="America/Indianapolis America/Indiana/Marengo  America/Indiana/Vevay "/>`))
	require.NoError(t, err)
	assert.Equal(t, "7e1", tab.OtherVersion)
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
		name, zones, want string
	}{
		{"no zones at all", ``, "no mapZone"},
		{"no canonical zone", `<mapZone other="X Standard Time" territory="US" type="America/X"/>`, "no territory 001"},
		{"two canonical zones in one entry", `<mapZone other="X" territory="001" type="A/B A/C"/>`, "2 canonical zones"},
		{"two canonical entries", `<mapZone other="X" territory="001" type="A/B"/><mapZone other="X" territory="001" type="A/C"/>`, "two canonical zones"},
		{"a zone under two IDs", `<mapZone other="X" territory="001" type="A/B"/><mapZone other="Y" territory="001" type="A/B"/>`, "listed under both"},
		{"an empty type", `<mapZone other="X" territory="001" type=" "/>`, "lists no zone"},
		{"no Windows ID", `<mapZone territory="001" type="A/B"/>`, "no Windows ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(doc(tt.zones))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Parse([]byte("<supplementalData><windowsZones>"))
	assert.Error(t, err, "truncated XML")
}

func TestGenerateCommittedXML(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("windowsZones.xml")
	require.NoError(t, err)
	src, err := Generate(data, "telco")
	require.NoError(t, err)
	s := string(src)
	assert.True(t, strings.HasPrefix(s, "// Code generated "), "marked as generated")
	assert.Contains(t, s, "DO NOT EDIT.")
	// Lines are checked by pattern, not printed whole on failure: the
	// source is long and gofmt aligns its values.
	assert.True(t, regexp.MustCompile(`"AUS Eastern Standard Time":\s+"Australia/Sydney",`).MatchString(s), "windowsToIANA entry")
	assert.True(t, regexp.MustCompile(`"America/Indiana/Vevay":\s+"US Eastern Standard Time",`).MatchString(s), "ianaToWindows entry")
	again, err := Generate(data, "telco")
	require.NoError(t, err)
	assert.True(t, s == string(again), "output is deterministic")
}

// The generated file names the licence notice, and the notice is where it
// says, with the Unicode License v3 in it. No LICENSE file sits beside it:
// tools would take the folder for separately licensed code.
func TestGeneratedHeaderNamesTheNotice(t *testing.T) {
	t.Parallel()
	src, err := Generate(doc(`<mapZone other="X" territory="001" type="A/B"/>`), "telco")
	require.NoError(t, err)
	header, _, found := strings.Cut(string(src), "\npackage ")
	require.True(t, found)
	assert.Contains(t, header, NoticePath)
	assert.True(t, strings.HasSuffix(header, "\n"), "a blank line keeps the header out of the package doc")

	notice, err := os.ReadFile(filepath.Base(NoticePath))
	require.NoError(t, err)
	assert.Contains(t, string(notice), "UNICODE LICENSE V3")
	assert.Contains(t, string(notice), "Copyright © 2004-2024 Unicode, Inc.")
	licences, err := filepath.Glob("LICEN[CS]E*")
	require.NoError(t, err)
	assert.Empty(t, licences)
}
