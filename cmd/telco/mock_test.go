package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestMockServesTheFake(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"mock", "--addr", "127.0.0.1:0", "--account-sid", "ACMOCKMOCKMOCKMOCKMOCKMOCKMOCKMO", "--token", "t0ken"},
			strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	}()

	var info mockInfo
	require.Eventually(t, func() bool {
		line, _, found := strings.Cut(out.String(), "\n")
		return found && json.Unmarshal([]byte(line), &info) == nil
	}, 5*time.Second, 10*time.Millisecond, "the tool prints one JSON line: %s %s", out.String(), errOut.String())
	assert.Equal(t, "ACMOCKMOCKMOCKMOCKMOCKMOCKMOCKMO", info.AccountSid)
	assert.Equal(t, "t0ken", info.Token)
	assert.NotEmpty(t, info.PropertySid)

	// The other commands work against it.
	var got bytes.Buffer
	code := run(context.Background(), []string{"projects", "get", info.PropertySid, "-o", "json"}, strings.NewReader(""), &got, &errOut,
		envOf(map[string]string{"TELCO_ACCOUNT_SID": info.AccountSid, "TELCO_TOKEN": info.Token, "TELCO_BASE_URL": info.URL}))
	require.Equal(t, 0, code, errOut.String())
	var p telco.Property
	require.NoError(t, json.Unmarshal(got.Bytes(), &p))
	assert.True(t, p.SmsEnabled)

	// The seeded number and block make the number commands usable, and
	// the address-in-use rule reachable.
	assert.Equal(t, "+61299990000", info.Number)
	env := envOf(map[string]string{"TELCO_ACCOUNT_SID": info.AccountSid, "TELCO_TOKEN": info.Token, "TELCO_BASE_URL": info.URL})
	cli := func(want int, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "-o", "json"), strings.NewReader(""), &out, &errOut, env)
		require.Equal(t, want, code, "%v: %s %s", args, out.String(), errOut.String())
		return out.String() + errOut.String()
	}
	var addr telco.Address
	require.NoError(t, json.Unmarshal([]byte(cli(0, "addresses", "create", "--line1", "1 Mock St", "--city", "Sydney", "--country", "AU")), &addr))
	cli(0, "numbers", "configure", info.Number, "--friendly", "Front desk", "--address", addr.AddressSid)
	assert.Contains(t, cli(1, "addresses", "delete", addr.AddressSid, "--yes"), "ADDRESS_CANNOT_BE_DELETED")
	// Clearing the address lets it go.
	cli(0, "numbers", "configure", info.Number, "--clear", "address")
	cli(0, "addresses", "delete", addr.AddressSid, "--yes")
	var blocks []telco.NumberBlock
	require.NoError(t, json.Unmarshal([]byte(cli(0, "number-blocks", "search", "--property", info.PropertySid)), &blocks))
	require.Len(t, blocks, 1)
	assert.Equal(t, "Mock block", blocks[0].Name)
	assert.Contains(t, cli(0, "number-blocks", "list-by-account"), "Mock block")

	// The seeded flow routes the number; the seeded calls are listed.
	require.NotEmpty(t, info.Flow)
	assert.Contains(t, cli(0, "flows", "list", "--property", info.PropertySid), info.Flow)
	cli(0, "numbers", "configure", info.Number, "--routing", "Flow", "--flow", info.Flow)
	var calls []telco.Call
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(cli(0, "calls", "list", "--property", info.PropertySid), "token:", 2)[0]), &calls))
	assert.Len(t, calls, 3)
	assert.Equal(t, "61299990000", calls[0].To)

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(5 * time.Second):
		t.Fatal("mock did not stop when its context ended")
	}
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), "exactly one line: %s", out.String())
}

func TestMockFlagErrors(t *testing.T) {
	t.Parallel()
	var errOut bytes.Buffer
	noEnv := func(string) string { return "" }
	assert.Equal(t, 2, run(context.Background(), []string{"mock", "--token", "only"}, nil, &bytes.Buffer{}, &errOut, noEnv))
	assert.Contains(t, errOut.String(), "both")

	errOut.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"mock", "--addr", "256.0.0.1:1"}, nil, &bytes.Buffer{}, &errOut, noEnv))
	assert.Contains(t, errOut.String(), "listen")

	// --base-url is a client's flag: the mock refuses it rather than
	// ignore it, wherever it stands.
	for _, args := range [][]string{{"mock", "--base-url", "http://x"}, {"--base-url", "http://x", "mock"}} {
		errOut.Reset()
		assert.Equal(t, 2, run(context.Background(), args, nil, &bytes.Buffer{}, &errOut, noEnv), args)
		assert.Contains(t, errOut.String(), "--base-url is for the commands that call a service", args)
	}
}

// An --addr that is not host:port is a usage error.
func TestMockAddrMustBeHostPort(t *testing.T) {
	t.Parallel()
	// An already ended context: a mock that did start returns at once
	// instead of serving until the test times out.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, addr := range []string{"nonsense", "127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000"} {
		var out, errOut bytes.Buffer
		code := run(ended, []string{"mock", "--addr", addr}, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
		assert.Equal(t, 2, code, "--addr %s: %s", addr, errOut.String())
		assert.Contains(t, errOut.String(), "host:port", addr)
		assert.Empty(t, out.String(), "no mock line for %s", addr)
	}
}

// syncBuffer lets the test read what the tool prints while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// --info-file appears, whole, once the fake answers; a mock bound to every
// interface prints the loopback URL, which the CLI accepts, and warns.
func TestMockInfoFileAndAllInterfaces(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info := filepath.Join(t.TempDir(), "mock.json")
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"mock", "--addr", "0.0.0.0:0", "--info-file", info},
			strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	}()
	var m mockInfo
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(info)
		if err != nil {
			return false
		}
		require.NoError(t, json.Unmarshal(b, &m), "the file is never seen half written: %q", b)
		return true
	}, 5*time.Second, 5*time.Millisecond)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, m.URL)
	assert.Contains(t, errOut.String(), "warning: listening on every interface")
	assert.Equal(t, strings.TrimSpace(out.String()), func() string { b, _ := os.ReadFile(info); return strings.TrimSpace(string(b)) }())

	var got bytes.Buffer
	code := run(context.Background(), []string{"projects", "get", "-o", "json"}, strings.NewReader(""), &got, &errOut,
		envOf(map[string]string{"TELCO_ACCOUNT_SID": m.AccountSid, "TELCO_TOKEN": m.Token, "TELCO_BASE_URL": m.URL,
			"TELCO_PROPERTY_SID": m.PropertySid}))
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, got.String(), m.PropertySid, "projects get defaults to TELCO_PROPERTY_SID")

	cancel()
	assert.Equal(t, 0, <-done)
	assert.NoFileExists(t, info, "removed when the fake stops")
}

func TestLoopbackURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://0.0.0.0:8080":   "http://127.0.0.1:8080",
		"http://[::]:8080":      "http://127.0.0.1:8080",
		"http://127.0.0.1:8080": "http://127.0.0.1:8080",
		"http://10.0.0.5:8080":  "http://10.0.0.5:8080",
	} {
		got, changed := loopbackURL(in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, want != in, changed, in)
	}
}

// `telco mock --help` names as a flag's default only the environment the
// mock reads: not the client's TELCO_ACCOUNT_SID, TELCO_TOKEN or
// TELCO_BASE_URL, which it never reads.
func TestMockHelpNamesOnlyTheEnvironmentItReads(t *testing.T) {
	t.Parallel()
	var help bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"mock", "--help"}, strings.NewReader(""), &help, &help,
		func(string) string { return "" }))
	_, flags, found := strings.Cut(help.String(), "\nFlags:\n")
	require.True(t, found, "help has a flags section: %s", help.String())
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$([A-Z][A-Z0-9_]*)`).FindAllStringSubmatch(flags, -1) {
		named[m[1]] = true
	}
	require.NotEmpty(t, named, "the credentials' defaults are named: %s", flags)

	// What a mock that starts (and stops at once) reads.
	var mu sync.Mutex
	read := map[string]bool{}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code := run(ended, []string{"mock", "--addr", "127.0.0.1:0"}, strings.NewReader(""), &out, &errOut, func(k string) string {
		mu.Lock()
		defer mu.Unlock()
		read[k] = true
		return ""
	})
	require.Equal(t, 0, code, errOut.String())
	for name := range named {
		assert.True(t, read[name], "mock --help names $%s, which the mock does not read:\n%s", name, flags)
	}
	assert.Contains(t, flags, "$TELCO_MOCK_ACCOUNT_SID")
	assert.Contains(t, flags, "$TELCO_MOCK_TOKEN")
}

// mockDo sends one request to the mock with net/http, as a client in any
// language would, and returns the status, headers and body, or the error
// of a dropped connection.
func mockDo(t *testing.T, method, url, sid, token, body string) (int, http.Header, string, error) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if sid != "" {
		req.SetBasicAuth(sid, token)
	}
	req.Header.Set("Content-Type", "application/json")
	// A new connection each time: a dropped one must not be reused, and
	// net/http must not resend a request on its own.
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b), err
}

// A client in any language arms a fault over HTTP, sees it happen, lists
// and clears faults, and is refused another account's project: what
// .ci/mock-curl does with curl, here through net/http.
func TestMockAdminAPIOverHTTP(t *testing.T) {
	t.Parallel()
	info, _ := startMock(t, "--accounts", "2",
		"--fault", "op=Properties.List,kind=status,status=503,retry-after=2,body=html")
	require.Len(t, info.Accounts, 2)
	assert.Equal(t, info.URL+"/__telcotest/", info.AdminURL)
	sid, token := info.AccountSid, info.Token
	faults := info.AdminURL + "faults"
	list := func() []map[string]any {
		t.Helper()
		code, _, body, err := mockDo(t, http.MethodGet, faults, sid, token, "")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, code, body)
		var out struct{ Faults []map[string]any }
		require.NoError(t, json.Unmarshal([]byte(body), &out), body)
		return out.Faults
	}

	// The --fault armed at start-up is listed, then happens.
	got := list()
	require.Len(t, got, 1)
	assert.Equal(t, "status", got[0]["kind"])
	assert.Equal(t, "Properties.List", got[0]["op"])
	assert.EqualValues(t, 1, got[0]["remaining"])
	code, h, body, err := mockDo(t, http.MethodGet, info.URL+"/v2/Properties", sid, token, "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "2", h.Get("Retry-After"))
	assert.Contains(t, h.Get("Content-Type"), "text/html")
	assert.Contains(t, body, "<html>")
	assert.Empty(t, list(), "used up")

	// Armed over HTTP: the send's connection is dropped before the fake
	// reads it, and nothing is stored.
	code, _, body, err = mockDo(t, http.MethodPost, faults, sid, token, `{"op":"Messages.Send","kind":"drop-before-read"}`)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, code, body)
	send := info.URL + "/v2/Properties/" + info.PropertySid + "/Messages"
	_, _, _, err = mockDo(t, http.MethodPost, send, sid, token, `{"To":"+61400000001","Text":"hi"}`)
	require.Error(t, err, "the connection is dropped")

	// Armed, then cleared: the send goes through.
	_, _, _, err = mockDo(t, http.MethodPost, faults, sid, token, `{"op":"Messages.Send","kind":"status","status":500,"body":"empty","count":5}`)
	require.NoError(t, err)
	assert.Len(t, list(), 1)
	code, _, body, err = mockDo(t, http.MethodDelete, faults, sid, token, "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"cleared":1}`, body)
	code, _, body, err = mockDo(t, http.MethodPost, send, sid, token, `{"To":"+61400000001","Text":"hi"}`)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code, body)

	// A bad fault is a 400 that says why; the second account cannot arm.
	code, _, body, _ = mockDo(t, http.MethodPost, faults, sid, token, `{"kind":"status","status":200}`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "400 to 599")
	other := info.Accounts[1]
	code, _, _, _ = mockDo(t, http.MethodGet, faults, other.AccountSid, other.Token, "")
	assert.Equal(t, http.StatusUnauthorized, code)

	// The second account is refused the first one's project, and reaches
	// its own.
	code, _, body, err = mockDo(t, http.MethodGet, info.URL+"/v2/Properties/"+info.PropertySid, other.AccountSid, other.Token, "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, "FORBIDDEN")
	code, _, _, err = mockDo(t, http.MethodGet, info.URL+"/v2/Properties/"+other.PropertySid, other.AccountSid, other.Token, "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
}

// --accounts, --account and --projects: every account in the info line,
// each with its projects, the first one's under the old keys too.
func TestMockAccountsAndProjects(t *testing.T) {
	t.Parallel()
	info, _ := startMock(t, "--account-sid", "ACFIRSTFIRSTFIRSTFIRSTFIRSTFIRST", "--token", "first-token",
		"--accounts", "3", "--account", "ACFIXEDFIXEDFIXEDFIXEDFIXEDFIXED:fixed:token", "--projects", "2")
	require.Len(t, info.Accounts, 3)
	first := info.Accounts[0]
	assert.Equal(t, mockAccount{AccountSid: info.AccountSid, Token: info.Token, PropertySid: info.PropertySid,
		PropertySids: first.PropertySids}, first)
	assert.Equal(t, "ACFIRSTFIRSTFIRSTFIRSTFIRSTFIRST", first.AccountSid)
	assert.Equal(t, "ACFIXEDFIXEDFIXEDFIXEDFIXEDFIXED", info.Accounts[1].AccountSid)
	assert.Equal(t, "fixed:token", info.Accounts[1].Token, "the token is everything after the first colon")
	assert.NotEqual(t, first.AccountSid, info.Accounts[2].AccountSid)
	seen := map[string]bool{}
	for _, acct := range info.Accounts {
		require.Len(t, acct.PropertySids, 2, acct.AccountSid)
		assert.Equal(t, acct.PropertySid, acct.PropertySids[0])
		c, err := telco.NewClient(acct.AccountSid, acct.Token, telco.WithBaseURL(info.URL))
		require.NoError(t, err)
		var listed []string
		for p, err := range c.Properties.ListAll(context.Background(), nil) {
			require.NoError(t, err)
			assert.True(t, p.SmsEnabled)
			listed = append(listed, p.PropertySid)
		}
		assert.Equal(t, acct.PropertySids, listed, "each account lists its own projects")
		for _, p := range listed {
			assert.False(t, seen[p], "a project belongs to one account")
			seen[p] = true
		}
	}
}

func TestMockAccountsAndFaultFlagErrors(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--accounts", "0"}, "--accounts must be 1 to 100"},
		{[]string{"--accounts", "101"}, "--accounts must be 1 to 100"},
		{[]string{"--projects", "0"}, "--projects must be 1 to 100"},
		{[]string{"--account", "ACNOTOKEN"}, `--account takes SID:TOKEN (got "ACNOTOKE...")`},
		{[]string{"--account", "ACX:"}, "--account takes SID:TOKEN"},
		{[]string{"--account", "ACX:secret-one", "--account", "ACX:secret-two"}, "account ACX is given twice"},
		{[]string{"--account-sid", "ACX", "--token", "t", "--account", "ACX:secret"}, "account ACX is given twice"},
		{[]string{"--fault", "kind=boom"}, `--fault "kind=boom": kind "boom" is not one of none, status`},
		{[]string{"--fault", "op=Messages.Send"}, "kind is required"},
		{[]string{"--fault", "kind=status,status=503,delay_ms=5"}, "delay_ms applies to kind latency only"},
	} {
		var out, errOut bytes.Buffer
		code := run(ended, append([]string{"mock", "--addr", "127.0.0.1:0"}, tc.args...), strings.NewReader(""), &out, &errOut,
			func(string) string { return "" })
		assert.Equal(t, 2, code, "%v: %s", tc.args, errOut.String())
		assert.Contains(t, errOut.String(), tc.want, tc.args)
		assert.NotContains(t, errOut.String(), "secret", "a token is never quoted back")
		assert.Empty(t, out.String(), "no mock line for %v", tc.args)
	}
}

// --keep-info-file leaves the file when the mock stops.
func TestMockKeepInfoFile(t *testing.T) {
	t.Parallel()
	info := filepath.Join(t.TempDir(), "mock.json")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"mock", "--addr", "127.0.0.1:0", "--info-file", info, "--keep-info-file"},
			strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	}()
	require.Eventually(t, func() bool { _, err := os.Stat(info); return err == nil }, 5*time.Second, 5*time.Millisecond)
	require.NotEmpty(t, out.String(), "standard output is written before the file appears")
	cancel()
	require.Equal(t, 0, <-done, errOut.String())
	b, err := os.ReadFile(info)
	require.NoError(t, err, "kept after the mock stopped")
	var m mockInfo
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, strings.TrimSpace(out.String()), strings.TrimSpace(string(b)))
}

// --env prints export lines a POSIX shell reads back to the same values,
// whatever the token holds.
func TestMockEnvForAShell(t *testing.T) {
	t.Parallel()
	const token = `it's $HOME "quoted" \ back`
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int)
	infoFile := filepath.Join(t.TempDir(), "mock.json")
	go func() {
		done <- run(ctx, []string{"mock", "--addr", "127.0.0.1:0", "--env", "--accounts", "2", "--info-file", infoFile,
			"--account-sid", "ACSHELLSHELLSHELLSHELLSHELLSHELL", "--token", token},
			strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	}()
	defer func() { cancel(); <-done }()
	require.Eventually(t, func() bool { _, err := os.Stat(infoFile); return err == nil }, 5*time.Second, 5*time.Millisecond)
	var info mockInfo
	b, err := os.ReadFile(infoFile)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &info), "the info file stays JSON")
	lines := out.String()
	assert.NotContains(t, lines, "{", "no JSON line on standard output with --env")
	assert.NotContains(t, lines, "TELCO_ALLOW_INSECURE_HTTP", "loopback needs no opt-in")
	assert.Contains(t, lines, "# account 2: TELCO_ACCOUNT_SID="+info.Accounts[1].AccountSid)

	sh := exec.Command("/bin/sh", "-c", lines+`printf '%s\n' "$TELCO_BASE_URL" "$TELCO_ACCOUNT_SID" "$TELCO_TOKEN" "$TELCO_PROPERTY_SID"`)
	sh.Env = []string{"HOME=/nowhere"}
	got, err := sh.Output()
	require.NoError(t, err, lines)
	assert.Equal(t, strings.Join([]string{info.URL, info.AccountSid, token, info.PropertySid}, "\n")+"\n", string(got))
}

func TestMockEnv_InsecureHTTPAndCA(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]bool{
		"http://10.1.2.3:8080": true, "http://telco-mock:8080": true,
		"http://127.0.0.1:8080": false, "http://localhost:8080": false, "http://[::1]:8080": false,
		"https://telco-mock:8443": false,
	} {
		env := mockEnv(mockInfo{URL: url, AccountSid: "AC1", Token: "t", PropertySid: "PR1"})
		assert.Equal(t, want, strings.Contains(env, "export TELCO_ALLOW_INSECURE_HTTP=1\n"), "%s:\n%s", url, env)
		assert.Contains(t, env, "export TELCO_BASE_URL="+shellQuote(url)+"\n")
		assert.NotContains(t, env, "SSL_CERT_FILE")
	}
	env := mockEnv(mockInfo{URL: "https://127.0.0.1:8443", CAFile: "/tmp/my ca.pem"})
	assert.Contains(t, env, "export SSL_CERT_FILE='/tmp/my ca.pem'\n")
}

// mockJSON is mockDo for an answer that must be JSON with the status
// want; it decodes the body into out.
func mockJSON(t *testing.T, want int, method, url, sid, token, body string, out any) {
	t.Helper()
	code, _, got, err := mockDo(t, method, url, sid, token, body)
	require.NoError(t, err)
	require.Equal(t, want, code, "%s %s: %s", method, url, got)
	if out != nil {
		require.NoError(t, json.Unmarshal([]byte(got), out), got)
	}
}

// mockSeeds is what a client reads of what `telco mock` seeded.
type mockSeeds struct {
	Projects, OtherProjects, Flows, Calls, Blocks string
}

func readMockSeeds(t *testing.T, info mockInfo) mockSeeds {
	t.Helper()
	get := func(path string, acct mockAccount) string {
		t.Helper()
		code, _, body, err := mockDo(t, http.MethodGet, info.URL+path, acct.AccountSid, acct.Token, "")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, code, "%s: %s", path, body)
		return body
	}
	first, second := info.Accounts[0], info.Accounts[1]
	return mockSeeds{
		Projects:      get("/v2/Properties", first),
		OtherProjects: get("/v2/Properties", second),
		Flows:         get("/v2/Properties/"+info.PropertySid+"/Flows", first),
		Calls:         get("/v2/Properties/"+info.PropertySid+"/Calls", first),
		Blocks:        get("/v2/Properties/"+info.PropertySid+"/numberblocks", first),
	}
}

// POST /__telcotest/reset puts `telco mock` back as it started: what it
// seeded after the fake started (the number, block, flow and calls, the
// generated second account and the further projects) is there, under the
// SIDs it printed; the messages, requests and faults are gone.
func TestMockResetRestoresItsSeeds(t *testing.T) {
	t.Parallel()
	info, _ := startMock(t, "--accounts", "2", "--projects", "2",
		"--fault", "op=Lookup.NumberDetails,kind=status,status=503")
	require.Len(t, info.Accounts, 2)
	sid, token := info.AccountSid, info.Token
	admin := strings.TrimSuffix(info.AdminURL, "/")
	seeds := readMockSeeds(t, info)
	assert.Contains(t, seeds.Flows, info.Flow)
	assert.Contains(t, seeds.Blocks, "Mock block")
	assert.Contains(t, seeds.OtherProjects, info.Accounts[1].PropertySids[1])

	// Change what a test would.
	mockJSON(t, http.StatusOK, http.MethodPost, info.URL+"/v2/Properties", sid, token,
		`{"Name": "Extra", "MainDomain": "example.com", "TimeZone": "UTC"}`, nil)
	mockJSON(t, http.StatusNoContent, http.MethodPatch, info.URL+"/v2/Properties/"+info.PropertySid, sid, token, `{"Name": "Renamed"}`, nil)
	mockJSON(t, http.StatusOK, http.MethodPost, info.URL+"/v2/Properties/"+info.PropertySid+"/Messages", sid, token,
		`{"To": "+61400000001", "Text": "hi"}`, nil)
	mockJSON(t, http.StatusCreated, http.MethodPost, admin+"/inbound", sid, token,
		`{"property_sid": "`+info.PropertySid+`", "from": "+61400000002", "to": "`+info.Number+`", "text": "in"}`, nil)
	mockJSON(t, http.StatusCreated, http.MethodPost, admin+"/message-failures", sid, token, `{"to": "+61400000001"}`, nil)
	require.NotEqual(t, seeds, readMockSeeds(t, info))

	var cleared struct {
		Cleared struct{ Messages, Faults int }
	}
	mockJSON(t, http.StatusOK, http.MethodPost, admin+"/reset", sid, token, "", &cleared)
	assert.Equal(t, 2, cleared.Cleared.Messages)
	assert.Equal(t, 1, cleared.Cleared.Faults, "the --fault, unused")

	var msgs struct{ Messages []json.RawMessage }
	mockJSON(t, http.StatusOK, http.MethodGet, admin+"/messages", sid, token, "", &msgs)
	assert.NotNil(t, msgs.Messages)
	assert.Empty(t, msgs.Messages)
	var reqs struct {
		Requests []json.RawMessage
		Total    int
	}
	mockJSON(t, http.StatusOK, http.MethodGet, admin+"/requests", sid, token, "", &reqs)
	assert.Empty(t, reqs.Requests)
	assert.Zero(t, reqs.Total)
	var faults struct{ Faults []json.RawMessage }
	mockJSON(t, http.StatusOK, http.MethodGet, admin+"/faults", sid, token, "", &faults)
	assert.Empty(t, faults.Faults)
	assert.Equal(t, seeds, readMockSeeds(t, info), "the seeds, under the SIDs the mock printed")
}

// `telco mock` runs on a clock that follows real time and that the admin
// API moves on: a message scheduled 30 minutes ahead is sent once the
// clock has moved 30 minutes, and not before. Every admin endpoint wants
// the first account's credentials.
func TestMockClockSendsAScheduledMessage(t *testing.T) {
	t.Parallel()
	info, _ := startMock(t)
	sid, token := info.AccountSid, info.Token
	admin := strings.TrimSuffix(info.AdminURL, "/")
	var clock struct{ Now string }
	mockJSON(t, http.StatusOK, http.MethodGet, admin+"/clock", sid, token, "", &clock)
	now, err := time.Parse(time.RFC3339, clock.Now)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), now, 2*time.Second, "the real time, to begin with")

	schedule := now.Unix() + 30*60
	mockJSON(t, http.StatusOK, http.MethodPost, info.URL+"/v2/Properties/"+info.PropertySid+"/Messages", sid, token,
		`{"To": "+61400000001", "Text": "in half an hour", "ExternalId": "later", "Schedule": `+strconv.FormatInt(schedule, 10)+`}`, nil)
	status := func() string {
		t.Helper()
		var out struct {
			Messages []struct{ Status, ExternalId string }
		}
		mockJSON(t, http.StatusOK, http.MethodGet, admin+"/messages?external_id=later", sid, token, "", &out)
		require.Len(t, out.Messages, 1)
		return out.Messages[0].Status
	}
	assert.Equal(t, "Processing", status())
	mockJSON(t, http.StatusOK, http.MethodPost, admin+"/clock", sid, token, `{"advance_ms": 1740000}`, nil) // 29 minutes
	assert.Equal(t, "Processing", status(), "a minute early")
	mockJSON(t, http.StatusOK, http.MethodPost, admin+"/clock", sid, token, `{"advance_ms": 61000}`, &clock)
	assert.Equal(t, "Delivered", status(), "sent, and its receipt in, once 30 minutes have passed")
	moved, err := time.Parse(time.RFC3339, clock.Now)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, moved.Sub(now), 30*time.Minute)

	for _, ep := range []struct{ method, path string }{{"GET", "/"}, {"GET", "/messages"}, {"GET", "/requests"},
		{"POST", "/reset"}, {"POST", "/inbound"}, {"GET", "/clock"}, {"POST", "/clock"}, {"POST", "/porting-status"},
		{"GET", "/message-failures"}, {"POST", "/message-failures"}} {
		code, h, _, err := mockDo(t, ep.method, admin+ep.path, sid, "wrong", "{}")
		require.NoError(t, err)
		assert.Equal(t, http.StatusUnauthorized, code, ep)
		assert.Contains(t, h.Get("WWW-Authenticate"), "Basic", ep)
	}
	assert.Equal(t, "Delivered", status(), "nothing refused was done")
}

// The README's Python test is examples/mock-python/mock_admin.py, byte
// for byte: CI runs the file (.ci/mock-curl), so the page cannot show
// code that does not run.
func TestMockPythonExampleIsInTheReadme(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	script, err := os.ReadFile(filepath.Join("..", "..", "examples", "mock-python", "mock_admin.py"))
	require.NoError(t, err)
	const marker = "<!-- The next block is examples/mock-python/mock_admin.py, byte for byte. -->\n```python\n"
	_, after, found := strings.Cut(string(readme), marker)
	require.True(t, found, "README.md has no Python block after the marker")
	block, _, closed := strings.Cut(after, "\n```\n")
	require.True(t, closed, "the Python block is not closed")
	assert.Equal(t, string(script), block+"\n", "README.md's Python block and examples/mock-python/mock_admin.py differ")
	for _, endpoint := range []string{`"messages"`, `"requests"`, `"reset"`, `"inbound"`, `"clock"`, `"message-failures"`,
		`"porting-status"`, `"faults"`, `admin("GET", "")`, `token="wrong"`} {
		assert.Contains(t, block, endpoint, "the Python test uses every endpoint")
	}
}
