package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
