package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// profileHarness runs the tool with a configuration directory of its own
// and, unless a test adds them, no credentials in the environment.
type profileHarness struct {
	t   *testing.T
	env map[string]string
}

func newProfileHarness(t *testing.T) *profileHarness {
	return &profileHarness{t: t, env: map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(),
		"XDG_STATE_HOME": t.TempDir(), "TZ": "UTC"}}
}

func (h *profileHarness) runIn(stdin string, args ...string) result {
	h.t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut, envOf(h.env))
	return result{code, out.String(), errOut.String()}
}

func (h *profileHarness) path() string {
	return filepath.Join(h.env["XDG_CONFIG_HOME"], "telco", profilesFile)
}

// The scenario, against telco mock: log in to a profile with the
// token on standard input, then use the profile by name.
func TestLoginThenUseTheProfileAgainstTheMock(t *testing.T) {
	t.Parallel()
	const sid, token = "ACPROFILEPROFILEPROFILEPROFILEPR", "mock-t0ken-secret"
	ctx, cancel := context.WithCancel(context.Background())
	var mockOut, mockErr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"mock", "--addr", "127.0.0.1:0", "--account-sid", sid, "--token", token},
			strings.NewReader(""), &mockOut, &mockErr, func(string) string { return "" })
	}()
	t.Cleanup(func() { cancel(); <-done })
	var info mockInfo
	require.Eventually(t, func() bool {
		line, _, found := strings.Cut(mockOut.String(), "\n")
		return found && json.Unmarshal([]byte(line), &info) == nil
	}, 5*time.Second, 10*time.Millisecond, "%s", mockErr.String())

	h := newProfileHarness(t)
	r := h.runIn(token+"\n", "login", "--profile", "staging", "--account-sid", sid, "--token-stdin", "--base-url", info.URL)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `saved as profile "staging"`)
	assert.NotContains(t, r.stdout+r.stderr, token, "the token is never printed")

	r = h.runIn("", "--profile", "staging", "projects", "list", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var ps []telco.Property
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ps))
	require.NotEmpty(t, ps)
	assert.Equal(t, info.PropertySid, ps[0].PropertySid)

	h.env["TELCO_PROFILE"] = "staging"
	r = h.runIn("", "projects", "list")
	assert.Equal(t, 0, r.code, "TELCO_PROFILE chooses it too: %s", r.stderr)
	assert.Contains(t, r.stdout, info.PropertySid)

	if runtime.GOOS != "windows" {
		fi, err := os.Stat(h.path())
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "only its owner reads the token")
		di, err := os.Stat(filepath.Dir(h.path()))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	}
	var saved profiles
	b, err := os.ReadFile(h.path())
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &saved))
	assert.Equal(t, profile{AccountSid: sid, Token: token, BaseURL: info.URL}, saved.Profiles["staging"])
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v", saved.Profiles["staging"], saved.Profiles["staging"], saved), token,
		"%v keeps the token out")
}

// Flags, then the environment, then the profile, then an error; a 401
// says where the refused credentials came from, never what they are.
func TestCredentialPrecedence(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	h := newProfileHarness(t)

	r := h.runIn("", "projects", "list")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no credentials: give --account-sid and --token, set TELCO_ACCOUNT_SID and TELCO_TOKEN, or run 'telco login'")
	r = h.runIn("", "--profile", "nope", "projects", "list")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `no profile "nope" in `+h.path()+": run 'telco login --profile nope'")

	r = h.runIn(srv.Token+"\n", "login", "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `profile "default"`)

	// The default profile, when nothing else gives credentials.
	r = h.runIn("", "projects", "list")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, srv.PropertySid)

	// The environment wins over the profile, and a 401 names it.
	h.env["TELCO_ACCOUNT_SID"], h.env["TELCO_TOKEN"], h.env["TELCO_BASE_URL"] = srv.AccountSid, "wrong-env-token", srv.URL
	r = h.runIn("", "projects", "list")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "401 Unauthorized")
	assert.Contains(t, r.stderr, "the credentials came from TELCO_ACCOUNT_SID and TELCO_TOKEN: check them")
	assert.NotContains(t, r.stderr, "wrong-env-token")
	r = h.runIn("", "projects", "list", "-o", "json")
	var e struct{ Error errorReport }
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr)
	assert.Equal(t, "TELCO_ACCOUNT_SID and TELCO_TOKEN", e.Error.Credentials)

	// Flags win over the environment.
	r = h.runIn("", "projects", "list", "--token", srv.Token)
	assert.Equal(t, 0, r.code, r.stderr)
	r = h.runIn("", "projects", "list", "--account-sid", srv.AccountSid, "--token", "wrong-flag-token")
	assert.Contains(t, r.stderr, "the credentials came from --account-sid and --token")
	assert.NotContains(t, r.stderr, "wrong-flag-token")

	// A profile named on the command line is not passed over in silence;
	// one named by the environment gives way, with a note.
	r = h.runIn("", "--profile", "default", "projects", "list")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--profile default: the credentials come from TELCO_ACCOUNT_SID and TELCO_TOKEN, which win over a profile")
	h.env["TELCO_TOKEN"] = srv.Token
	h.env["TELCO_PROFILE"] = "default"
	r = h.runIn("", "projects", "list")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "TELCO_PROFILE=default is not used")

	// Half a pair is an error, not a guess.
	delete(h.env, "TELCO_TOKEN")
	delete(h.env, "TELCO_PROFILE")
	r = h.runIn("", "projects", "list")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no token: give --token or set TELCO_TOKEN")

	// A profile's refused credentials are named by the profile; a base URL
	// given by flag wins over the profile's.
	delete(h.env, "TELCO_ACCOUNT_SID")
	delete(h.env, "TELCO_BASE_URL")
	ps, path, err := newApp(context.Background(), newInterrupts(nil), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, envOf(h.env)).readProfiles()
	require.NoError(t, err)
	ps.Profiles["stale"] = profile{AccountSid: srv.AccountSid, Token: "stale-profile-token", BaseURL: srv.URL}
	require.NoError(t, (&app{}).writeProfiles(ps, path))
	r = h.runIn("", "--profile", "stale", "projects", "list")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `the credentials came from profile "stale" (`+h.path()+")")
	assert.NotContains(t, r.stderr, "stale-profile-token")
	r = h.runIn("", "--profile", "default", "--base-url", "http://127.0.0.1:1", "projects", "list")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "GET http://127.0.0.1:1/v2/Properties")
}

// login checks the credentials before it saves them, asks for what it
// cannot read, and logout removes a profile and, with the last, the file.
func TestLoginAndLogout(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	h := newProfileHarness(t)

	r := h.runIn("not-the-token\n", "login", "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "refused account "+srv.AccountSid+" with this token (401): nothing saved")
	assert.NotContains(t, r.stderr, "not-the-token")
	assert.NoFileExists(t, h.path(), "nothing saved")

	r = h.runIn(srv.Token+"\n", "login", "--token-stdin", "--base-url", srv.URL)
	assert.Equal(t, 2, r.code, "no account SID, and no terminal to ask on")
	assert.Contains(t, r.stderr, "give --account-sid")
	r = h.runIn("", "login", "--account-sid", srv.AccountSid, "--base-url", srv.URL)
	assert.Equal(t, 2, r.code, "no token, and no terminal to ask on")
	assert.Contains(t, r.stderr, "with --token-stdin")
	r = h.runIn(srv.Token+"\n", "--profile", "bad name", "login", "--account-sid", srv.AccountSid, "--token-stdin")
	assert.Equal(t, 2, r.code)
	r = h.runIn("", "login", "list")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "the portal logins are 'telco logins list'")

	for _, name := range []string{"a", "b"} {
		r = h.runIn(srv.Token+"\n", "login", "--profile", name, "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL, "-o", "json")
		require.Equal(t, 0, r.code, r.stderr)
		var out struct{ Profile, AccountSid, BaseURL, Path string }
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
		assert.Equal(t, name, out.Profile)
		assert.Equal(t, h.path(), out.Path)
		assert.NotContains(t, r.stdout, srv.Token)
	}
	r = h.runIn("", "logout", "--profile", "a")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `profile "a" removed`)
	assert.Equal(t, 2, h.runIn("", "--profile", "a", "projects", "list").code, "gone")
	assert.Equal(t, 0, h.runIn("", "--profile", "b", "projects", "list").code, "the other stays")
	r = h.runIn("", "logout", "--profile", "a")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `no profile "a" in `+h.path()+" (saved: b): nothing removed")
	h.env["TELCO_PROFILE"] = "b"
	require.Equal(t, 0, h.runIn("", "logout").code)
	assert.NoFileExists(t, h.path(), "the last profile takes the file with it")

	if runtime.GOOS != "windows" {
		// A file that others may read still works, with a warning.
		r = h.runIn(srv.Token+"\n", "login", "--profile", "b", "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL)
		require.Equal(t, 0, r.code, r.stderr)
		require.NoError(t, os.Chmod(h.path(), 0o644))
		r = h.runIn("", "projects", "list")
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "may be read by others (mode 0644): run chmod 600")
	}
}

// On a terminal, login asks for the account SID and for the token, which
// it does not show as it is typed.
func TestLoginAsksOnATerminal(t *testing.T) {
	t.Parallel()
	bin := telcoBinary(t)
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	config := t.TempDir()
	screen, typeLine := tmuxTerminal(t, 160, fmt.Sprintf("XDG_CONFIG_HOME=%s %s login --profile tty --base-url %s", config, bin, srv.URL))
	require.Eventually(t, func() bool { return strings.Contains(screen(), "Account SID: ") }, 20*time.Second, 20*time.Millisecond, "%s", screen())
	typeLine(srv.AccountSid)
	require.Eventually(t, func() bool { return strings.Contains(screen(), "Token (not shown): ") }, 5*time.Second, 20*time.Millisecond, "%s", screen())
	typeLine(srv.Token)
	var final string
	require.Eventually(t, func() bool { final = screen(); return strings.Contains(final, "EXIT:") }, 10*time.Second, 20*time.Millisecond)
	assert.Contains(t, final, "EXIT:0")
	assert.Contains(t, final, srv.AccountSid, "the SID is shown as typed")
	assert.False(t, strings.Contains(final, srv.Token), "the token is not shown")
	assert.Contains(t, final, `saved as profile "tty"`)
	b, err := os.ReadFile(filepath.Join(config, "telco", profilesFile))
	require.NoError(t, err)
	assert.Contains(t, string(b), srv.Token)
}

// Issue 36: login with standard input from /dev/null (CI, cron) or a pipe,
// and without --token-stdin, fails at once naming --token-stdin (exit 2),
// before asking anything: /dev/null is a character device, not a terminal
// to ask on, and asking it failed with "inappropriate ioctl for device".
func TestLoginWithoutATerminalNamesTokenStdin(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	h := newProfileHarness(t)
	devNull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	t.Cleanup(func() { devNull.Close() })
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	t.Cleanup(func() { pr.Close() })
	for name, stdin := range map[string]*os.File{"/dev/null": devNull, "a pipe": pr} {
		for _, args := range [][]string{
			{"login", "--account-sid", srv.AccountSid, "--base-url", srv.URL},
			{"login", "--base-url", srv.URL},
		} {
			var out, errOut bytes.Buffer
			code := run(context.Background(), args, stdin, &out, &errOut, envOf(h.env))
			assert.Equal(t, 2, code, "%s, %v: a usage error: %s", name, args, errOut.String())
			assert.Contains(t, errOut.String(), "--token-stdin", "%s, %v", name, args)
			assert.NotContains(t, errOut.String(), "Token (not shown)", "%s, %v: nothing is asked", name, args)
			assert.NotContains(t, errOut.String(), "Account SID:", "%s, %v: nothing is asked", name, args)
			assert.NotContains(t, errOut.String(), "ioctl", "%s, %v", name, args)
			assert.Empty(t, out.String())
		}
	}
	assert.NoFileExists(t, h.path(), "nothing saved")
}

// Issue 36: telco profiles list shows every saved profile (name, account,
// base URL, default project, which one is in use), in a table or as JSON,
// and never a token.
func TestProfilesList(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	h := newProfileHarness(t)

	r := h.runIn("", "profiles", "list", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.JSONEq(t, "[]", r.stdout, "none saved yet")
	assert.Contains(t, r.stderr, "no profiles saved")

	r = h.runIn(srv.Token+"\n", "login", "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL)
	require.Equal(t, 0, r.code, r.stderr)
	r = h.runIn(srv.Token+"\n", "login", "--profile", "staging", "--account-sid", srv.AccountSid, "--token-stdin",
		"--base-url", srv.URL, "--property", srv.PropertySid)
	require.Equal(t, 0, r.code, r.stderr)
	ps, path, err := newApp(context.Background(), newInterrupts(nil), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, envOf(h.env)).readProfiles()
	require.NoError(t, err)
	ps.Profiles["public"] = profile{AccountSid: "ACPUBLICPUBLICPUBLICPUBLICPUBLIC", Token: "public-s3cret-token"}
	require.NoError(t, (&app{}).writeProfiles(ps, path))

	list := func(extra ...string) ([]profileEntry, result) {
		t.Helper()
		r := h.runIn("", append([]string{"profiles", "list", "-o", "json"}, extra...)...)
		require.Equal(t, 0, r.code, r.stderr)
		var got []profileEntry
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
		for _, secret := range []string{srv.Token, "public-s3cret-token", "token", "Token"} {
			assert.NotContains(t, r.stdout+r.stderr, secret, "never a token, nor a field for one")
		}
		return got, r
	}
	got, _ := list()
	assert.Equal(t, []profileEntry{
		{Name: "default", AccountSid: srv.AccountSid, BaseURL: srv.URL, Active: true},
		{Name: "public", AccountSid: "ACPUBLICPUBLICPUBLICPUBLICPUBLIC", BaseURL: telco.DefaultBaseURL},
		{Name: "staging", AccountSid: srv.AccountSid, BaseURL: srv.URL, PropertySid: srv.PropertySid},
	}, got, "sorted by name; the default profile is the one in use")

	got, _ = list("--profile", "staging")
	assert.True(t, got[2].Active, "--profile chooses")
	assert.False(t, got[0].Active)
	h.env["TELCO_PROFILE"] = "public"
	got, _ = list()
	assert.True(t, got[1].Active, "TELCO_PROFILE chooses")

	// Credentials from the environment win over every profile: none is in
	// use, and the list says why.
	h.env["TELCO_ACCOUNT_SID"], h.env["TELCO_TOKEN"] = srv.AccountSid, "env-s3cret-token"
	got, r = list()
	for _, p := range got {
		assert.False(t, p.Active, p.Name)
	}
	assert.Contains(t, r.stderr, "no profile is in use: the credentials come from TELCO_ACCOUNT_SID and TELCO_TOKEN")
	assert.NotContains(t, r.stdout+r.stderr, "env-s3cret-token")
	delete(h.env, "TELCO_ACCOUNT_SID")
	delete(h.env, "TELCO_TOKEN")
	delete(h.env, "TELCO_PROFILE")

	r = h.runIn("", "profiles", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^NAME\s+ACCOUNT SID\s+BASE URL\s+DEFAULT PROJECT\s+ACTIVE$`, r.stdout)
	assert.Regexp(t, `(?m)^staging\s+`+srv.AccountSid+`\s+\S+\s+`+srv.PropertySid+`\s+no$`, r.stdout)
	assert.Regexp(t, `(?m)^default\s+`+srv.AccountSid+`\s+\S+\s+yes$`, r.stdout)
	for _, secret := range []string{srv.Token, "public-s3cret-token"} {
		assert.NotContains(t, r.stdout+r.stderr, secret)
	}
}

// Issue 36: telco login --property saves a default project in the profile,
// used by every command that takes a project when neither --property nor
// TELCO_PROPERTY_SID gives one, and only while that profile gives the
// credentials.
func TestLoginSavesADefaultProject(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	other, _ := srv.AddProperty(srv.AccountSid, "Other")
	h := newProfileHarness(t)

	r := h.runIn(srv.Token+"\n", "login", "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL,
		"--property", "PRNOSUCHPROJECTNOSUCHPROJECTNOSU")
	assert.Equal(t, 1, r.code, "a project the credentials cannot read is not saved: %s", r.stderr)
	assert.Contains(t, r.stderr, "PRNOSUCHPROJECTNOSUCHPROJECTNOSU")
	assert.Contains(t, r.stderr, "nothing saved")
	assert.NoFileExists(t, h.path())

	r = h.runIn(srv.Token+"\n", "login", "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL,
		"--property", srv.PropertySid)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "default project "+srv.PropertySid)

	// No --property, no TELCO_PROPERTY_SID: the profile's project.
	r = h.runIn("", "sms", "send", "--to", "+61400000001", "--text", "hi", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var m telco.Message
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &m))
	assert.Equal(t, srv.PropertySid, m.PropertySid)
	r = h.runIn("", "projects", "get", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, srv.PropertySid)
	r = h.runIn("", "sip-trunks", "list", "-o", "json")
	assert.Equal(t, 0, r.code, "a command that takes --property or --account: %s", r.stderr)

	// The flag and the variable come first.
	r = h.runIn("", "sms", "send", "--property", other.PropertySid, "--to", "+61400000001", "--text", "hi", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &m))
	assert.Equal(t, other.PropertySid, m.PropertySid)
	h.env["TELCO_PROPERTY_SID"] = other.PropertySid
	r = h.runIn("", "sms", "send", "--to", "+61400000001", "--text", "hi", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &m))
	assert.Equal(t, other.PropertySid, m.PropertySid)
	delete(h.env, "TELCO_PROPERTY_SID")

	// Credentials from the environment are not the profile's: nor is its
	// project.
	h.env["TELCO_ACCOUNT_SID"], h.env["TELCO_TOKEN"], h.env["TELCO_BASE_URL"] = srv.AccountSid, srv.Token, srv.URL
	r = h.runIn("", "sms", "send", "--to", "+61400000001", "--text", "hi")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "give --property")
	delete(h.env, "TELCO_ACCOUNT_SID")
	delete(h.env, "TELCO_TOKEN")
	delete(h.env, "TELCO_BASE_URL")

	// Logging in again to the same account keeps the project; --property ""
	// forgets it.
	r = h.runIn(srv.Token+"\n", "login", "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "default project "+srv.PropertySid)
	r = h.runIn(srv.Token+"\n", "login", "--account-sid", srv.AccountSid, "--token-stdin", "--base-url", srv.URL, "--property", "", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, srv.PropertySid)
	r = h.runIn("", "sms", "send", "--to", "+61400000001", "--text", "hi")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "telco login --property")
}
