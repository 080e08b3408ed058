package main

// `telco mock --tls`: a certificate authority made for one run, and a
// server certificate it signs for the names the mock is reached by.
//
// Clients trust the mock by trusting the CA, whose certificate --ca-file
// writes (point SSL_CERT_FILE at it, or add it to a pool), and --ca-p12
// writes as a PKCS#12 trust store for clients that do not read PEM: a JVM
// takes one as it is (-Djavax.net.ssl.trustStore=FILE). A CA rather
// than a self-signed server certificate: what clients are configured with
// (SSL_CERT_FILE, a CA bundle) is a list of CAs, and tools differ in
// whether they accept a certificate that is not a CA there. The CA's key
// lives only in memory and is dropped once the server certificate is
// signed, so nothing can sign with it afterwards.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco/telcotest"
	pkcs12 "software.sslmate.com/src/go-pkcs12"
)

// mockValidity is how long the certificates are valid: a mock runs for a
// CI job, not for months, and an hour of back-dating absorbs clock skew
// between containers.
const mockValidity = 7 * 24 * time.Hour

// mockTLSNames are the names and addresses the server certificate covers:
// loopback, this machine's host name, and extra (--tls-host, the --addr IP).
func mockTLSNames(extra []string) []string {
	names := []string{"localhost", "127.0.0.1", "::1"}
	if h, err := os.Hostname(); err == nil && h != "" {
		names = append(names, h)
	}
	for _, n := range extra {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// newMockCA makes a CA and a server certificate it signs for names. It
// returns the server certificate (its chain: leaf, then CA) and the CA
// certificate in PEM.
func newMockCA(names []string, now time.Time) (tls.Certificate, []byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	ca := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "telco mock CA " + now.UTC().Format("2006-01-02T15:04:05Z"), Organization: []string{"telco mock"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(mockValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	ca, err = x509.ParseCertificate(caDER)
	if err != nil {
		return tls.Certificate{}, nil, err
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: names[0], Organization: []string{"telco mock"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(mockValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, n)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	cert := tls.Certificate{Certificate: [][]byte{leafDER, caDER}, PrivateKey: key}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), nil
}

// serial is a random certificate serial number, as RFC 5280 asks: two
// runs' certificates must not share one.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// writeCAFile writes the CA certificate (data, in the form flag names) to
// path, readable by everyone (it is public) and replaced atomically, so
// that a client polling for the file never reads half of it.
func writeCAFile(flag, path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("mock: --%s: %w", flag, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("mock: --%s: %w", flag, err)
	}
	return nil
}

// mockP12Alias is the alias of the CA in the --ca-p12 trust store, as
// keytool -list shows it.
const mockP12Alias = "telco-mock-ca"

// trustStoreP12 is the CA certificate as a PKCS#12 trust store without a
// password: no MAC and no encryption, which a JVM reads with no
// javax.net.ssl.trustStorePassword (and ignores one given). The
// certificate is public, so a password would protect nothing; it would
// only be one more setting to get right. The standard library writes no
// PKCS#12, and golang.org/x/crypto/pkcs12 only decodes.
func trustStoreP12(caPEM []byte) ([]byte, error) {
	block, _ := pem.Decode(caPEM)
	if block == nil {
		return nil, fmt.Errorf("no PEM certificate")
	}
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, err
	}
	return pkcs12.Passwordless.EncodeTrustStoreEntries([]pkcs12.TrustStoreEntry{{Cert: ca, FriendlyName: mockP12Alias}}, "")
}

// mockCI holds the flags of `telco mock` for running it in CI.
type mockCI struct {
	tls         bool
	caFile      string
	caP12       string
	tlsHosts    []string
	logRequests bool
	caPEM       []byte // made by serverOptions, written by writeCA
}

func (m *mockCI) flags(c *cobra.Command) {
	fs := c.Flags()
	fs.BoolVar(&m.tls, "tls", false, "serve HTTPS with a certificate from a CA made for this run (needs --ca-file or --ca-p12)")
	fs.StringVar(&m.caFile, "ca-file", "", "with --tls: write the CA certificate here, for SSL_CERT_FILE")
	fs.StringVar(&m.caP12, "ca-p12", "", "with --tls: write the CA certificate here as a PKCS#12 trust store without a password, for a JVM")
	fs.StringSliceVar(&m.tlsHosts, "tls-host", nil, "with --tls: a further host name or IP the certificate covers (repeatable)")
	fs.BoolVar(&m.logRequests, "log-requests", false, "write one line per request to standard error (no headers or bodies)")
}

// serverOptions checks the flags and returns the fake's options for them.
func (m *mockCI) serverOptions(a *app, addr string) ([]telcotest.ServerOption, error) {
	var opts []telcotest.ServerOption
	if m.logRequests {
		opts = append(opts, telcotest.WithRequestLog(a.stderr))
	}
	if !m.tls {
		if m.caFile != "" || m.caP12 != "" || len(m.tlsHosts) > 0 {
			return nil, usagef("mock: --ca-file, --ca-p12 and --tls-host need --tls")
		}
		return opts, nil
	}
	if m.caFile == "" && m.caP12 == "" {
		return nil, usagef("mock: --tls needs --ca-file PATH (or --ca-p12 PATH), where clients will find the CA certificate to trust")
	}
	// Absolute, as --env exports them and the info file holds them: a
	// shell that sources the export lines and then changes directory
	// must still find the CA.
	for _, p := range []*string{&m.caFile, &m.caP12} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, usagef("mock: %s: %v", *p, err)
		}
		*p = abs
	}
	hosts := m.tlsHosts
	if h, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(h); ip != nil && !ip.IsUnspecified() {
			hosts = append(hosts, h) // the address the mock's URL names
		}
	}
	cert, caPEM, err := newMockCA(mockTLSNames(hosts), time.Now())
	if err != nil {
		return nil, fmt.Errorf("mock: making the TLS certificate: %w", err)
	}
	m.caPEM = caPEM
	return append(opts, telcotest.WithTLS(&cert)), nil
}

// writeCA writes the CA certificate, when --tls made one, to --ca-file
// and --ca-p12.
func (m *mockCI) writeCA() error {
	if m.caPEM == nil {
		return nil
	}
	if m.caFile != "" {
		if err := writeCAFile("ca-file", m.caFile, m.caPEM); err != nil {
			return err
		}
	}
	if m.caP12 != "" {
		p12, err := trustStoreP12(m.caPEM)
		if err != nil {
			return fmt.Errorf("mock: --ca-p12: %w", err)
		}
		return writeCAFile("ca-p12", m.caP12, p12)
	}
	return nil
}

// allowInsecureHTTP reads TELCO_ALLOW_INSECURE_HTTP: set to 1 (or true),
// the client may use plain http to a host that is not loopback, such as
// `telco mock` in another container. Only the environment sets it, never
// a flag, so that it is a decision of the CI job, not of a command line
// copied from it.
func (a *app) allowInsecureHTTP() (bool, error) {
	v := strings.TrimSpace(a.env("TELCO_ALLOW_INSECURE_HTTP"))
	if v == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, usagef("TELCO_ALLOW_INSECURE_HTTP must be 1 or 0, not %q", v)
	}
	return on, nil
}

// insecureHint adds to NewClient's refusal of plain http the CLI's way
// past it, which is not the SDK option the error names.
func insecureHint(err error) error {
	if strings.Contains(err.Error(), "refusing plain http") {
		return fmt.Errorf("%w\n(for a mock reached by host name, such as telco mock in a container, set TELCO_ALLOW_INSECURE_HTTP=1)", err)
	}
	return err
}

// mockCredentials are the credentials `telco mock` accepts: the flags, else
// TELCO_MOCK_ACCOUNT_SID and TELCO_MOCK_TOKEN. A CI service container
// (GitHub Actions' services:, say) takes an environment but no arguments,
// and the job must know the credentials before the mock prints them. The
// names differ from TELCO_ACCOUNT_SID and TELCO_TOKEN so that a real
// account's credentials are never reused by the fake.
func (a *app) mockCredentials() (sid, token string) {
	if a.accountSid != "" || a.token != "" {
		return a.accountSid, a.token
	}
	return a.env("TELCO_MOCK_ACCOUNT_SID"), a.env("TELCO_MOCK_TOKEN")
}
