package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The texts below are short stand-ins carrying each licence's identifying
// sentence, wrapped and punctuated the way real licence files are.
const (
	mitText = `Copyright (c) 2020 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), ...`
	bsdHead = `Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:`
	bsd3Text = bsdHead + `
   * Neither the name of the copyright holder nor the names of its
contributors may be used to endorse or promote products derived from
this software without specific prior written permission.`
	bsd4Text = bsd3Text + `
3. All advertising materials mentioning features or use of this software
must display the following acknowledgement: ...`
	apacheText = `                                 Apache License
                           Version 2.0, January 2004`
	apacheNotice = `Licensed under the Apache License, Version 2.0 (the "License");`
	iscText      = `Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that ...`
	mplText = `Mozilla Public License, version 2.0

1.12. "Secondary License"

      means either the GNU General Public License, Version 2.0, the GNU Lesser
      General Public License, Version 2.1, the GNU Affero General Public
      License, Version 3.0, or any later versions of those licenses.`
	gplText  = "GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007"
	lgplText = "GNU LESSER GENERAL PUBLIC LICENSE\nThis version of the GNU Lesser General Public License incorporates\nthe terms of version 3 of the GNU General Public License"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"MIT", mitText, []string{"MIT"}},
		{"BSD without the endorsement clause is BSD-2", bsdHead, []string{"BSD-2-Clause"}},
		{"BSD with the endorsement clause is BSD-3", bsd3Text, []string{"BSD-3-Clause"}},
		{"the advertising clause makes BSD-4", bsd4Text, []string{"BSD-4-Clause"}},
		{"Apache full text", apacheText, []string{"Apache-2.0"}},
		{"Apache notice", apacheNotice, []string{"Apache-2.0"}},
		{"ISC", iscText, []string{"ISC"}},
		{"ISC spelt and distribute", strings.Replace(iscText, "and/or", "and", 1), []string{"ISC"}},
		{"MPL-2.0 naming the GNU licences as secondary", mplText, []string{"MPL-2.0"}},
		{"GPL", gplText, []string{"GPL"}},
		{"LGPL names the GPL but is reported once", lgplText, []string{"LGPL"}},
		{"dual MIT and Apache", mitText + "\n\n" + apacheNotice, []string{"Apache-2.0", "MIT"}},
		{"MPL plus a GPL text is both", mplText + "\n" + gplText, []string{"GPL", "MPL-2.0"}},
		{"unknown text", "All rights reserved. Do not copy.", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("classify = %q, want %q", got, tt.want)
			}
		})
	}
}

// writeModule makes a module folder holding the given files.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestClassifyAllVerdict(t *testing.T) {
	mods := []module{
		{Path: "example.com/mit", Version: "v1.0.0", Dir: writeModule(t, map[string]string{"LICENSE": mitText, "NOTICE": "n", "main.go": "package x"})},
		{Path: "example.com/gpl", Version: "v1.0.0", Dir: writeModule(t, map[string]string{"COPYING": gplText})},
		{Path: "example.com/none", Version: "v1.0.0", Dir: writeModule(t, map[string]string{"README.md": "MIT licensed"})},
		{Path: "example.com/odd", Version: "v1.0.0", Dir: writeModule(t, map[string]string{"LICENSE.md": mitText, "LICENSE-EXTRA": "our own terms"})},
		{Path: "example.com/gone", Version: "v1.0.0"},
	}
	results, err := classifyAll(mods)
	if err != nil {
		t.Fatal(err)
	}
	problems := map[string]string{}
	for _, r := range results {
		problems[r.mod.Path] = r.problem
	}
	want := map[string]string{
		"example.com/mit":  "",
		"example.com/gpl":  "GPL is not on the allow-list",
		"example.com/none": "no licence file",
		"example.com/odd":  "unrecognised licence text in LICENSE-EXTRA",
		"example.com/gone": "not in the module cache (run go mod download)",
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("problems = %q, want %q", problems, want)
	}
	if len(results[0].notices) != 1 {
		t.Errorf("notices of the MIT module = %q, want its NOTICE", results[0].notices)
	}
	err = verdict(results)
	if err == nil || !strings.Contains(err.Error(), "4 module(s)") || !strings.Contains(err.Error(), "example.com/gpl@v1.0.0") {
		t.Errorf("verdict = %v, want a failure naming the 4 modules", err)
	}
	if err := verdict(results[:1]); err != nil {
		t.Errorf("verdict on the MIT module alone = %v, want nil", err)
	}
}

func TestSave(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chdir(wd) })
	if err := os.Chdir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	mod := module{Path: "example.com/a/b", Version: "v1.2.3", Dir: writeModule(t, map[string]string{"LICENSE": mitText, "NOTICE.txt": "notice"})}
	results, err := classifyAll([]module{mod})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("out/stale", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := save("out", results); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"out/example.com/a/b/LICENSE", "out/example.com/a/b/NOTICE.txt", "out/std/LICENSE"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("save did not write %s: %v", f, err)
		}
	}
	if _, err := os.Stat("out/stale"); err == nil {
		t.Error("save kept a stale folder from an earlier run")
	}
	index, err := os.ReadFile("out/MODULES.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), "example.com/a/b v1.2.3 MIT\n") || !strings.Contains(string(index), "BSD-3-Clause") {
		t.Errorf("MODULES.txt = %q, want the module and the Go licence", index)
	}
	for _, dir := range []string{".", "..", "/tmp/x", "../x"} {
		if err := save(dir, results); err == nil {
			t.Errorf("save(%q) = nil, want a refusal", dir)
		}
	}
}
