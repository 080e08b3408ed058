// Package windowszones turns the Unicode CLDR table of Windows time zones
// into the Go source of the telco package's time zone maps. It is
// internal: the generator command beside it writes the file, and a test in
// the telco package regenerates it in memory to prove the committed file
// is current.
//
// The input is supplemental/windowsZones.json of the CLDR's JSON
// distribution, committed here as windowsZones.json so that go generate
// works offline. Source: the npm package cldr-core 48.2.0 (the Unicode
// Consortium's JSON build of CLDR 48; its "_cldrVersion" is "48"), copied
// unchanged. To update, replace the JSON with the same file of a newer
// cldr-core ("npm pack cldr-core@VERSION" and take
// package/supplemental/windowsZones.json out of the tarball) and run go
// generate in the module root; the generated file and its cldrVersion
// constant name the CLDR version the JSON states.
//
// The JSON and the generated maps are Unicode data under the Unicode
// License v3; NOTICE in this folder carries its text and must travel with
// them (it is not named LICENSE, which would mark the folder as having a
// licence of its own).
package windowszones

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"sort"
	"strings"
)

// NoticePath is the Unicode licence notice of the CLDR data, from the
// module root; the generated file's header names it, as the licence asks
// that the notice go with every copy of the data.
const NoticePath = "internal/gen/windowszones/NOTICE"

// canonicalTerritory is the CLDR territory whose mapZone names the one
// canonical IANA zone of a Windows ID ("001", the world).
const canonicalTerritory = "001"

// Table is the mapping read from windowsZones.json.
type Table struct {
	// CLDRVersion is the CLDR release the file states ("48").
	CLDRVersion string
	// WindowsToIANA maps each Windows ID to its canonical IANA zone.
	WindowsToIANA map[string]string
	// IANAToWindows maps every IANA zone the file lists, for any
	// territory, to the Windows ID of its mapZone.
	IANAToWindows map[string]string
}

// supplemental is the part of windowsZones.json the maps need. The CLDR's
// JSON writes each XML attribute as a member with a leading underscore.
type supplemental struct {
	Supplemental struct {
		Version struct {
			CLDR string `json:"_cldrVersion"`
		} `json:"version"`
		WindowsZones struct {
			MapTimezones []struct {
				MapZone struct {
					Other     string `json:"_other"`
					Territory string `json:"_territory"`
					Type      string `json:"_type"`
				} `json:"mapZone"`
			} `json:"mapTimezones"`
		} `json:"windowsZones"`
	} `json:"supplemental"`
}

// Parse reads windowsZones.json. It fails on a file without its CLDR
// version, and on a table this package's maps cannot represent
// faithfully: a Windows ID without exactly one canonical zone, or an IANA
// zone listed under two Windows IDs.
func Parse(data []byte) (*Table, error) {
	var doc supplemental
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("windowszones: parse: %w", err)
	}
	version := doc.Supplemental.Version.CLDR
	if version == "" || strings.ContainsFunc(version, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }) {
		return nil, fmt.Errorf("windowszones: want a CLDR version of digits and dots in supplemental.version._cldrVersion, got %q", version)
	}
	t := &Table{
		CLDRVersion:   version,
		WindowsToIANA: map[string]string{},
		IANAToWindows: map[string]string{},
	}
	windowsIDs := map[string]bool{}
	for _, m := range doc.Supplemental.WindowsZones.MapTimezones {
		z := m.MapZone
		if z.Other == "" {
			return nil, fmt.Errorf("windowszones: a mapZone has no Windows ID (type %q)", z.Type)
		}
		windowsIDs[z.Other] = true
		zones := strings.Fields(z.Type)
		if len(zones) == 0 {
			return nil, fmt.Errorf("windowszones: %q territory %s lists no zone", z.Other, z.Territory)
		}
		if z.Territory == canonicalTerritory {
			if len(zones) != 1 {
				return nil, fmt.Errorf("windowszones: %q has %d canonical zones, want 1", z.Other, len(zones))
			}
			if prev, ok := t.WindowsToIANA[z.Other]; ok {
				return nil, fmt.Errorf("windowszones: %q has two canonical zones, %s and %s", z.Other, prev, zones[0])
			}
			t.WindowsToIANA[z.Other] = zones[0]
		}
		for _, iana := range zones {
			if prev, ok := t.IANAToWindows[iana]; ok && prev != z.Other {
				return nil, fmt.Errorf("windowszones: %s is listed under both %q and %q", iana, prev, z.Other)
			}
			t.IANAToWindows[iana] = z.Other
		}
	}
	for id := range windowsIDs {
		if _, ok := t.WindowsToIANA[id]; !ok {
			return nil, fmt.Errorf("windowszones: %q has no territory %s entry", id, canonicalTerritory)
		}
	}
	if len(t.WindowsToIANA) == 0 {
		return nil, fmt.Errorf("windowszones: no mapZone elements found")
	}
	return t, nil
}

// Generate returns the gofmt-formatted Go source, in package pkg, of the
// maps in the windowsZones.json data and of the constant cldrVersion, the
// CLDR release they come from. The output depends on data alone.
func Generate(data []byte, pkg string) ([]byte, error) {
	t, err := Parse(data)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/gen/windowszones/cmd/windowszones from the Unicode CLDR %s windowsZones.json; DO NOT EDIT.\n", t.CLDRVersion)
	// The blank line after the notice keeps it out of the package's doc.
	fmt.Fprintf(&b, "//\n// The maps below are Unicode CLDR data, Copyright © Unicode, Inc., used\n// under the Unicode License v3, whose notice is in %s.\n\n", NoticePath)
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	b.WriteString("// cldrVersion is the Unicode CLDR release whose windowsZones data the\n// maps below were generated from.\n")
	fmt.Fprintf(&b, "const cldrVersion = %q\n\n", t.CLDRVersion)
	b.WriteString("// windowsToIANA maps a Windows time zone ID to the CLDR's canonical\n// IANA zone for it (the mapZone of territory 001).\n")
	writeMap(&b, "windowsToIANA", t.WindowsToIANA)
	b.WriteString("\n// ianaToWindows maps every IANA zone listed in the CLDR table, for any\n// territory, to the Windows time zone ID of its mapZone.\n")
	writeMap(&b, "ianaToWindows", t.IANAToWindows)
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("windowszones: format: %w", err)
	}
	return src, nil
}

func writeMap(b *bytes.Buffer, name string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(b, "var %s = map[string]string{\n", name)
	for _, k := range keys {
		fmt.Fprintf(b, "\t%q: %q,\n", k, m[k])
	}
	b.WriteString("}\n")
}
