package telco_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/telcosdk/telco"
)

// releaseHeading matches a Keep a Changelog heading: "## [0.1.0] - 2026-11-22".
var releaseHeading = regexp.MustCompile(`(?m)^## \[([^\]]+)\]`)

// newestRelease returns the first release heading of a changelog that is
// not [Unreleased], and whether there is one.
func newestRelease(changelog string) (string, bool) {
	for _, m := range releaseHeading.FindAllStringSubmatch(changelog, -1) {
		if m[1] != "Unreleased" {
			return m[1], true
		}
	}
	return "", false
}

// TestVersionIsNewestChangelogRelease keeps the version a build reports
// (and sends in User-Agent) equal to the newest release in CHANGELOG.md,
// so that a release cannot be tagged with one and ship the other.
func TestVersionIsNewestChangelogRelease(t *testing.T) {
	b, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	newest, ok := newestRelease(string(b))
	if !ok {
		t.Fatal("CHANGELOG.md has no release heading (## [x.y.z] - date)")
	}
	if newest != telco.Version {
		t.Errorf("telco.Version = %q, but the newest release in CHANGELOG.md is %q: bump one to match the other", telco.Version, newest)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(telco.Version) {
		t.Errorf("telco.Version = %q, want a semantic version without a leading v", telco.Version)
	}
	// The heading's link target, so the release is reachable from the file.
	link := regexp.MustCompile(`(?m)^\[` + regexp.QuoteMeta(newest) + `\]: \S*v` + regexp.QuoteMeta(newest) + `$`)
	if !link.Match(b) {
		t.Errorf("CHANGELOG.md has no link line for [%s] ending in v%s", newest, newest)
	}
}

func TestNewestRelease(t *testing.T) {
	tests := []struct {
		name, text, want string
		ok               bool
	}{
		{"unreleased first", "# Changelog\n## [Unreleased]\n### Added\n## [1.2.0] - 2026-01-02\n## [1.1.0] - 2025-01-01\n", "1.2.0", true},
		{"no unreleased section", "## [0.3.1] - 2026-01-02\n", "0.3.1", true},
		{"heading text is not a heading", "See [1.0.0] below.\n  ## [9.9.9]\n## [2.0.0]\n", "2.0.0", true},
		{"only unreleased", "## [Unreleased]\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := newestRelease(tt.text)
			if got != tt.want || ok != tt.ok {
				t.Errorf("newestRelease = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
