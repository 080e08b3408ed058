package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// useEnv sets every variable the example reads, "" for those env leaves
// out, so that the shell's own TELCO_* cannot reach the test. Tests that
// call it cannot run in parallel.
func useEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range []string{telco.EnvAccountSid, telco.EnvToken, telco.EnvBaseURL, telco.EnvAllowInsecureHTTP,
		"TELCO_PROPERTY_SID"} {
		t.Setenv(k, env[k])
	}
}

// mockEnv is what the README's mock recipe exports for srv, at base.
func mockEnv(srv *telcotest.Server, base string) map[string]string {
	return map[string]string{telco.EnvAccountSid: srv.AccountSid, telco.EnvToken: srv.Token,
		telco.EnvBaseURL: base, "TELCO_PROPERTY_SID": srv.PropertySid}
}

// The README's mock recipe exports TELCO_BASE_URL with the credentials:
// the example must send there, never to the real service.
func TestEnvConfigHonoursBaseURL(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, mockEnv(srv, srv.URL))
	cfg := envConfig(os.Getenv)
	cfg.from, cfg.to, cfg.text, cfg.poll = "Acme", "+61400000001", "Hello", 100*time.Millisecond
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, cfg))
	assert.Contains(t, out.String(), "Using the service at "+srv.URL)
	assert.Len(t, srv.Messages(srv.PropertySid), 1, "the message went to the mock")
}

// mockHost is the mock's name on the network, as a CI job or a container
// would reach `telco mock`: not localhost, so plain http to it needs
// TELCO_ALLOW_INSECURE_HTTP.
const mockHost = "telco-mock"

// reachMockByName makes the process's default transport, which a Client
// built without WithHTTPClient sends through once it is replaced, dial
// srv for mockHost, as the network's DNS would: no name need resolve on
// this machine.
func reachMockByName(t *testing.T, srv *telcotest.Server) {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	var d net.Dialer
	prev := http.DefaultTransport
	http.DefaultTransport = &http.Transport{DialContext: func(ctx context.Context, network, target string) (net.Conn, error) {
		if target != mockHost+":80" {
			t.Errorf("dialled %s, want only the mock", target)
			return nil, &net.AddrError{Err: "not the mock", Addr: target}
		}
		return d.DialContext(ctx, network, u.Host)
	}}
	t.Cleanup(func() { http.DefaultTransport = prev })
}

// A mock reached by host name over plain http: refused unless
// TELCO_ALLOW_INSECURE_HTTP=1, then used like any other base URL.
func TestAllowInsecureHTTPReachesAMockByName(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	reachMockByName(t, srv)
	env := mockEnv(srv, "http://"+mockHost)
	msg := func(cfg config) config {
		cfg.from, cfg.to, cfg.text, cfg.poll = "Acme", "+61400000001", "Hello", 100*time.Millisecond
		return cfg
	}

	useEnv(t, env)
	var out bytes.Buffer
	err := run(context.Background(), &out, msg(envConfig(os.Getenv)))
	require.Error(t, err, "plain http to a host that is not loopback")
	assert.Contains(t, err.Error(), "refusing plain http")
	assert.Contains(t, err.Error(), telco.EnvBaseURL)
	assert.NotContains(t, err.Error(), srv.Token)
	assert.Zero(t, srv.Requests(), "nothing reached the mock")

	env[telco.EnvAllowInsecureHTTP] = "1"
	useEnv(t, env)
	out.Reset()
	require.NoError(t, run(context.Background(), &out, msg(envConfig(os.Getenv))))
	assert.Contains(t, out.String(), "Using the service at http://"+mockHost)
	assert.Contains(t, out.String(), "now Delivered")
	assert.Len(t, srv.Messages(srv.PropertySid), 1, "the message went to the mock")
}
