package telcotest_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// The health check needs no credentials, counts as no request and uses up
// no injected fault.
func TestHealthz_AnswersWithoutCredentials(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.FailNext(1, http.StatusInternalServerError)

	resp, err := http.Get(srv.URL + telcotest.HealthPath)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `{"status":"ok"}`, string(body))
	assert.Zero(t, srv.Requests(), "a probe is not a request to the service")

	resp, err = http.Post(srv.URL+telcotest.HealthPath, "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "only GET and HEAD are the health check")

	// The fault is still there for the first real request.
	_, err = srv.Client(telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0})).Properties.Get(testCtx(t), srv.PropertySid)
	var apiErr *telco.APIError
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusInternalServerError, apiErr.StatusCode)
}

// WithTLS(nil) serves HTTPS with httptest's certificate; Client trusts it,
// a client that does not is refused.
func TestWithTLS_BuiltInCertificate(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithTLS(nil))
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	assert.Equal(t, "https", u.Scheme)

	p, err := srv.Client().Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, srv.PropertySid, p.PropertySid)

	plain := &http.Client{Transport: &http.Transport{}}
	defer plain.CloseIdleConnections()
	_, err = plain.Get(srv.URL + telcotest.HealthPath)
	require.Error(t, err, "a client that does not trust the certificate is refused")
	assert.Contains(t, err.Error(), "certificate")
}

// WithTLS with a given certificate serves it, and Client trusts it.
func TestWithTLS_GivenCertificate(t *testing.T) {
	t.Parallel()
	cert := selfSigned(t, "127.0.0.1")
	srv := newServer(t, telcotest.WithTLS(&cert))
	p, err := srv.Client().Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, srv.PropertySid, p.PropertySid)

	conn, err := tls.Dial("tcp", strings.TrimPrefix(srv.URL, "https://"), &tls.Config{InsecureSkipVerify: true}) // only reads the certificate served
	require.NoError(t, err)
	defer conn.Close()
	assert.Equal(t, cert.Certificate[0], conn.ConnectionState().PeerCertificates[0].Raw, "the given certificate is served")
}

// selfSigned returns a self-signed certificate for ip.
func selfSigned(t *testing.T, ip string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "telcotest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP(ip)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// WithRequestLog writes one line per request, with no credentials or
// passwords, whatever the request carried.
func TestWithRequestLog_OneLinePerRequestNoSecrets(t *testing.T) {
	t.Parallel()
	var log lockedBuffer
	srv := newServer(t, telcotest.WithRequestLog(&log),
		telcotest.WithCredentials("ACLOGLOGLOGLOGLOGLOGLOGLOGLOGLOG", "tok-Secret-4242"))
	c := srv.Client(telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}))
	ctx := testCtx(t)

	_, err := c.Properties.Get(ctx, srv.PropertySid)
	require.NoError(t, err)
	_, err = c.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("ops@example.com"))
	require.NoError(t, err)
	_, err = c.Properties.Get(ctx, "PRNOSUCHPROJECTNOSUCHPROJECTNOSU")
	require.Error(t, err)
	resp, err := http.Get(srv.URL + telcotest.HealthPath)
	require.NoError(t, err)
	resp.Body.Close()
	wrong, err := telco.NewClient(srv.AccountSid, "tok-Wrong-1", telco.WithBaseURL(srv.URL),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	_, err = wrong.Properties.Get(ctx, srv.PropertySid)
	require.Error(t, err)

	out := log.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 5, "one line per request:\n%s", out)
	line := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z [A-Z]+ /\S* (\d{3}|-) \S+( [A-Za-z]+\.[A-Za-z]+)?$`)
	for _, l := range lines {
		assert.Regexp(t, line, l)
	}
	assert.Contains(t, lines[0], "GET /v2/Properties/"+srv.PropertySid+" 200 ")
	assert.True(t, strings.HasSuffix(lines[0], " Properties.Get"), lines[0])
	assert.Contains(t, lines[1], " 200 ")
	assert.True(t, strings.HasSuffix(lines[1], " OnlineLogins.Create"), lines[1])
	assert.Contains(t, lines[3], "GET /healthz 200 ")
	assert.Contains(t, lines[4], " 401 ")
	for _, secret := range []string{"tok-Secret-4242", "tok-Wrong-1", loginPassword, "Basic "} {
		assert.NotContains(t, out, secret, "the log must not carry a secret")
	}
}

// lockedBuffer is an io.Writer the server writes from its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
