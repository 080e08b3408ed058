package telco_test

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/catalog"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated parts of README.md and doc.go")

// generated is one part of a file written from the catalogue: the text
// between its begin and end markers.
type generated struct {
	file, begin, end string
	render           func() string
}

func sameMethodArgs(a, b reflect.Type) bool {
	if a.NumIn() != b.NumIn() {
		return false
	}
	for i := range a.NumIn() {
		if a.In(i) != b.In(i) {
			return false
		}
	}
	return true
}

// serviceMethods lists a service's exported methods: the operations of the
// catalogue and the methods built on them, ...All twins folded into "+All".
func serviceMethods(service string) []string {
	f, ok := reflect.TypeFor[telco.Client]().FieldByName(service)
	if !ok {
		return nil
	}
	t := f.Type
	// A twin pages through its method: it takes the same arguments
	// (SendAll, which sends an iterator, is not Send's).
	all := map[string]bool{}
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		if base, ok := strings.CutSuffix(m.Name, "All"); ok {
			if bm, has := t.MethodByName(base); has && sameMethodArgs(bm.Type, m.Type) {
				all[base] = true
			}
		}
	}
	var out []string
	for i := 0; i < t.NumMethod(); i++ {
		name := t.Method(i).Name
		if base, ok := strings.CutSuffix(name, "All"); ok && all[base] {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	for i, name := range out {
		if all[name] {
			out[i] = "`" + name + "` (+`All`)"
		} else {
			out[i] = "`" + name + "`"
		}
	}
	return out
}

func generatedDocs() []generated {
	return []generated{
		{"README.md", "<!-- services: generated from internal/catalog by go test -run TestGeneratedDocs -update-docs -->", "<!-- end services -->",
			func() string {
				var b strings.Builder
				b.WriteString("| Field | For | Methods |\n|---|---|---|\n")
				for _, s := range catalog.Services() {
					fmt.Fprintf(&b, "| `client.%s` | %s | %s |\n", s.Name, s.Summary, strings.Join(serviceMethods(s.Name), ", "))
				}
				return b.String()
			}},
		{"doc.go", "// The Client's services, each with an interface of its methods for fakes:", "//\n// # Authentication",
			func() string {
				var b strings.Builder
				b.WriteString("//\n")
				for _, s := range catalog.Services() {
					fmt.Fprintf(&b, "//   - [Client.%s] ([%sAPI]): %s\n", s.Name, s.Name, s.Summary)
				}
				return b.String()
			}},
	}
}

// TestGeneratedDocs: the lists of services in README.md and the package
// doc are written from internal/catalog and the Client's method sets, so
// they cannot drift; -update-docs rewrites them.
func TestGeneratedDocs(t *testing.T) {
	for _, g := range generatedDocs() {
		raw, err := os.ReadFile(g.file)
		require.NoError(t, err)
		s := string(raw)
		i := strings.Index(s, g.begin)
		require.GreaterOrEqual(t, i, 0, "%s: marker %q missing", g.file, g.begin)
		i += len(g.begin) + 1
		j := strings.Index(s[i:], g.end)
		require.GreaterOrEqual(t, j, 0, "%s: marker %q missing", g.file, g.end)
		want := g.render()
		if *updateDocs {
			require.NoError(t, os.WriteFile(g.file, []byte(s[:i]+want+s[i+j:]), 0o644))
			continue
		}
		assert.Equal(t, want, s[i:i+j], "%s is out of date: go test -run TestGeneratedDocs -update-docs", g.file)
	}
}
