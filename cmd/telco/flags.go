package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

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

// parseTime reads a time given on the command line: RFC 3339, a date
// (YYYY-MM-DD, midnight UTC), Unix seconds, "now", or a duration from now
// ("-24h", "+30m").
func parseTime(flag, s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return time.Time{}, nil
	case s == "now":
		return now, nil
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		if d, err := time.ParseDuration(s); err == nil {
			return now.Add(d), nil
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("--%s: %q is not a time (RFC 3339, YYYY-MM-DD, Unix seconds, now, or -24h)", flag, s)
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
	fs.StringVar(p, "property", "", "project (property) SID (default $TELCO_PROPERTY_SID)")
}

func (a *app) property(p string) (string, error) {
	if v := firstNonEmpty(p, a.env("TELCO_PROPERTY_SID")); v != "" {
		return v, nil
	}
	return "", usagef("give --property or set TELCO_PROPERTY_SID")
}

// scope picks a project or an account for a command that takes either:
// an explicit flag wins over $TELCO_PROPERTY_SID (else setting the variable,
// as the mock recipe does, would silently override --account), and giving
// both flags is a usage error. With neither, it is $TELCO_PROPERTY_SID when
// set, else the caller's own account. Exactly one result is non-empty,
// unless the account is unknown too.
func (a *app) scope(prop, acct string) (string, string, error) {
	switch {
	case prop != "" && acct != "":
		return "", "", usagef("give --property or --account, not both")
	case acct != "":
		return "", acct, nil
	case prop != "":
		return prop, "", nil
	}
	if p := a.env("TELCO_PROPERTY_SID"); p != "" {
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
