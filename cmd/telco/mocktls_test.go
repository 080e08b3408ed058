package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	pkcs12 "software.sslmate.com/src/go-pkcs12"
)

// cliProcess runs the built tool (telcoBinary) with env added to this
// process's: for settings read once per process, such as SSL_CERT_FILE.
func cliProcess(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(telcoBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), ee.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errOut.String(), 0
}

// startMock runs `telco mock` with args until the test ends, and returns
// the line it printed and what it writes to standard error.
func startMock(t *testing.T, args ...string) (mockInfo, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, append([]string{"mock", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), &out, &errOut,
			func(string) string { return "" })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("mock did not stop")
		}
	})
	var info mockInfo
	require.Eventually(t, func() bool {
		line, _, found := strings.Cut(out.String(), "\n")
		return found && json.Unmarshal([]byte(line), &info) == nil
	}, 10*time.Second, 10*time.Millisecond, "the mock prints its line: %s %s", out.String(), errOut.String())
	return info, &errOut
}

// A client that trusts the CA --ca-file wrote reaches `telco mock --tls`
// by a host name given with --tls-host; one that does not is refused.
func TestMockTLS_TrustedByHostName(t *testing.T) {
	t.Parallel()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	info, _ := startMock(t, "--tls", "--tls-host", "telco-mock", "--ca-file", caFile)
	u, err := url.Parse(info.URL)
	require.NoError(t, err)
	require.Equal(t, "https", u.Scheme)
	assert.Equal(t, caFile, info.CAFile)

	caPEM, err := os.ReadFile(caFile)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(caPEM), "--ca-file holds a PEM certificate")

	// "telco-mock" resolves to the mock, as a compose service name would.
	dialer := &net.Dialer{}
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, u.Host)
		},
	}
	defer tr.CloseIdleConnections()
	base := "https://telco-mock:" + u.Port()

	resp, err := (&http.Client{Transport: tr}).Get(base + "/healthz")
	require.NoError(t, err, "the certificate is valid for telco-mock under the CA")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "ok")
	require.NotEmpty(t, resp.TLS.PeerCertificates)
	assert.Contains(t, resp.TLS.PeerCertificates[0].DNSNames, "telco-mock")
	assert.False(t, resp.TLS.PeerCertificates[0].IsCA, "the server certificate is not the CA")

	c, err := telco.NewClient(info.AccountSid, info.Token, telco.WithBaseURL(base), telco.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	p, err := c.Properties.Get(context.Background(), info.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, info.PropertySid, p.PropertySid)

	// A name the certificate does not cover is refused, CA or not.
	other := tr.Clone()
	defer other.CloseIdleConnections()
	_, err = (&http.Client{Transport: other}).Get("https://elsewhere:" + u.Port() + "/healthz")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate")

	// Without the CA, the mock is not trusted.
	untrusting := &http.Transport{}
	defer untrusting.CloseIdleConnections()
	_, err = (&http.Client{Transport: untrusting}).Get(info.URL + "/healthz")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate")
}

// The documented way: SSL_CERT_FILE names the CA file, and the tool (with
// the SDK's default transport, on Linux's system roots) trusts the mock.
func TestMockTLS_SSLCertFileMakesTheToolTrustIt(t *testing.T) {
	t.Parallel()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	info, _ := startMock(t, "--tls", "--ca-file", caFile)
	u, err := url.Parse(info.URL)
	require.NoError(t, err)
	env := []string{
		"TELCO_ACCOUNT_SID=" + info.AccountSid, "TELCO_TOKEN=" + info.Token,
		"TELCO_BASE_URL=https://localhost:" + u.Port(),
	}

	out, errOut, code := cliProcess(t, append(env, "SSL_CERT_FILE="+caFile), "projects", "get", info.PropertySid, "-o", "json")
	require.Equal(t, 0, code, "%s %s", out, errOut)
	var p telco.Property
	require.NoError(t, json.Unmarshal([]byte(out), &p))
	assert.Equal(t, info.PropertySid, p.PropertySid)

	// The same without the CA: the system roots do not know it.
	empty := filepath.Join(t.TempDir(), "none.pem")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	_, errOut, code = cliProcess(t, append(env, "SSL_CERT_FILE="+empty, "SSL_CERT_DIR="+t.TempDir()),
		"projects", "get", info.PropertySid, "-o", "json")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, "certificate")
}

// --log-requests writes one line per request to standard error, and
// never the token, though every request carries it.
func TestMockLogRequests_NoSecrets(t *testing.T) {
	t.Parallel()
	const token = "tok-Very-Secret-0451"
	info, errOut := startMock(t, "--log-requests", "--account-sid", "ACLOGSLOGSLOGSLOGSLOGSLOGSLOGSLO", "--token", token)
	env := envOf(map[string]string{"TELCO_ACCOUNT_SID": info.AccountSid, "TELCO_TOKEN": token, "TELCO_BASE_URL": info.URL})
	for _, args := range [][]string{
		{"projects", "get", info.PropertySid},
		{"logins", "create", "--property", info.PropertySid, "--email", "ops@example.com", "--first-name", "Olive",
			"--last-name", "Ops", "--scopes", "Reporting"},
	} {
		var out, e bytes.Buffer
		code := run(context.Background(), append(args, "-o", "json"), strings.NewReader("Passw0rd-Not-For-Logs!\n"), &out, &e,
			func(k string) string {
				if k == "TELCO_LOGIN_PASSWORD" {
					return "Passw0rd-Not-For-Logs!"
				}
				return env(k)
			})
		require.Equal(t, 0, code, "%v: %s", args, e.String())
	}
	resp, err := http.Get(info.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()

	require.Eventually(t, func() bool { return strings.Count(errOut.String(), "\n") == 3 }, 5*time.Second, 10*time.Millisecond,
		"one line per request: %q", errOut.String())
	log := errOut.String()
	assert.Contains(t, log, "GET /v2/Properties/"+info.PropertySid+" 200 ")
	assert.Contains(t, log, " OnlineLogins.Create")
	assert.Contains(t, log, "GET /healthz 200 ")
	for _, secret := range []string{token, "Passw0rd-Not-For-Logs!", "Basic "} {
		assert.NotContains(t, log, secret)
	}
}

func TestMockTLSFlagErrors(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"mock", "--tls"},
		{"mock", "--ca-file", "ca.pem"},
		{"mock", "--tls-host", "telco-mock"},
		{"mock", "--ca-p12", "ca.p12"},
	} {
		var out, errOut bytes.Buffer
		code := run(ended, args, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
		assert.Equal(t, 2, code, "%v: %s", args, errOut.String())
		assert.Contains(t, errOut.String(), "--tls", args)
		assert.Empty(t, out.String())
	}
}

// TELCO_ALLOW_INSECURE_HTTP=1 lets the tool use plain http to a mock by
// host name; without it the refusal says how to allow it.
func TestAllowInsecureHTTP(t *testing.T) {
	t.Parallel()
	base := map[string]string{"TELCO_ACCOUNT_SID": "AC1", "TELCO_TOKEN": "t", "TELCO_BASE_URL": "http://telco-mock:8080"}
	with := func(v string) func(string) string {
		m := map[string]string{"TELCO_ALLOW_INSECURE_HTTP": v}
		for k, val := range base {
			m[k] = val
		}
		return envOf(m)
	}

	a := &app{env: envOf(base)}
	_, err := a.getClient()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TELCO_ALLOW_INSECURE_HTTP=1")

	for _, v := range []string{"1", "true"} {
		a = &app{env: with(v)}
		c, err := a.getClient()
		require.NoError(t, err, v)
		assert.Equal(t, "http://telco-mock:8080", c.BaseURL())
	}
	a = &app{env: with("0")}
	_, err = a.getClient()
	assert.Error(t, err, "0 keeps the refusal")
	a = &app{env: with("yes please")}
	_, err = a.getClient()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TELCO_ALLOW_INSECURE_HTTP must be")
}

// With the opt-in, the tool's requests do reach a mock found by host name:
// here "telco-mock" resolves to a mock on loopback through a replaced
// http.DefaultTransport, which the SDK's default client sends through.
// Not parallel: it replaces a global.
func TestAllowInsecureHTTP_ReachesTheMockByHostName(t *testing.T) {
	info, _ := startMock(t)
	u, err := url.Parse(info.URL)
	require.NoError(t, err)
	dialer := &net.Dialer{}
	var dialed []string
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed = append(dialed, addr)
		return dialer.DialContext(ctx, network, u.Host)
	}}
	defer tr.CloseIdleConnections()
	orig := http.DefaultTransport
	http.DefaultTransport = tr
	defer func() { http.DefaultTransport = orig }()

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"projects", "get", info.PropertySid, "-o", "json"}, strings.NewReader(""), &out, &errOut,
		envOf(map[string]string{"TELCO_ACCOUNT_SID": info.AccountSid, "TELCO_TOKEN": info.Token,
			"TELCO_BASE_URL": "http://telco-mock:" + u.Port(), "TELCO_ALLOW_INSECURE_HTTP": "1"}))
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), info.PropertySid)
	assert.Equal(t, []string{"telco-mock:" + u.Port()}, dialed)
}

// A service container takes an environment, not arguments: the mock reads
// its credentials from TELCO_MOCK_*, never from the real TELCO_ACCOUNT_SID
// and TELCO_TOKEN.
func TestMockCredentialsFromTheEnvironment(t *testing.T) {
	t.Parallel()
	serve := func(env map[string]string, args ...string) (mockInfo, string, int) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out, errOut syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, append([]string{"mock", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), &out, &errOut, envOf(env))
		}()
		var info mockInfo
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			select {
			case code := <-done:
				return info, errOut.String(), code
			default:
			}
			if line, _, found := strings.Cut(out.String(), "\n"); found && json.Unmarshal([]byte(line), &info) == nil {
				cancel()
				return info, errOut.String(), <-done
			}
		}
		t.Fatalf("mock neither printed nor stopped: %s", errOut.String())
		return info, "", 0
	}

	info, errOut, code := serve(map[string]string{"TELCO_MOCK_ACCOUNT_SID": "ACENVENVENVENVENVENVENVENVENVENV", "TELCO_MOCK_TOKEN": "env-token"})
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "ACENVENVENVENVENVENVENVENVENVENV", info.AccountSid)
	assert.Equal(t, "env-token", info.Token)

	info, errOut, code = serve(map[string]string{"TELCO_MOCK_ACCOUNT_SID": "ACENVENVENVENVENVENVENVENVENVENV", "TELCO_MOCK_TOKEN": "env-token"},
		"--account-sid", "ACFLAGFLAGFLAGFLAGFLAGFLAGFLAGFL", "--token", "flag-token")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "flag-token", info.Token, "flags win")

	info, errOut, code = serve(map[string]string{"TELCO_ACCOUNT_SID": "ACREALREALREALREALREALREALREALRE", "TELCO_TOKEN": "real-token"})
	require.Equal(t, 0, code, errOut)
	assert.NotEqual(t, "real-token", info.Token, "a real account's token is never the fake's")
	assert.NotEqual(t, "ACREALREALREALREALREALREALREALRE", info.AccountSid)

	_, errOut, code = serve(map[string]string{"TELCO_MOCK_TOKEN": "only"})
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "both")
}

// --ca-p12 writes the CA as a PKCS#12 trust store without a password:
// decoded back, it holds exactly the CA --ca-file holds, and a client that
// trusts only it reaches the mock. (.ci/mock-curl also has keytool and a
// JVM read it, where a JDK is installed.)
func TestMockTLS_CAP12TrustStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	caFile, caP12 := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca.p12")
	info, _ := startMock(t, "--tls", "--ca-file", caFile, "--ca-p12", caP12, "--tls-host", "api.fonedynamics.com")
	assert.Equal(t, caP12, info.CAP12)

	der, err := os.ReadFile(caP12)
	require.NoError(t, err)
	certs, err := pkcs12.DecodeTrustStore(der, "")
	require.NoError(t, err, "readable with the empty password")
	require.Len(t, certs, 1)
	assert.True(t, certs[0].IsCA)
	caPEM, err := os.ReadFile(caFile)
	require.NoError(t, err)
	block, _ := pem.Decode(caPEM)
	require.NotNil(t, block)
	assert.Equal(t, block.Bytes, certs[0].Raw, "the same CA as --ca-file")
	fi, err := os.Stat(caP12)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "public, like the PEM")

	// Trusting only the store's certificate, a client reaches the mock by
	// the service's own host name, which --tls-host put in the certificate.
	roots := x509.NewCertPool()
	roots.AddCert(certs[0])
	u, err := url.Parse(info.URL)
	require.NoError(t, err)
	dialer := &net.Dialer{}
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, u.Host)
		},
	}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("https://api.fonedynamics.com:" + u.Port() + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// --ca-p12 alone is enough for --tls.
	info, _ = startMock(t, "--tls", "--ca-p12", filepath.Join(dir, "only.p12"))
	assert.Empty(t, info.CAFile)
	assert.FileExists(t, filepath.Join(dir, "only.p12"))
}

// Issue 36: the README's recipe, as a shell runs it: start the mock with
// --env and --info-file in the background, wait for the info file, source
// the export lines, change directory, and call the mock over HTTPS. A
// relative --ca-file (SSL_CERT_FILE=ca.pem) broke at the cd; the paths
// --env exports and the info file holds are absolute.
func TestMockEnvRecipeSurvivesACd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `set -e
rm -f mock.json
"$TELCO" mock --addr 127.0.0.1:0 --tls --ca-file ca.pem --ca-p12 ca.p12 --info-file mock.json --env > mock.env 2> mock.err &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
n=0
until [ -s mock.json ]; do
  n=$((n+1)); [ $n -lt 300 ] || { echo "no info file" >&2; cat mock.err >&2; exit 1; }
  sleep 0.05
done
. ./mock.env
cp mock.json info.json # the mock removes its own when it stops
mkdir -p elsewhere && cd elsewhere
echo "SSL_CERT_FILE=$SSL_CERT_FILE"
"$TELCO" projects get "$TELCO_PROPERTY_SID" -o json
`
	sh := exec.Command("/bin/sh", "-c", script)
	sh.Dir = dir
	sh.Env = append(os.Environ(), "TELCO="+telcoBinary(t), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	out, err := sh.CombinedOutput()
	require.NoError(t, err, "%s", out)
	want, err := filepath.EvalSymlinks(filepath.Join(dir, "ca.pem"))
	require.NoError(t, err)
	line, _, _ := strings.Cut(strings.SplitN(string(out), "SSL_CERT_FILE=", 2)[1], "\n")
	require.True(t, filepath.IsAbs(line), "SSL_CERT_FILE=%s is absolute", line)
	got, err := filepath.EvalSymlinks(line)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Contains(t, string(out), `"PropertySid"`, "the call after the cd reached the mock over HTTPS")
	var info mockInfo
	b, err := os.ReadFile(filepath.Join(dir, "info.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &info))
	assert.True(t, filepath.IsAbs(info.CAFile), "ca_file %s", info.CAFile)
	assert.True(t, filepath.IsAbs(info.CAP12), "ca_p12 %s", info.CAP12)
}
