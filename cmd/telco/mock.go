package main

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"

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
	// CAFile is where --tls wrote the CA certificate clients must trust.
	CAFile string `json:"ca_file,omitempty"`
}

// mockNumber is the number `telco mock` gives its project, in the
// seeded number block mockBlock: without them the number and number-block
// commands would have nothing to work on, since only Go code can add them.
const mockNumber = "+61299990000"

var mockBlock = telco.NumberBlock{
	Name: "Mock block", FriendlyName: "Sydney test numbers", NumberPattern: "+6129999000X",
	BlockSize: 10, Active: true, SupportsSms: true, SupportsVoice: true, RoutingMethod: "endpoint",
}

// mockCmd is "telco mock": the fake service (telcotest) on a port.
func (a *app) mockCmd() *cobra.Command {
	var addr, sid, token string
	var ci mockCI
	c := &cobra.Command{
		Use:   "mock",
		Short: "Serve the in-memory fake service until interrupted",
		Long: `mock serves telcotest, the SDK's in-memory fake of the whole service, until
interrupted (SIGINT or SIGTERM), and prints one JSON line with its url,
account_sid, token, property_sid (a project enabled for SMS) and number (a
number of that project, in a seeded number block), so that any client can be
pointed at it:

  telco mock --addr 127.0.0.1:8080 > mock.json &
  sleep 1
  export TELCO_BASE_URL=$(jq -r .url mock.json) TELCO_ACCOUNT_SID=$(jq -r .account_sid mock.json) \
    TELCO_TOKEN=$(jq -r .token mock.json) TELCO_PROPERTY_SID=$(jq -r .property_sid mock.json)

--account-sid and --token set the credentials the fake accepts (default:
generated); the environment is not read here, so that a real account's
credentials are never reused. The token is printed because it is the fake's.

In CI and containers (the image runs 'telco mock --addr 0.0.0.0:8080'):
GET /healthz answers 200 without credentials; --log-requests writes one line
per request to standard error (method, path, status, time; never a header or
a body). A client reaches the mock by host name over plain http only with
TELCO_ALLOW_INSECURE_HTTP=1 (the SDK: telco.WithInsecureHTTP()); or serve
HTTPS instead:

  telco mock --addr 0.0.0.0:8443 --tls --tls-host telco-mock --ca-file /certs/ca.pem
  export SSL_CERT_FILE=/certs/ca.pem TELCO_BASE_URL=https://telco-mock:8443

--tls makes a CA for this run, writes its certificate to --ca-file once the
mock listens, and serves a certificate it signs for localhost, 127.0.0.1,
::1, this host's name and each --tls-host.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if (sid == "") != (token == "") {
				return usagef("mock: give both --account-sid and --token, or neither")
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
			if err := ci.writeCA(); err != nil {
				return err
			}
			line, _ := json.Marshal(mockInfo{URL: srv.URL, AccountSid: srv.AccountSid, Token: srv.Token,
				PropertySid: srv.PropertySid, Number: mockNumber, CAFile: ci.caFile})
			fmt.Fprintf(a.stdout, "%s\n", line)
			<-cmd.Context().Done()
			return nil
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port)")
	ci.flags(c)
	// The global --account-sid and --token name the credentials the fake
	// accepts here; they are read from the flags only, never the
	// environment, so that a real account's credentials are not reused.
	c.PreRunE = func(cmd *cobra.Command, _ []string) error {
		sid, token = a.accountSid, a.token
		return nil
	}
	return c
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
