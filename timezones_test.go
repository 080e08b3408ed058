package telco

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // LoadLocation must find every zone whatever the machine's database

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco/internal/gen/windowszones"
)

// TestWindowsZoneTableIsGenerated regenerates timezones_table.go from the
// committed CLDR data in memory: a hand edit of the table, or updated data
// without go generate, fails here.
func TestWindowsZoneTableIsGenerated(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("internal", "gen", "windowszones", "windowsZones.json"))
	require.NoError(t, err)
	want, err := windowszones.Generate(data, "telco")
	require.NoError(t, err)
	got, err := os.ReadFile("timezones_table.go")
	require.NoError(t, err)
	if string(want) != string(got) {
		// Name the first differing line rather than print both files.
		w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
		for i := 0; i < len(w) || i < len(g); i++ {
			if i >= len(w) || i >= len(g) || w[i] != g[i] {
				t.Fatalf("timezones_table.go is stale (first difference at line %d): run go generate", i+1)
			}
		}
	}
}

// The generated table says which CLDR release it comes from, in its
// header and in a constant.
func TestWindowsZoneTableNamesItsCLDRVersion(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("timezones_table.go")
	require.NoError(t, err)
	header, _, _ := strings.Cut(string(src), "\n")
	assert.Contains(t, header, "Unicode CLDR 48 ")
	// Not assert.Contains: a failure would print the whole table.
	assert.True(t, strings.Contains(string(src), "\nconst cldrVersion = \"48\"\n"), "timezones_table.go declares cldrVersion 48")
	assert.Equal(t, "48", cldrVersion)
}

func TestWindowsZone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		iana, want string
		ok         bool
	}{
		{"Australia/Sydney", "AUS Eastern Standard Time", true},
		{"Australia/Melbourne", "AUS Eastern Standard Time", true}, // territory AU, second in its list
		{"Australia/Brisbane", "E. Australia Standard Time", true},
		{"America/Indianapolis", "US Eastern Standard Time", true},
		{"America/Indiana/Marengo", "US Eastern Standard Time", true}, // one of a multi-zone list
		{"America/Indiana/Vevay", "US Eastern Standard Time", true},
		{"America/Chihuahua", "Central Standard Time (Mexico)", true}, // listed with a trailing space
		{"Europe/London", "GMT Standard Time", true},
		{"Etc/GMT+12", "Dateline Standard Time", true},
		{"Etc/UTC", "UTC", true},
		{"Etc/GMT", "UTC", true}, // territory ZZ
		{"UTC", "UTC", true},     // time.UTC's name, a rename
		{"Asia/Kolkata", "India Standard Time", true},
		{"Asia/Calcutta", "India Standard Time", true},
		{"Europe/Kyiv", "FLE Standard Time", true},
		{"America/Coyhaique", "Magallanes Standard Time", true}, // CLDR 48 (Aysén left Chile's mainland zone in 2025)
		{"America/Punta_Arenas", "Magallanes Standard Time", true},
		{"Asia/Choibalsan", "Ulaanbaatar Standard Time", true}, // dropped by CLDR 48, an IANA link now: a rename
		{"Local", "", false},
		{"", "", false},
		{"australia/sydney", "", false}, // IANA names are case sensitive
		{"Mars/Olympus_Mons", "", false},
		{"AUS Eastern Standard Time", "", false}, // a Windows ID is not an IANA name
	}
	for _, tt := range tests {
		t.Run(tt.iana, func(t *testing.T) {
			got, ok := WindowsZone(tt.iana)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestIANAZone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		windows, want string
		ok            bool
	}{
		{"AUS Eastern Standard Time", "Australia/Sydney", true},
		{"  aus EASTERN standard time ", "Australia/Sydney", true}, // case and space do not matter
		{"US Eastern Standard Time", "America/Indianapolis", true},
		{"Central Standard Time (Mexico)", "America/Mexico_City", true},
		{"UTC", "Etc/UTC", true},
		{"UTC+12", "Etc/GMT-12", true},
		{"India Standard Time", "Asia/Calcutta", true},
		{"Mid-Atlantic Standard Time", "", false}, // retired by Windows, not in the table
		{"Australia/Sydney", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.windows, func(t *testing.T) {
			got, ok := IANAZone(tt.windows)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestWindowsZoneRoundTrips walks the whole table: every Windows ID comes
// back from its canonical zone, every listed zone's Windows ID leads to a
// canonical zone of the same Windows ID, and every name is one Go loads.
func TestWindowsZoneRoundTrips(t *testing.T) {
	t.Parallel()
	ids := WindowsZones()
	require.Len(t, ids, len(windowsToIANA))
	require.Greater(t, len(ids), 100, "the CLDR table lists well over 100 Windows IDs")
	assert.IsNonDecreasing(t, ids)
	// IANAZone matches without regard to case, so no two IDs may differ
	// only in case.
	folded := map[string]string{}
	for _, id := range ids {
		key := strings.ToLower(id)
		assert.NotContains(t, folded, key, "%q and %q differ only in case", folded[key], id)
		folded[key] = id
	}
	for _, id := range ids {
		iana, ok := IANAZone(id)
		require.True(t, ok, id)
		back, ok := WindowsZone(iana)
		assert.True(t, ok, iana)
		assert.Equal(t, id, back, "canonical zone %s of %q", iana, id)
		loc, err := LoadWindowsZone(id)
		if assert.NoError(t, err, id) {
			assert.Equal(t, iana, loc.String())
		}
	}
	for iana, id := range ianaToWindows {
		_, err := time.LoadLocation(iana)
		assert.NoError(t, err, "the CLDR lists %s, Go must load it", iana)
		canon, ok := IANAZone(id)
		require.True(t, ok, id)
		again, _ := WindowsZone(canon)
		assert.Equal(t, id, again, "%s -> %q -> %s", iana, id, canon)
	}
}

func TestIANARenamesPointIntoTheTable(t *testing.T) {
	t.Parallel()
	for renamed, listed := range ianaRenames {
		_, inTable := ianaToWindows[renamed]
		assert.False(t, inTable, "%s is in the table itself: drop it from ianaRenames", renamed)
		_, ok := ianaToWindows[listed]
		assert.True(t, ok, "%s -> %s: the target is not in the table", renamed, listed)
		_, err := time.LoadLocation(renamed)
		assert.NoError(t, err, "%s is not an IANA name Go knows", renamed)
	}
}

func TestWindowsZoneForLocation(t *testing.T) {
	t.Parallel()
	syd, err := time.LoadLocation("Australia/Sydney")
	require.NoError(t, err)
	tests := []struct {
		name string
		loc  *time.Location
		want string
		ok   bool
	}{
		{"Sydney", syd, "AUS Eastern Standard Time", true},
		{"time.UTC", time.UTC, "UTC", true},
		{"time.Local", time.Local, "", false},
		{"fixed zone", time.FixedZone("AEST", 10*3600), "", false},
		{"nil", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := WindowsZoneForLocation(tt.loc)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLoadWindowsZone(t *testing.T) {
	t.Parallel()
	loc, err := LoadWindowsZone("AUS Eastern Standard Time")
	require.NoError(t, err)
	assert.Equal(t, "Australia/Sydney", loc.String())
	// 1 January is summer in Sydney: UTC+11.
	_, offset := time.Date(2026, 1, 1, 12, 0, 0, 0, loc).Zone()
	assert.Equal(t, 11*3600, offset)

	_, err = LoadWindowsZone("Narnia Standard Time")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "telco: LoadWindowsZone: unknown Windows time zone ID")
}

func TestWindowsZonesIsACopy(t *testing.T) {
	t.Parallel()
	a := WindowsZones()
	a[0] = "changed"
	assert.NotEqual(t, "changed", WindowsZones()[0])
}

// IANAZones lists exactly the names WindowsZone converts: the table's and
// the renamed ones, sorted, each once, and a fresh slice each call.
func TestIANAZones(t *testing.T) {
	t.Parallel()
	names := IANAZones()
	assert.True(t, slices.IsSorted(names), "sorted")
	assert.Equal(t, len(names), len(slices.Compact(slices.Clone(names))), "each once")
	for _, n := range names {
		_, ok := WindowsZone(n)
		assert.True(t, ok, "%s: WindowsZone knows every name listed", n)
	}
	for n := range ianaToWindows {
		assert.Contains(t, names, n)
	}
	for n := range ianaRenames {
		assert.Contains(t, names, n)
	}
	assert.Contains(t, names, "Australia/Sydney")
	assert.Contains(t, names, "Asia/Kolkata", "a current name the table lists under an older one")
	names[0] = "changed"
	assert.NotEqual(t, "changed", IANAZones()[0], "a copy")
}
