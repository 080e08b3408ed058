package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestParseTime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	sydney := time.FixedZone("AEDT", 11*3600)
	cases := map[string]time.Time{
		"":                     {},
		"now":                  now,
		"NOW":                  now,
		"-24h":                 now.Add(-24 * time.Hour),
		"+30m":                 now.Add(30 * time.Minute),
		"+2d":                  now.Add(48 * time.Hour),
		"-1d12h":               now.Add(-36 * time.Hour),
		"1763780000":           time.Unix(1763780000, 0),
		"2026-11-01T10:00:00Z": time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC),
		// Without a zone: the user's.
		"2026-11-01":          time.Date(2026, 11, 1, 0, 0, 0, 0, sydney),
		"2026-11-01T10:00":    time.Date(2026, 11, 1, 10, 0, 0, 0, sydney),
		"2026-11-25 09:30":    time.Date(2026, 11, 25, 9, 30, 0, 0, sydney),
		"2026-11-25 09:30:15": time.Date(2026, 11, 25, 9, 30, 15, 0, sydney),
	}
	for in, want := range cases {
		got, err := parseTime("since", in, now, sydney)
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%q: %v, want %v", in, got, want)
	}
	for _, bad := range []string{"yesterday", "-1x", "2026-13-01", "+d", "+-2d", "2d"} {
		_, err := parseTime("since", bad, now, sydney)
		assert.Error(t, err, bad)
	}
}

func TestEnumAcceptsAnyCaseAndListsValues(t *testing.T) {
	t.Parallel()
	v, err := enum("status", "delivered", "Processing", "Submitted", "Delivered")
	require.NoError(t, err)
	assert.Equal(t, "Delivered", v)
	_, err = enum("status", "sent", "Processing", "Delivered")
	require.Error(t, err)
	assert.Equal(t, `--status must be one of Processing, Delivered (not "sent")`, err.Error())
}

func TestPasswordsFromFlagEnvAndStdin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const pw = "Sup3r-Secret!x"
	cases := []struct {
		name  string
		args  []string
		stdin string
		env   string
	}{
		{"stdin", []string{"--password-stdin"}, pw + "\n", ""},
		{"environment", nil, "", pw},
		{"flag", []string{"--password", pw}, "", ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.env["TELCO_LOGIN_PASSWORD"], h.env["TELCO_SIP_PASSWORD"] = tc.env, tc.env
			defer func() { delete(h.env, "TELCO_LOGIN_PASSWORD"); delete(h.env, "TELCO_SIP_PASSWORD") }()
			r := h.runIn(tc.stdin, append([]string{"logins", "create", "--email", fmt.Sprintf("u%d@acme.example", i),
				"--first-name", "U", "--last-name", "V", "--scopes", "Reporting"}, tc.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.NotContains(t, r.stdout+r.stderr, pw)

			r = h.runIn(tc.stdin, append([]string{"sip-trunks", "create", "--name", "Auth", "--caller-id", "+61299990000",
				"--type", "auth", "--realm", "acme"}, tc.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Regexp(t, `^ST[A-Z0-9]+\n$|^[A-Z]{2}[A-Z0-9]{30}\n$`, r.stdout)
			assert.NotContains(t, r.stdout+r.stderr, pw)
		})
	}
	// A password the service refuses is not echoed either.
	r := h.runIn("Zq9\n", "logins", "create", "--email", "w@acme.example", "--first-name", "W", "--last-name", "X",
		"--scopes", "Reporting", "--password-stdin")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--password must have at least 12 characters", "named by its flag")
	assert.NotContains(t, r.stderr, "Zq9")
	r = h.runIn("", "logins", "create", "--email", "w@acme.example", "--password-stdin")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no password on standard input")
}

// An explicit --account wins over $TELCO_PROPERTY_SID, and a command
// given both --property and --account refuses to guess.
func TestScopeFlags(t *testing.T) {
	t.Parallel()
	h := newHarness(t) // sets TELCO_PROPERTY_SID
	other := h.srv.AddAccount("", "")
	h.srv.AddNumberBlock(h.srv.PropertySid, telco.NumberBlock{Name: "Mine"})
	wrong := "AC" + strings.Repeat("W", 30)

	r := h.run("porting", "status", "--account", wrong)
	assert.Equal(t, 1, r.code, "%s", r.stdout)
	assert.Contains(t, r.stderr, telco.CodeAccountNotFound, "--account was used, not the environment's project")
	r = h.run("porting", "status", "--account", other.AccountSid)
	assert.Equal(t, 1, r.code, "%s", r.stdout)
	assert.Contains(t, r.stderr, telco.CodeForbidden)
	h.ok("porting", "status", "--account", h.srv.AccountSid)
	h.ok("porting", "status") // the environment's project

	r = h.run("sip-trunks", "get", "STXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "--account", wrong)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, telco.CodeAccountNotFound)

	var page []telco.NumberBlock
	h.jsonOf(&page, "number-blocks", "search") // the environment's project
	require.Len(t, page, 1)
	r = h.run("number-blocks", "search", "--account", wrong)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, telco.CodeAccountNotFound)

	for _, args := range [][]string{
		{"porting", "status", "--property", h.srv.PropertySid, "--account", h.srv.AccountSid},
		{"number-blocks", "search", "--property", h.srv.PropertySid, "--account", h.srv.AccountSid},
		{"sip-trunks", "get", "ST1", "--property", h.srv.PropertySid, "--account", h.srv.AccountSid},
	} {
		r := h.run(args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "not both", args)
	}
}

// closest suggests what a value probably meant, and nothing for a value
// too far from every name.
func TestClosest(t *testing.T) {
	t.Parallel()
	names := []string{"Australia/Sydney", "Australia/Melbourne", "Europe/London", "UTC", "Arab Standard Time", "Tokyo Standard Time"}
	for _, tc := range []struct {
		v    string
		want []string
		why  string
	}{
		{"Australia/Sydny", []string{"Australia/Sydney"}, "one letter left out"},
		{"australia/sydney", []string{"Australia/Sydney"}, "case is not a difference"},
		{"Australia/Melborne", []string{"Australia/Melbourne"}, "one letter left out"},
		{"UTX", []string{"UTC"}, "a short name allows one edit"},
		{"UXX", nil, "two edits in three letters is another word"},
		{"Mars Standard Time", nil, "three edits in 18 letters is too many"},
		{"Tokio Standard Tim", []string{"Tokyo Standard Time"}, "two edits in 18 letters"},
		{"", nil, "nothing to match"},
	} {
		assert.Equal(t, tc.want, closest(tc.v, names), "%q: %s", tc.v, tc.why)
	}
	assert.Equal(t, 3, editDistance([]rune("kitten"), []rune("sitting")))
	assert.Equal(t, 0, editDistance(nil, nil))
	assert.Equal(t, 5, editDistance([]rune("Zürich"), []rune("Zu")), "runes, not bytes (which would make it 6)")
}
