package main

// Where a command's credentials come from, and "telco login" and
// "telco logout", which keep them in a profile.
//
// The order is that of most command-line tools: the flags (--account-sid,
// --token, --base-url), then the environment (TELCO_ACCOUNT_SID,
// TELCO_TOKEN, TELCO_BASE_URL), then a profile saved by telco login (the
// one --profile NAME names, else $TELCO_PROFILE, else "default"), then
// nothing, which is a usage error saying how to give some. A flag and a
// variable may make up a pair between them, as before profiles; a profile
// gives its account SID and token together, never half of a pair. A
// profile named with --profile while the flags or the environment give
// credentials is refused rather than silently passed over; one named by
// $TELCO_PROFILE gives way with a note. A base URL given by flag or
// environment wins over the profile's. A profile may keep a default
// project (telco login --property), which commands that take a project
// use after --property and $TELCO_PROPERTY_SID, and only while that
// profile gives the credentials: a project belongs to one account.
//
// Profiles are one JSON file, profiles.json, in the user's configuration
// directory (os.UserConfigDir's place: $XDG_CONFIG_HOME/telco or
// ~/.config/telco on Unix, ~/Library/Application Support/telco on macOS,
// %AppData%\telco on Windows), of mode 0600 in a directory of mode 0700,
// written whole to a temporary file and renamed over the old one. The
// token is stored as it is, as other tools store theirs: the file's mode
// is what guards it. It is never printed.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// profilesFile is the file of profiles, in the configuration directory.
const profilesFile = "profiles.json"

// defaultProfile is the profile used when none is named.
const defaultProfile = "default"

// profile is one saved set of credentials, with a default project.
type profile struct {
	AccountSid  string `json:"account_sid"`
	Token       string `json:"token"`
	BaseURL     string `json:"base_url,omitempty"`
	PropertySid string `json:"property_sid,omitempty"`
}

// String keeps the token out of %v.
func (p profile) String() string {
	return fmt.Sprintf("profile{AccountSid: %s, Token: [redacted], BaseURL: %s, PropertySid: %s}", p.AccountSid, p.BaseURL, p.PropertySid)
}

// GoString keeps the token out of %#v.
func (p profile) GoString() string { return p.String() }

// profiles is the file's content.
type profiles struct {
	Profiles map[string]profile `json:"profiles"`
}

// credentials are what a client is built with, and where they came from.
type credentials struct {
	sid, token, baseURL string
	// source names where the account SID and token came from, for a
	// refusal (401): "--account-sid and --token", "TELCO_ACCOUNT_SID and
	// TELCO_TOKEN", `profile "staging" (PATH)`. Never a value.
	source string
	// propertySid is the profile's default project, when a profile gave
	// the credentials.
	propertySid string
}

// resolvedCredentials is what credentials found, once it has looked.
type resolvedCredentials struct {
	cr   credentials
	err  error
	done bool
}

// profileName is the profile a command uses, and whether the user named
// it: --profile, else $TELCO_PROFILE, else "default".
func (a *app) profileName() (name, how string) {
	switch {
	case a.profile != "":
		return a.profile, "--profile"
	case a.env("TELCO_PROFILE") != "":
		return a.env("TELCO_PROFILE"), "TELCO_PROFILE"
	}
	return defaultProfile, ""
}

// credentials resolves the account SID, token and base URL: flags, then
// the environment, then the profile (see the top of this file). The
// answer is kept for the invocation, so that a warning about the
// profiles file or the note that TELCO_PROFILE gives way is said once,
// however many times a command asks.
func (a *app) credentials() (credentials, error) {
	if !a.creds.done {
		a.creds.cr, a.creds.err = a.resolveCredentials()
		a.creds.done = true
	}
	return a.creds.cr, a.creds.err
}

// envCredentials says whether the flags or the environment give an
// account SID or a token (so that no profile is used), and where each
// comes from: "--account-sid" or "TELCO_ACCOUNT_SID", "--token" or
// "TELCO_TOKEN".
func (a *app) envCredentials() (sidFrom, tokenFrom string, given bool) {
	if a.accountSid == "" && a.token == "" && a.env("TELCO_ACCOUNT_SID") == "" && a.env("TELCO_TOKEN") == "" {
		return "", "", false
	}
	sidFrom, tokenFrom = "--account-sid", "--token"
	if a.accountSid == "" {
		sidFrom = "TELCO_ACCOUNT_SID"
	}
	if a.token == "" {
		tokenFrom = "TELCO_TOKEN"
	}
	return sidFrom, tokenFrom, true
}

// resolveCredentials is credentials, without the keeping.
func (a *app) resolveCredentials() (credentials, error) {
	sidFlag, tokenFlag := a.accountSid, a.token
	sidEnv, tokenEnv := a.env("TELCO_ACCOUNT_SID"), a.env("TELCO_TOKEN")
	base := firstNonEmpty(a.baseURL, a.env("TELCO_BASE_URL"))
	name, how := a.profileName()
	if sidFrom, tokenFrom, given := a.envCredentials(); given {
		source := sidFrom + " and " + tokenFrom
		switch {
		case firstNonEmpty(sidFlag, sidEnv) == "":
			return credentials{}, usagef("no account SID: give --account-sid or set TELCO_ACCOUNT_SID (the token comes from %s)", tokenFrom)
		case firstNonEmpty(tokenFlag, tokenEnv) == "":
			return credentials{}, usagef("no token: give --token or set TELCO_TOKEN (the account SID comes from %s)", sidFrom)
		case how == "--profile":
			return credentials{}, usagef("--profile %s: the credentials come from %s, which win over a profile: leave out --profile, or unset them", name, source)
		case how == "TELCO_PROFILE" && !a.profileNoted:
			a.profileNoted = true
			fmt.Fprintf(a.stderr, "telco: TELCO_PROFILE=%s is not used: the credentials come from %s, which win over a profile\n", name, source)
		}
		return credentials{sid: firstNonEmpty(sidFlag, sidEnv), token: firstNonEmpty(tokenFlag, tokenEnv), baseURL: base, source: source}, nil
	}
	none := usagef("no credentials: give --account-sid and --token, set TELCO_ACCOUNT_SID and TELCO_TOKEN, or run 'telco login'")
	if _, err := a.configDir(); err != nil && how == "" {
		return credentials{}, none // no place for profiles: none was saved
	}
	ps, path, err := a.readProfiles()
	if err != nil {
		return credentials{}, err
	}
	p, ok := ps.Profiles[name]
	switch {
	case ok && p.AccountSid != "" && p.Token != "":
		return credentials{sid: p.AccountSid, token: p.Token, baseURL: firstNonEmpty(base, p.BaseURL),
			source: fmt.Sprintf("profile %q (%s)", name, path), propertySid: p.PropertySid}, nil
	case how != "":
		return credentials{}, usagef("no profile %q in %s: run 'telco login --profile %s' to save one", name, path, name)
	}
	return credentials{}, none
}

// configDir is the tool's configuration directory: os.UserConfigDir's
// place, read from the app's environment (so that tests can move it).
func (a *app) configDir() (string, error) {
	var dir string
	switch runtime.GOOS {
	case "windows":
		dir = a.env("AppData")
		if dir == "" {
			return "", usagef("%%AppData%% is not set: the profiles have no place")
		}
	case "darwin", "ios":
		home := a.env("HOME")
		if home == "" {
			return "", usagef("$HOME is not set: the profiles have no place")
		}
		dir = filepath.Join(home, "Library", "Application Support")
	default:
		dir = a.env("XDG_CONFIG_HOME")
		if dir != "" && !filepath.IsAbs(dir) {
			return "", usagef("$XDG_CONFIG_HOME must be an absolute path, not %q", dir)
		}
		if dir == "" {
			home := a.env("HOME")
			if home == "" {
				return "", usagef("neither $XDG_CONFIG_HOME nor $HOME is set: the profiles have no place")
			}
			dir = filepath.Join(home, ".config")
		}
	}
	return filepath.Join(dir, "telco"), nil
}

// readProfiles reads the profiles file, empty when there is none. A file
// that others may read is used, with a warning.
func (a *app) readProfiles() (profiles, string, error) {
	dir, err := a.configDir()
	if err != nil {
		return profiles{}, "", err
	}
	path := filepath.Join(dir, profilesFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return profiles{Profiles: map[string]profile{}}, path, nil
	case err != nil:
		return profiles{}, path, fmt.Errorf("reading the profiles: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(a.stderr, "telco: %s may be read by others (mode %04o): run chmod 600 %s\n", path, fi.Mode().Perm(), shellQuote(path))
	}
	var ps profiles
	if err := json.Unmarshal(b, &ps); err != nil {
		return profiles{}, path, usagef("%s is not a file of telco profiles (%v): fix it, or remove it and run 'telco login'", path, err)
	}
	if ps.Profiles == nil {
		ps.Profiles = map[string]profile{}
	}
	return ps, path, nil
}

// writeProfiles replaces the profiles file with ps, or removes it when ps
// holds none. The file is written whole, mode 0600, and renamed into
// place, so that a crash leaves the old file or the new one.
func (a *app) writeProfiles(ps profiles, path string) error {
	if len(ps.Profiles) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the profiles: %w", err)
		}
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the configuration directory: %w", err)
	}
	b, err := json.MarshalIndent(ps, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, profilesFile+".*") // mode 0600
	if err != nil {
		return fmt.Errorf("saving the profiles: %w", err)
	}
	defer os.Remove(f.Name()) // once renamed, there is nothing to remove
	if err := f.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		f.Close()
		return fmt.Errorf("saving the profiles: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("saving the profiles: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("saving the profiles: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("saving the profiles: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("saving the profiles: %w", err)
	}
	return nil
}

// profileNameRe is what a profile may be called.
var profileNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func checkProfileName(name string) error {
	if !profileNameRe.MatchString(name) {
		return usagef("profile name %q: use letters, digits, '.', '_' and '-' (at most 64)", name)
	}
	return nil
}

// loginCmd is "telco login".
func (a *app) loginCmd() *cobra.Command {
	var tokenStdin bool
	var prop string
	c := &cobra.Command{
		Use:   "login [--profile NAME] [--account-sid SID] [--token-stdin] [--base-url URL] [--property PR...]",
		Short: "Check an account SID and token, and save them as a profile",
		Long: `Check an account SID and token with one read (the first project, or the
project --property names), and save them, with the base URL when one is given,
as a profile (--profile NAME, else $TELCO_PROFILE, else "default") for the
commands that follow.

--property PR... saves a default project in the profile: commands that take a
project use it when neither --property nor $TELCO_PROPERTY_SID gives one, as
long as the profile gives the credentials. Logging in again to the same
account keeps it; --property "" forgets it.

The account SID comes from --account-sid, else is asked for on a terminal.
The token is read from --token-stdin (the first line of standard input), else
asked for on a terminal without being shown. It is never printed. Without a
terminal (standard input from /dev/null or a pipe, as in CI and cron) and
without --token-stdin, login fails at once (exit 2).

Profiles are kept in profiles.json in the user's configuration directory
($XDG_CONFIG_HOME/telco or ~/.config/telco; ~/Library/Application Support/telco
on macOS; %AppData%\telco on Windows), a file only its owner may read.

Credentials are taken from the flags, then the environment (TELCO_ACCOUNT_SID,
TELCO_TOKEN, TELCO_BASE_URL), then the profile: a profile is used when neither
gives any.`,
		Example: `  printf '%s\n' "$TOKEN" | telco login --profile staging --account-sid AC... --token-stdin --base-url http://127.0.0.1:8080
  printf '%s\n' "$TOKEN" | telco login --account-sid AC... --token-stdin --base-url http://127.0.0.1:8080 --property PR...
  telco --profile staging projects list
  telco projects get`,
		Annotations: ops("Properties.List", "Properties.Get"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				// login and logins are one letter apart.
				return usagef("telco login takes no arguments (the portal logins are 'telco logins %s')", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			name, _ := a.profileName()
			if err := checkProfileName(name); err != nil {
				return err
			}
			sid := strings.TrimSpace(a.accountSid)
			if !a.stdinTTY && !tokenStdin && a.token == "" {
				// Said before anything is asked: CI and cron give /dev/null
				// or a pipe, where a prompt would wait for nothing.
				need := "the token on standard input with --token-stdin"
				if sid == "" {
					need = "--account-sid, and " + need
				}
				return usagef("standard input is not a terminal, so nothing can be asked: give %s (printf '%%s\\n' \"$TOKEN\" | telco login --account-sid AC... --token-stdin)", need)
			}
			if sid == "" {
				if !a.stdinTTY || tokenStdin {
					return usagef("give --account-sid (it can be asked for only on a terminal, without --token-stdin)")
				}
				fmt.Fprint(a.stderr, "Account SID: ")
				line, err := readLine(a.stdin)
				if err != nil {
					return fmt.Errorf("reading the account SID: %w", err)
				}
				if sid = strings.TrimSpace(line); sid == "" {
					return usagef("no account SID given: nothing saved")
				}
			}
			token, err := a.loginToken(tokenStdin)
			if err != nil {
				return err
			}
			base := firstNonEmpty(a.baseURL, a.env("TELCO_BASE_URL"))
			ps, path, err := a.readProfiles()
			if err != nil {
				return err
			}
			prop = strings.TrimSpace(prop)
			if old, ok := ps.Profiles[name]; ok && old.AccountSid == sid && !cmd.Flags().Changed("property") {
				prop = old.PropertySid // a new token for the same account keeps its project
			}
			c, err := a.clientFor(credentials{sid: sid, token: token, baseURL: base, source: "the credentials given to telco login"})
			if err != nil {
				return err
			}
			if err := checkLogin(cmd, c, sid, prop); err != nil {
				return err
			}
			ps.Profiles[name] = profile{AccountSid: sid, Token: token, BaseURL: base, PropertySid: prop}
			if err := a.writeProfiles(ps, path); err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(a.stdout, struct {
					Profile, AccountSid string
					BaseURL             string `json:",omitempty"`
					PropertySid         string `json:",omitempty"`
					Path                string
				}{name, sid, base, prop, path})
			}
			at, project := "", ""
			if base != "" {
				at = " at " + base
			}
			if prop != "" {
				project = ", default project " + prop
			}
			fmt.Fprintf(a.stdout, "logged in to account %s%s; saved as profile %q%s in %s\n", sid, at, name, project, path)
			return nil
		},
	}
	c.Flags().BoolVar(&tokenStdin, "token-stdin", false, "read the token from the first line of standard input")
	c.Flags().StringVar(&prop, "property", "", `default project (property) SID to save in the profile ("" forgets it)`)
	return c
}

// checkLogin checks the credentials with one read before anything is
// saved: the default project when one is given (which checks that these
// credentials reach it), else the first project.
func checkLogin(cmd *cobra.Command, c *telco.Client, sid, prop string) error {
	var err error
	if prop != "" {
		_, err = c.Properties.Get(cmd.Context(), prop)
	} else {
		_, err = c.Properties.List(cmd.Context(), &telco.ListParams{Count: 1})
	}
	if err == nil {
		return nil
	}
	var ae *telco.APIError
	switch {
	case errors.As(err, &ae) && ae.StatusCode == http.StatusUnauthorized:
		return &exitError{code: exitService, msg: fmt.Sprintf("the service refused account %s with this token (401): nothing saved", sid)}
	case prop != "":
		return fmt.Errorf("checking --property %s with these credentials, nothing saved: %w", prop, err)
	}
	return fmt.Errorf("checking the credentials, nothing saved: %w", err)
}

// loginToken is the token for telco login: standard input's first line
// with --token-stdin, else --token, else asked for on a terminal without
// echo.
func (a *app) loginToken(fromStdin bool) (string, error) {
	switch {
	case fromStdin:
		return a.secret("token", "", "", true)
	case a.token != "":
		return a.token, nil
	}
	f, ok := a.stdin.(*os.File)
	if !ok || !a.stdinTTY {
		return "", usagef("give --token-stdin (the token can be asked for only on a terminal)")
	}
	fmt.Fprint(a.stderr, "Token (not shown): ")
	token, err := readNoEcho(f)
	fmt.Fprintln(a.stderr)
	if err != nil {
		return "", fmt.Errorf("reading the token: %w", err)
	}
	if token = strings.TrimSpace(token); token == "" {
		return "", usagef("no token given: nothing saved")
	}
	return token, nil
}

// readLine reads one line a byte at a time, so that nothing after it is
// taken from r.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(c[0])
		}
		if err == io.EOF && b.Len() > 0 {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// logoutCmd is "telco logout".
func (a *app) logoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logout [--profile NAME]",
		Short: "Remove a profile saved by telco login",
		Long: `Remove a profile (--profile NAME, else $TELCO_PROFILE, else "default") from the
profiles file; the file goes when it holds no more. The credentials stay valid
at the service: logout only forgets them here.`,
		Annotations: noOps("removes saved credentials; calls none"),
		Args:        exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			name, _ := a.profileName()
			ps, path, err := a.readProfiles()
			if err != nil {
				return err
			}
			if _, ok := ps.Profiles[name]; !ok {
				names := make([]string, 0, len(ps.Profiles))
				for n := range ps.Profiles {
					names = append(names, n)
				}
				sort.Strings(names)
				have := "none"
				if len(names) > 0 {
					have = strings.Join(names, ", ")
				}
				return &exitError{code: exitService, msg: fmt.Sprintf("no profile %q in %s (saved: %s): nothing removed", name, path, have)}
			}
			delete(ps.Profiles, name)
			if err := a.writeProfiles(ps, path); err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(a.stdout, struct {
					Profile, Path string
					Removed       bool
				}{name, path, true})
			}
			fmt.Fprintf(a.stdout, "profile %q removed from %s\n", name, path)
			return nil
		},
	}
}

// profilesCmd is "telco profiles": the saved profiles.
func (a *app) profilesCmd() *cobra.Command {
	return a.group("profiles", "List the profiles saved by telco login", a.profilesListCmd())
}

// profileEntry is one profile as profiles list shows it: never its token.
type profileEntry struct {
	Name       string
	AccountSid string
	// BaseURL is the service the profile's commands call: its saved base
	// URL, else the public service.
	BaseURL string
	// PropertySid is its default project ("" for none).
	PropertySid string
	// Active says that commands use this profile now.
	Active bool
}

// profileCols are profiles list's columns.
var profileCols = []column[profileEntry]{
	{name: "NAME", get: func(p *profileEntry) string { return p.Name }},
	{name: "ACCOUNT SID", get: func(p *profileEntry) string { return p.AccountSid }},
	{name: "BASE URL", get: func(p *profileEntry) string { return p.BaseURL }},
	{name: "DEFAULT PROJECT", get: func(p *profileEntry) string { return p.PropertySid }},
	{name: "ACTIVE", get: func(p *profileEntry) string { return yesNo(p.Active) }},
}

// profilesListCmd is "telco profiles list".
func (a *app) profilesListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the saved profiles: name, account, base URL, default project, which is in use",
		Long: `List the profiles saved by telco login, by name: each one's account SID, the
base URL its commands call, its default project (telco login --property), and
whether commands use it now (--profile NAME, else $TELCO_PROFILE, else
"default"; none while the flags or the environment give credentials). Tokens
are never shown, in any output format.`,
		Example:     `  telco profiles list -o json`,
		Annotations: noOps("reads the saved profiles; calls none"),
		Args:        exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			ps, path, err := a.readProfiles()
			if err != nil {
				return err
			}
			active, how := a.profileName()
			if sidFrom, tokenFrom, given := a.envCredentials(); given {
				active = ""
				fmt.Fprintf(a.stderr, "telco: no profile is in use: the credentials come from %s and %s\n", sidFrom, tokenFrom)
			} else if _, ok := ps.Profiles[active]; !ok && how != "" && len(ps.Profiles) > 0 {
				fmt.Fprintf(a.stderr, "telco: no profile %q (named by %s) in %s\n", active, how, path)
			}
			names := make([]string, 0, len(ps.Profiles))
			for n := range ps.Profiles {
				names = append(names, n)
			}
			sort.Strings(names)
			entries := make([]profileEntry, 0, len(names))
			for _, n := range names {
				p := ps.Profiles[n]
				entries = append(entries, profileEntry{Name: n, AccountSid: p.AccountSid,
					BaseURL: firstNonEmpty(p.BaseURL, telco.DefaultBaseURL), PropertySid: p.PropertySid, Active: n == active})
			}
			if len(entries) == 0 {
				fmt.Fprintf(a.stderr, "telco: no profiles saved in %s: 'telco login' saves one\n", path)
			}
			return printList(a, nil, entries, profileCols)
		},
	}
}
