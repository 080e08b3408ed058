package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/telcosdk/telco"
)

// optBool is a flag's value only when the user gave it, so that an unset
// flag leaves the service's default.
func optBool(fs *pflag.FlagSet, name string) *bool {
	if !fs.Changed(name) {
		return nil
	}
	v, _ := fs.GetBool(name)
	return &v
}

func optString(fs *pflag.FlagSet, name string) *string {
	if !fs.Changed(name) {
		return nil
	}
	v, _ := fs.GetString(name)
	return &v
}

// timeHelp is how every time flag's help describes what it takes.
const timeHelp = "RFC 3339, YYYY-MM-DD [HH:MM[:SS]] in the local zone, Unix seconds, now, or an offset such as -24h or +2d"

// parseTime reads a time given on the command line: RFC 3339; a date, or
// a date and time, without a zone (YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS], with
// a T or a space), read in loc, the user's zone; Unix seconds; "now"; or
// an offset from now ("-24h", "+30m", "+2d", "-1d12h").
func parseTime(flag, s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return time.Time{}, nil
	case strings.EqualFold(s, "now"):
		return now, nil
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		if d, err := parseDuration(s); err == nil {
			return now.Add(d), nil
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", time.DateOnly} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("--%s: %q is not a time (%s)", flag, s, timeHelp)
}

// parseDuration is time.ParseDuration with days: "2d", "+1d12h", "-3d".
// A day is 24 hours.
func parseDuration(s string) (time.Duration, error) {
	sign, rest := "", s
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		sign, rest = rest[:1], rest[1:]
	}
	var days int64
	if i := strings.IndexByte(rest, 'd'); i >= 0 {
		n, err := strconv.ParseInt(rest[:i], 10, 32)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		days, rest = n, rest[i+1:]
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
	}
	d += time.Duration(days) * 24 * time.Hour
	if sign == "-" {
		d = -d
	}
	return d, nil
}

// enum reads the value of an enumeration flag in any case and returns its
// canonical spelling; a value that is none of them is a usage error that
// lists them. "" stays "" (the flag was not given).
func enum(flag, s string, values ...string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	for _, v := range values {
		if strings.EqualFold(s, v) {
			return v, nil
		}
	}
	return "", usagef("--%s must be one of %s (not %q)", flag, strings.Join(values, ", "), s)
}

// completeEnum registers values as the shell completions of flag.
func completeEnum(c *cobra.Command, flag string, values ...string) {
	_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// completeList completes a comma-separated list of values: each value,
// after what was typed up to the last comma.
func completeList(c *cobra.Command, flag string, values ...string) {
	_ = c.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		head := ""
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			head = toComplete[:i+1]
		}
		out := make([]string, len(values))
		for i, v := range values {
			out[i] = head + v
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

// listFlags are Results_Count / Results_Skip and --all.
type listFlags struct {
	count, skip int
	all         bool
}

func (l *listFlags) add(fs *pflag.FlagSet) {
	fs.IntVar(&l.count, "count", 0, "page size (Results_Count; 0: the service default)")
	fs.IntVar(&l.skip, "skip", 0, "items to skip (Results_Skip)")
	fs.BoolVar(&l.all, "all", false, "fetch every page")
}

func (l *listFlags) params() telco.ListParams { return telco.ListParams{Count: l.count, Skip: l.skip} }

// propertyFlag adds --property, defaulting to $TELCO_PROPERTY_SID.
func (a *app) propertyFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "property", "", "project (property) SID (default $TELCO_PROPERTY_SID, else the profile's default project)")
}

// property is the project a command works on: p (its --property or
// argument), else $TELCO_PROPERTY_SID, else the default project of the
// profile that gives the credentials (telco login --property).
func (a *app) property(p string) (string, error) {
	if v := firstNonEmpty(p, a.env("TELCO_PROPERTY_SID"), a.profileProperty()); v != "" {
		return v, nil
	}
	return "", usagef("give --property, set TELCO_PROPERTY_SID, or save a default project with 'telco login --property PR...'")
}

// profileProperty is the default project of the profile the credentials
// come from; "" when they come from elsewhere, or it has none.
func (a *app) profileProperty() string {
	cr, err := a.credentials()
	if err != nil {
		return "" // building the client says why
	}
	return cr.propertySid
}

// scope picks a project or an account for a command that takes either:
// an explicit flag wins over $TELCO_PROPERTY_SID (else setting the variable,
// as the mock recipe does, would silently override --account), and giving
// both flags is a usage error. With neither, it is $TELCO_PROPERTY_SID when
// set, else the profile's default project, else the caller's own account.
// Exactly one result is non-empty, unless the account is unknown too.
func (a *app) scope(prop, acct string) (string, string, error) {
	switch {
	case prop != "" && acct != "":
		return "", "", usagef("give --property or --account, not both")
	case acct != "":
		return "", acct, nil
	case prop != "":
		return prop, "", nil
	}
	if p := firstNonEmpty(a.env("TELCO_PROPERTY_SID"), a.profileProperty()); p != "" {
		return p, "", nil
	}
	return "", a.account(), nil
}

// secret reads a password without echoing it anywhere: from its flag, its
// environment variable, or the first line of standard input. It is never
// printed.
func (a *app) secret(what, flagValue, envName string, fromStdin bool) (string, error) {
	if fromStdin {
		line, err := bufio.NewReader(a.stdin).ReadString('\n')
		if err != nil && err != io.EOF {
			return "", fmt.Errorf("reading the %s from standard input: %w", what, err)
		}
		if line = strings.TrimRight(line, "\r\n"); line == "" {
			return "", usagef("no %s on standard input", what)
		}
		return line, nil
	}
	if flagValue != "" {
		return flagValue, nil
	}
	return a.env(envName), nil
}

// closest returns the names nearest to v by edit distance, ignoring case,
// when they are near enough to be what v meant: at most one edit in seven
// characters of v (one to three in all). It is for "did you mean" in the
// values of flags too open for a fixed list (time zones); ties are all
// returned, at most three, in the order of names.
func closest(v string, names []string) []string {
	target := []rune(strings.ToLower(v))
	limit := max(1, min(3, len(target)/7))
	best := limit + 1
	var out []string
	for _, n := range names {
		d := editDistance(target, []rune(strings.ToLower(n)))
		switch {
		case d > limit:
		case d < best:
			best, out = d, []string{n}
		case d == best && len(out) < 3 && !slices.Contains(out, n):
			out = append(out, n)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b: the fewest
// insertions, deletions and substitutions that turn one into the other.
func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
