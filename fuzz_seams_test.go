package telco

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzNumberBlockResult: the tolerant reader of NumberBlocks.Purchase and
// Configure answers takes any body without panicking; a body that is JSON
// is kept whole in Raw, one that is not is an error.
func FuzzNumberBlockResult(f *testing.F) {
	for _, name := range []string{"purchase_number_block.json", "configure_number_block.json"} {
		f.Add(fixture(f, name))
	}
	for _, s := range []string{`{"NumberBlockSid":"NB1","Id":"x"}`, `{"NumberBlock":[]}`, `{"Data":{"Id":1e99}}`,
		`"OK"`, `[]`, `null`, `{"ResponseStatus":{"ErrorCode":"FORBIDDEN"}}`, `<html>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r blockResult
		err := r.decodeBody(b)
		if !json.Valid(b) {
			if err == nil {
				t.Fatalf("accepted a body that is not JSON: %q", b)
			}
			return
		}
		if _, refused := err.(*refusal); err != nil && !refused {
			t.Fatalf("JSON refused with %v: %q", err, b)
		}
		if err == nil && !json.Valid(r.res.Raw) {
			t.Fatalf("Raw is not the JSON answer: %q", r.res.Raw)
		}
		if r.res.Block != nil && r.res.NumberBlockSid == "" && r.res.Block.NumberBlockSid != "" {
			t.Fatalf("the block's SID was not carried up")
		}
	})
}

// FuzzRawPath: Do's path check never panics, and what it accepts stays on
// the base URL: a path, never a scheme, host, fragment or dot segment.
func FuzzRawPath(f *testing.F) {
	for _, s := range []string{"Properties", "/v2/Properties?Results_Count=5", "//evil", "https://x/", "/v2/a/../b",
		"/v2/%2e%2e/x", "a b", "/v2/x#f", "?", "/v2/%zz", "v2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, _, problem := rawPath(s)
		if problem != "" {
			return
		}
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "#? \t\r\n") ||
			strings.Contains(p, "://") {
			t.Fatalf("accepted %q as %q", s, p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("accepted a dot segment in %q", p)
			}
		}
		if !versioned(p) {
			t.Fatalf("%q has no version segment", p)
		}
	})
}
