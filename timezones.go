package telco

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The service names time zones by their Windows IDs ("AUS Eastern Standard
// Time"), Go by IANA names ("Australia/Sydney"). The maps between them are
// generated from the Unicode CLDR table windowsZones.json, committed under
// internal/gen/windowszones; TestWindowsZoneTableIsGenerated fails when the
// generated file and the data disagree.
//go:generate go run ./internal/gen/windowszones/cmd/windowszones -in internal/gen/windowszones/windowsZones.json -out timezones_table.go

// ianaRenames maps IANA names that the CLDR table does not list, because it
// keeps an older spelling as its identifier, to the spelling it lists:
// renamed zones ("Asia/Kolkata" for "Asia/Calcutta"), zones merged into
// another that the table no longer lists ("Asia/Choibalsan"), and the UTC
// and GMT aliases that Go's time package reports ("UTC" is time.UTC's
// name). The
// table itself stays generated; this list only widens what WindowsZone
// accepts, and a test checks that each target is in the table.
var ianaRenames = map[string]string{
	"Africa/Asmara":                  "Africa/Asmera",
	"America/Argentina/Buenos_Aires": "America/Buenos_Aires",
	"America/Argentina/Catamarca":    "America/Catamarca",
	"America/Argentina/Cordoba":      "America/Cordoba",
	"America/Argentina/Jujuy":        "America/Jujuy",
	"America/Argentina/Mendoza":      "America/Mendoza",
	"America/Atikokan":               "America/Coral_Harbour",
	"America/Indiana/Indianapolis":   "America/Indianapolis",
	"America/Kentucky/Louisville":    "America/Louisville",
	"America/Nuuk":                   "America/Godthab",
	"Asia/Choibalsan":                "Asia/Ulaanbaatar", // listed up to CLDR 45; an IANA link since 2024b
	"Asia/Ho_Chi_Minh":               "Asia/Saigon",
	"Asia/Kathmandu":                 "Asia/Katmandu",
	"Asia/Kolkata":                   "Asia/Calcutta",
	"Asia/Yangon":                    "Asia/Rangoon",
	"Atlantic/Faroe":                 "Atlantic/Faeroe",
	"Europe/Kyiv":                    "Europe/Kiev",
	"Pacific/Chuuk":                  "Pacific/Truk",
	"Pacific/Kanton":                 "Pacific/Enderbury",
	"Pacific/Pohnpei":                "Pacific/Ponape",
	"UTC":                            "Etc/UTC",
	"GMT":                            "Etc/GMT",
	"Etc/UCT":                        "Etc/UTC",
	"Etc/Universal":                  "Etc/UTC",
	"Etc/Zulu":                       "Etc/UTC",
	"Etc/Greenwich":                  "Etc/GMT",
}

// WindowsZone returns the Windows time zone ID, as CreatePropertyParams and
// UpdatePropertyParams take it, for an IANA time zone name:
// WindowsZone("Australia/Sydney") is "AUS Eastern Standard Time". Every zone
// the CLDR table lists for a Windows ID maps to it, whatever its territory
// ("America/Indiana/Marengo" is "US Eastern Standard Time"), and so do the
// current names of zones the table lists under an older one
// ("Asia/Kolkata"). The name is matched exactly, as IANA names are case
// sensitive; ok is false for a name the table does not know.
func WindowsZone(iana string) (windowsID string, ok bool) {
	if id, ok := ianaToWindows[iana]; ok {
		return id, true
	}
	if old, ok := ianaRenames[iana]; ok {
		id, ok := ianaToWindows[old]
		return id, ok
	}
	return "", false
}

// IANAZone returns the canonical IANA time zone name of a Windows time zone
// ID, the CLDR's choice for territory "001": IANAZone("AUS Eastern Standard
// Time") is "Australia/Sydney". It ignores case and surrounding space in
// the ID. ok is false for an ID the table does not know. The name is the
// CLDR's spelling, which time.LoadLocation accepts.
func IANAZone(windowsID string) (iana string, ok bool) {
	if z, ok := windowsToIANA[windowsID]; ok {
		return z, true
	}
	id := strings.TrimSpace(windowsID)
	for w, z := range windowsToIANA {
		if strings.EqualFold(w, id) {
			return z, true
		}
	}
	return "", false
}

// WindowsZoneForLocation returns the Windows time zone ID of loc, looked up
// by its name (loc.String()) as WindowsZone does. Locations loaded with
// time.LoadLocation and time.UTC have IANA names; time.Local ("Local") and
// fixed zones from time.FixedZone do not, and give ok false.
func WindowsZoneForLocation(loc *time.Location) (windowsID string, ok bool) {
	if loc == nil {
		return "", false
	}
	return WindowsZone(loc.String())
}

// LoadWindowsZone returns the *time.Location of a Windows time zone ID, for
// reading a Property's TimeZone as Go time: it loads the ID's canonical IANA
// zone (see IANAZone) with time.LoadLocation. It fails for an unknown ID,
// or when the system has no time zone database (import time/tzdata to
// embed one).
func LoadWindowsZone(windowsID string) (*time.Location, error) {
	iana, ok := IANAZone(windowsID)
	if !ok {
		return nil, fmt.Errorf("telco: LoadWindowsZone: unknown Windows time zone ID %q", windowsID)
	}
	loc, err := time.LoadLocation(iana)
	if err != nil {
		return nil, fmt.Errorf("telco: LoadWindowsZone: %q: %w", windowsID, err)
	}
	return loc, nil
}

// WindowsZones returns every Windows time zone ID the CLDR table knows,
// sorted: the IDs a project's TimeZone may take.
func WindowsZones() []string {
	ids := make([]string, 0, len(windowsToIANA))
	for id := range windowsToIANA {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// IANAZones returns every IANA time zone name WindowsZone converts, sorted:
// the names the CLDR table lists, and the current names of zones it lists
// under an older one ("Asia/Kolkata"). It is for checking a name before
// it is converted, or suggesting one for a misspelling.
func IANAZones() []string {
	names := make([]string, 0, len(ianaToWindows)+len(ianaRenames))
	for name := range ianaToWindows {
		names = append(names, name)
	}
	for name := range ianaRenames {
		if _, listed := ianaToWindows[name]; !listed {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
