package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// allowed is the licence allow-list: permissive licences, and MPL-2.0,
// whose file-level copyleft asks nothing of code that only links a module
// (go-retryablehttp and go-cleanhttp are MPL-2.0).
var allowed = map[string]bool{
	"MIT":          true,
	"BSD-2-Clause": true,
	"BSD-3-Clause": true,
	"Apache-2.0":   true,
	"ISC":          true,
	"MPL-2.0":      true,
}

// marker is a phrase, in normalised text, that identifies one licence.
type marker struct {
	id, phrase string
}

// markers are read from licence texts after normalisation (lower case,
// every run of non-alphanumerics one space), so line breaks, punctuation
// and "and/or" spelt either way do not matter. Copyleft licences are listed
// so that they are named in the failure, not reported as unrecognised.
var markers = []marker{
	{"MIT", "permission is hereby granted free of charge to any person obtaining a copy"},
	{"Apache-2.0", "apache license version 2 0"},
	{"MPL-2.0", "mozilla public license version 2 0"},
	{"MPL-2.0", "mozilla public license v 2 0"},
	{"ISC", "distribute this software for any purpose with or without fee is hereby granted"},
	{"AGPL", "gnu affero general public license"},
	{"LGPL", "gnu lesser general public license"},
	{"LGPL", "gnu library general public license"},
	{"GPL", "gnu general public license"},
	{"EPL", "eclipse public license"},
	{"CDDL", "common development and distribution license"},
	{"SSPL", "server side public license"},
	{"BUSL", "business source license"},
}

const (
	bsdBody        = "redistribution and use in source and binary forms with or without modification are permitted"
	bsdEndorse     = "endorse or promote products derived from this software"
	bsdAdvertising = "all advertising materials mentioning features or use of this software"
)

// mplSecondary is the MPL-2.0 definition of "Secondary License", which
// names the GNU licences; it is removed before matching so that the MPL
// text is not read as granting them.
const mplSecondary = "secondary license means either the gnu general public license version 2 0 " +
	"the gnu lesser general public license version 2 1 the gnu affero general public license version 3 0 " +
	"or any later versions of those licenses"

var nonAlnum = regexp.MustCompile(`[^a-z0-9]+`)

// normalise lower-cases text and turns every run of other characters into
// one space, so that phrases match across line wrapping and punctuation.
func normalise(text string) string {
	return " " + strings.TrimSpace(nonAlnum.ReplaceAllString(strings.ToLower(text), " ")) + " "
}

// classify names the licences a licence file's text grants, sorted. An
// empty result means the text was not recognised. The BSD family is told
// apart by its clauses: the endorsement clause makes BSD-3-Clause, the
// advertising clause BSD-4-Clause (not allowed).
func classify(text string) []string {
	n := strings.ReplaceAll(normalise(text), " "+mplSecondary+" ", " ")
	found := map[string]bool{}
	for _, m := range markers {
		if strings.Contains(n, " "+m.phrase+" ") {
			found[m.id] = true
		}
	}
	// An LGPL or AGPL text also names the GPL it builds on: report it once.
	if found["LGPL"] || found["AGPL"] {
		delete(found, "GPL")
	}
	if strings.Contains(n, " "+bsdBody+" ") {
		switch {
		case strings.Contains(n, " "+bsdAdvertising+" "):
			found["BSD-4-Clause"] = true
		case strings.Contains(n, " "+bsdEndorse+" "):
			found["BSD-3-Clause"] = true
		default:
			found["BSD-2-Clause"] = true
		}
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

var (
	licenceName = regexp.MustCompile(`(?i)^(licen[cs]e|copying|unlicen[cs]e)([-._].*)?$`)
	noticeName  = regexp.MustCompile(`(?i)^notice([-._].*)?$`)
)

// moduleFiles lists a module's licence and notice files: those at the
// module's root, where every module the go command downloads keeps them.
func moduleFiles(dir string) (licences, notices []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		switch name := e.Name(); {
		case licenceName.MatchString(name):
			licences = append(licences, filepath.Join(dir, name))
		case noticeName.MatchString(name):
			notices = append(notices, filepath.Join(dir, name))
		}
	}
	return licences, notices, nil
}
