package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// mockInfo is the one JSON line `telco mock` prints, for scripts to read.
type mockInfo struct {
	URL         string `json:"url"`
	AccountSid  string `json:"account_sid"`
	Token       string `json:"token"`
	PropertySid string `json:"property_sid"`
	// Number is the seeded project's number, for `numbers configure`
	// and the address-in-use rule; a number block holding it is seeded too.
	Number string `json:"number"`
	// Flow is the ConfigID of a seeded flow, for `numbers configure
	// --routing Flow --flow ...`; the project has the fake's two default
	// flows besides.
	Flow string `json:"flow"`
	// CAFile is where --tls wrote the CA certificate clients must trust.
	CAFile string `json:"ca_file,omitempty"`
	// CAP12 is where --ca-p12 wrote it as a PKCS#12 trust store.
	CAP12 string `json:"ca_p12,omitempty"`
}

// mockNumber is the number `telco mock` gives its project, in the
// seeded number block mockBlock: without them the number and number-block
// commands would have nothing to work on, since only Go code can add them.
const mockNumber = "+61299990000"

// mockFlow is the flow `telco mock` adds to its project.
var mockFlow = telco.Flow{Name: "Reception IVR", Type: "IVR"}

// mockCalls are the calls `telco mock` seeds, to the seeded number, so
// that `calls list` shows something; new ones arrive only from Go code
// (telcotest.Server.AddCall).
var mockCalls = []telco.Call{
	{From: "+61412345001", Disposition: telco.CallAnswered, Duration: 184, AttributionSource: "google",
		AttributionMedium: "cpc", AttributionCampaign: "spring-sale", CallerCity: "Sydney", PromptsKeys: "1"},
	{From: "+61412345002", Disposition: telco.CallNoAnswer, AttributionSource: "bing", AttributionMedium: "cpc"},
	{From: "+61412345003", Disposition: telco.CallIVR, Duration: 41, AttributionSource: "direct", PromptsKeys: "2,1"},
}

var mockBlock = telco.NumberBlock{
	Name: "Mock block", FriendlyName: "Sydney test numbers", NumberPattern: "+6129999000X",
	BlockSize: 10, Active: true, SupportsSms: true, SupportsVoice: true, RoutingMethod: "endpoint",
}

// mockCmd is "telco mock": the fake service (telcotest) on a port.
func (a *app) mockCmd() *cobra.Command {
	var addr, sid, token, infoFile string
	var ci mockCI
	c := &cobra.Command{
		Use:   "mock",
		Short: "Serve the in-memory fake service until interrupted",
		Long: `mock serves telcotest, the SDK's in-memory fake of the whole service, until
interrupted (SIGINT, SIGTERM or SIGHUP: it then exits 0), and prints one JSON
line with its url, account_sid, token, property_sid (a project enabled for
SMS), number (a number of that project, in a seeded number block, with three
tracked calls) and flow (the ConfigID of a flow of that project), so that any
client can be pointed at it. --info-file PATH also writes that line to PATH,
atomically, once the fake is ready: wait for the file rather than for a time.

  telco mock --addr 127.0.0.1:8080 --info-file mock.json &
  until [ -s mock.json ]; do sleep 0.1; done
  export TELCO_BASE_URL=$(jq -r .url mock.json) TELCO_ACCOUNT_SID=$(jq -r .account_sid mock.json) \
    TELCO_TOKEN=$(jq -r .token mock.json) TELCO_PROPERTY_SID=$(jq -r .property_sid mock.json)

--account-sid and --token set the credentials the fake accepts (default:
TELCO_MOCK_ACCOUNT_SID and TELCO_MOCK_TOKEN, for a container whose
arguments cannot be set, else generated); TELCO_ACCOUNT_SID and TELCO_TOKEN
are not read here, so that a real account's credentials are never reused.
The token is printed because it is the fake's.
Bound to all interfaces (--addr 0.0.0.0:8080), it prints a loopback URL the
CLI accepts, and warns: anyone who can reach the port can use the fake.

In CI and containers (the image runs 'telco mock --addr 0.0.0.0:8080'):
GET /healthz answers 200 without credentials; --log-requests writes one line
per request to standard error (method, path, status, time; never a header or
a body). A client reaches the mock by host name over plain http only with
TELCO_ALLOW_INSECURE_HTTP=1 (the SDK: telco.WithInsecureHTTP()); or serve
HTTPS instead:

  telco mock --addr 0.0.0.0:8443 --tls --tls-host telco-mock --ca-file /certs/ca.pem
  export SSL_CERT_FILE=/certs/ca.pem TELCO_BASE_URL=https://telco-mock:8443

--tls makes a CA for this run, writes its certificate to --ca-file (PEM)
and --ca-p12 (a PKCS#12 trust store without a password, for a JVM) once
the mock listens, and serves a certificate it signs for localhost,
127.0.0.1, ::1, this host's name and each --tls-host.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if (sid == "") != (token == "") {
				return usagef("mock: give both --account-sid and --token (or TELCO_MOCK_ACCOUNT_SID and TELCO_MOCK_TOKEN), or neither")
			}
			if err := checkListenAddr(addr); err != nil {
				return err
			}
			ciOpts, err := ci.serverOptions(a, addr)
			if err != nil {
				return err
			}
			defer func() {
				if r := recover(); r != nil { // NewServer panics when it cannot listen
					err = fmt.Errorf("mock: %v", r)
				}
			}()
			opts := append([]telcotest.ServerOption{telcotest.WithAddr(addr)}, ciOpts...)
			if sid != "" {
				opts = append(opts, telcotest.WithCredentials(sid, token))
			}
			srv := telcotest.NewServer(opts...)
			defer srv.Close()
			srv.AddNumber(srv.PropertySid, mockNumber)
			srv.AddNumberBlock(srv.PropertySid, mockBlock)
			flow := srv.AddFlow(srv.PropertySid, mockFlow)
			for _, c := range mockCalls {
				c.To, c.Endpoint = strings.TrimPrefix(mockNumber, "+"), "61400000000"
				srv.AddCall(srv.PropertySid, c)
			}
			if err := ci.writeCA(); err != nil {
				return err
			}
			url, all := loopbackURL(srv.URL)
			if all {
				fmt.Fprintf(a.stderr, "telco: mock: warning: listening on every interface (%s): anyone who can reach this port can use the fake with the printed token; the URL printed is the loopback one\n", addr)
			}
			line, _ := json.Marshal(mockInfo{URL: url, AccountSid: srv.AccountSid, Token: srv.Token,
				PropertySid: srv.PropertySid, Number: mockNumber, Flow: flow.ConfigID, CAFile: ci.caFile, CAP12: ci.caP12})
			line = append(line, '\n')
			if infoFile != "" {
				if err := writeFileAtomic(infoFile, line); err != nil {
					return fmt.Errorf("mock: --info-file: %w", err)
				}
				defer os.Remove(infoFile) // a stale file would point at a fake that is gone
			}
			_, _ = a.stdout.Write(line)
			<-cmd.Context().Done()
			return nil
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port)")
	c.Flags().StringVar(&infoFile, "info-file", "", "also write the JSON line to this file, atomically, once ready")
	ci.flags(c)
	// --account-sid and --token name the credentials the fake accepts here,
	// with defaults of their own (TELCO_MOCK_*, never the client's
	// TELCO_ACCOUNT_SID and TELCO_TOKEN, so that a real account's
	// credentials are not reused): local flags that shadow the global ones,
	// so that the help says what the mock reads. --base-url, which only
	// clients take, is shadowed hidden and refused.
	c.Flags().StringVar(&a.accountSid, "account-sid", "", "account SID the fake accepts (default $TELCO_MOCK_ACCOUNT_SID, else generated)")
	c.Flags().StringVar(&a.token, "token", "", "token the fake accepts (default $TELCO_MOCK_TOKEN, else generated)")
	var baseURL string
	c.Flags().StringVar(&baseURL, "base-url", "", "not taken: the mock prints its own URL")
	_ = c.Flags().MarkHidden("base-url")
	c.PreRunE = func(cmd *cobra.Command, _ []string) error {
		if cmd.Flags().Changed("base-url") {
			return usagef("mock: --base-url is for the commands that call a service; the mock serves one and prints its URL")
		}
		sid, token = a.mockCredentials()
		return nil
	}
	return c
}

// loopbackURL turns the URL of a server bound to every interface
// (0.0.0.0 or ::) into its loopback URL, which the SDK accepts over plain
// http; all reports whether it did.
func loopbackURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return raw, false
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsUnspecified() {
		return raw, false
	}
	// Go's listeners on 0.0.0.0 and :: take both families, and report ::.
	u.Host = net.JoinHostPort("127.0.0.1", u.Port())
	return u.String(), true
}

// writeFileAtomic writes data to path so that a reader sees either no
// file or the whole of it: a temporary file in the same directory, synced,
// then renamed.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// checkListenAddr refuses an --addr that is not host:port with a port
// number, a usage error (exit 2); an address that parses but cannot be
// listened on (in use, not local) is left to the listener (exit 1).
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return usagef("mock: --addr must be host:port, e.g. 127.0.0.1:8080 (got %q)", addr)
	}
	return nil
}
