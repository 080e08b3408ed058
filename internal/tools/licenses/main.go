// Command licenses checks the licences of the modules in telco's builds
// against an allow-list, and collects their licence texts for release
// archives. It reads each module's licence files from the module cache and
// recognises licences by their text, so it needs no network and no
// database.
//
//	go run ./internal/tools/licenses check [packages]     (default ./...)
//	go run ./internal/tools/licenses save DIR [packages]  (default ./cmd/telco)
//
// check covers every module that provides a package to the named packages
// or their tests: the code that is compiled. Modules that only appear in
// the module graph (go list -m all) contribute their go.mod file and no
// code, so they are not downloaded or checked. save copies the licence
// and NOTICE files of the modules linked into the named packages (the
// release binary) to DIR/<module path>/, with an index in DIR/MODULES.txt;
// it fails, like check, on a licence outside the allow-list.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "licenses:", err)
		os.Exit(1)
	}
}

const usage = "usage: licenses check [packages] | licenses save DIR [packages]"

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "check":
		pkgs := args[1:]
		if len(pkgs) == 0 {
			pkgs = []string{"./..."}
		}
		mods, err := listModules(true, pkgs)
		if err != nil {
			return err
		}
		results, err := classifyAll(mods)
		if err != nil {
			return err
		}
		for _, r := range results {
			fmt.Fprintf(out, "%-45s %-35s %s\n", r.mod.Path, r.mod.Version, strings.Join(r.ids, " + "))
		}
		return verdict(results)
	case "save":
		if len(args) < 2 {
			return errors.New(usage)
		}
		dir, pkgs := args[1], args[2:]
		if len(pkgs) == 0 {
			pkgs = []string{"./cmd/telco"}
		}
		mods, err := listModules(false, pkgs)
		if err != nil {
			return err
		}
		results, err := classifyAll(mods)
		if err != nil {
			return err
		}
		if err := verdict(results); err != nil {
			return err
		}
		if err := save(dir, results); err != nil {
			return err
		}
		fmt.Fprintf(out, "saved the licences of %d modules to %s\n", len(results), dir)
		return nil
	}
	return errors.New(usage)
}

// module is one dependency module as the go command resolved it.
type module struct {
	Path, Version, Dir string
}

// listModules runs go list for the modules that provide the packages the
// patterns build (with tests when withTests), the main module left out.
func listModules(withTests bool, patterns []string) ([]module, error) {
	args := []string{"list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}"}
	if withTests {
		args = append(args, "-test")
	}
	args = append(args, patterns...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	seen := map[string]bool{}
	var mods []module
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		mods = append(mods, module{Path: f[0], Version: f[1], Dir: f[2]})
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods, sc.Err()
}

// result is one module's licence files and the licences they grant.
type result struct {
	mod               module
	licences, notices []string
	ids               []string
	problem           string
}

func classifyAll(mods []module) ([]result, error) {
	results := make([]result, 0, len(mods))
	for _, m := range mods {
		r := result{mod: m}
		if m.Dir == "" {
			r.problem = "not in the module cache (run go mod download)"
			results = append(results, r)
			continue
		}
		var err error
		r.licences, r.notices, err = moduleFiles(m.Dir)
		if err != nil {
			return nil, err
		}
		found := map[string]bool{}
		for _, path := range r.licences {
			text, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			ids := classify(string(text))
			if len(ids) == 0 {
				r.problem = "unrecognised licence text in " + filepath.Base(path)
			}
			for _, id := range ids {
				found[id] = true
			}
		}
		for id := range found {
			r.ids = append(r.ids, id)
		}
		sort.Strings(r.ids)
		switch {
		case r.problem != "":
		case len(r.licences) == 0:
			r.problem = "no licence file"
		default:
			for _, id := range r.ids {
				if !allowed[id] {
					r.problem = id + " is not on the allow-list"
				}
			}
		}
		results = append(results, r)
	}
	return results, nil
}

// verdict fails when any module has a problem, naming every such module.
func verdict(results []result) error {
	var bad []string
	for _, r := range results {
		if r.problem != "" {
			bad = append(bad, fmt.Sprintf("%s@%s: %s", r.mod.Path, r.mod.Version, r.problem))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d module(s) fail the licence check (allowed: %s):\n  %s",
			len(bad), allowedList(), strings.Join(bad, "\n  "))
	}
	return nil
}

func allowedList() string {
	ids := make([]string, 0, len(allowed))
	for id := range allowed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}

// save writes each module's licence and notice files to dir/<module path>/
// and an index to dir/MODULES.txt. dir is replaced, so it must be a path
// inside the working directory, never the directory itself.
func save(dir string, results []result) error {
	if !filepath.IsLocal(dir) || filepath.Clean(dir) == "." {
		return fmt.Errorf("save: %q must be a new or generated folder inside the working directory", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	var index strings.Builder
	index.WriteString("Third-party modules linked into the telco binary, with their licences.\n\n")
	for _, r := range results {
		dst := filepath.Join(dir, filepath.FromSlash(r.mod.Path))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		for _, src := range append(append([]string{}, r.licences...), r.notices...) {
			text, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dst, filepath.Base(src)), text, 0o644); err != nil {
				return err
			}
		}
		fmt.Fprintf(&index, "%s %s %s\n", r.mod.Path, r.mod.Version, strings.Join(r.ids, " + "))
	}
	// The Go runtime and standard library are linked into every binary
	// too, under their own BSD-style licence.
	if err := saveGoLicence(dir, &index); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "MODULES.txt"), []byte(index.String()), 0o644)
}

// saveGoLicence copies the licence of the toolchain that builds the
// release to dir/std/LICENSE and adds it to the index.
func saveGoLicence(dir string, index *strings.Builder) error {
	raw, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return fmt.Errorf("go env: %v", err)
	}
	f := strings.Fields(string(raw))
	if len(f) != 2 {
		return fmt.Errorf("go env: unexpected output %q", raw)
	}
	text, err := os.ReadFile(filepath.Join(f[0], "LICENSE"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "std"), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(index, "std (the Go runtime and standard library) %s %s\n", f[1], strings.Join(classify(string(text)), " + "))
	return os.WriteFile(filepath.Join(dir, "std", "LICENSE"), text, 0o644)
}
