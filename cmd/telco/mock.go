package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// Its first keys are the first account's, as before there were several.
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
	// AdminURL is the base of the admin API (telcotest.WithAdmin), which
	// does over HTTP, with the first account's credentials, what
	// telcotest's hooks do in Go: faults, inspection, reset, the clock.
	AdminURL string `json:"admin_url"`
	// Accounts are every account, the first one (the keys above) first.
	Accounts []mockAccount `json:"accounts"`
}

// mockAccount is one account of the mock in its info line.
type mockAccount struct {
	AccountSid string `json:"account_sid"`
	Token      string `json:"token"`
	// PropertySid is the account's first project, PropertySids all of
	// them (--projects), that one first.
	PropertySid  string   `json:"property_sid"`
	PropertySids []string `json:"property_sids"`
}

// maxMockAccounts bounds --accounts and --projects: a mock is for tests,
// and a typo of 1000 would otherwise print a very long line.
const maxMockAccounts = 100

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
	var keepInfo, env bool
	var ci mockCI
	var more mockMore
	c := &cobra.Command{
		Use:         "mock",
		Annotations: noOps("serves the fake service; calls none"),
		Short:       "Serve the in-memory fake service until interrupted",
		Long: `mock serves telcotest, the SDK's in-memory fake of the whole service, until
interrupted (SIGINT, SIGTERM or SIGHUP: it then exits 0), and prints one JSON
line with its url, account_sid, token, property_sid (a project enabled for
SMS), number (a number of that project, in a seeded number block, with three
tracked calls), flow (the ConfigID of a flow of that project), admin_url and
accounts (every account with its account_sid, token, property_sid and
property_sids, the first account first), so that any client can be pointed at
it. --info-file PATH also writes that line to PATH, atomically, once the fake
is ready (wait for the file rather than for a time: it comes after everything
printed), and removes it when the mock stops, unless --keep-info-file. --env
prints export lines for a shell instead of the JSON line (TELCO_BASE_URL,
TELCO_ACCOUNT_SID, TELCO_TOKEN, TELCO_PROPERTY_SID; TELCO_ALLOW_INSECURE_HTTP=1
for plain http to a host that is not loopback; SSL_CERT_FILE, an absolute
path, with --tls --ca-file).

  rm -f mock.json
  telco mock --addr 127.0.0.1:8080 --info-file mock.json --env > mock.env &
  until [ -s mock.json ]; do sleep 0.1; done
  . ./mock.env

or, without --env:

  telco mock --addr 127.0.0.1:8080 --info-file mock.json &
  until [ -s mock.json ]; do sleep 0.1; done
  export TELCO_BASE_URL=$(jq -r .url mock.json) TELCO_ACCOUNT_SID=$(jq -r .account_sid mock.json) \
    TELCO_TOKEN=$(jq -r .token mock.json) TELCO_PROPERTY_SID=$(jq -r .property_sid mock.json)

--account-sid and --token set the credentials the fake accepts (default:
TELCO_MOCK_ACCOUNT_SID and TELCO_MOCK_TOKEN, for a container whose
arguments cannot be set, else generated); TELCO_ACCOUNT_SID and TELCO_TOKEN
are not read here, so that a real account's credentials are never reused.
The token is printed because it is the fake's. --accounts N serves N
accounts in all, --account SID:TOKEN adds one with fixed credentials
(repeatable), --projects N gives each account N projects: an account that
reaches another's resources is answered 403 FORBIDDEN.
Bound to all interfaces (--addr 0.0.0.0:8080), it prints a loopback URL the
CLI accepts, and warns: anyone who can reach the port can use the fake.

The admin API, for test suites in any language, lives under /__telcotest/
(HTTP Basic with the first account's SID and token; GET /__telcotest/ lists
its endpoints). It arms faults for the next requests that match, lists the
messages the fake holds and the requests that reached it, makes it receive an
SMS, fails messages to a number, moves a porting request on, moves the fake's
clock ahead (it follows real time until then), and resets the fake to how it
started (POST /__telcotest/reset): the seeded accounts, projects, number,
block, flow and calls, under the SIDs printed; no messages, requests or
faults. --fault arms a fault at start-up with the admin API's keys
(repeatable):

  curl -u "$SID:$TOKEN" -d '{"kind":"status","status":503,"retry_after":2,"op":"Messages.Send"}' \
    "$URL/__telcotest/faults"
  telco mock --fault 'op=Messages.Send,kind=status,status=503,retry_after=2,count=3'

Kinds: status (status 400-599, default 500; retry_after; body service, html
or empty), drop-before-read, drop-after-read, truncate-body, latency
(delay_ms), none (with visible_after_ms); match with op (GET
/__telcotest/ops lists them), method and path; count (default 1).
cmd/telco/README.md, "Using the mock from other languages", has the rest.

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
			extra, err := more.check(sid)
			if err != nil {
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
			opts := append([]telcotest.ServerOption{telcotest.WithAddr(addr), telcotest.WithAdmin()}, ciOpts...)
			if sid != "" {
				opts = append(opts, telcotest.WithCredentials(sid, token))
			}
			for _, acct := range extra {
				opts = append(opts, telcotest.WithAccount(acct[0], acct[1]))
			}
			srv := telcotest.NewServer(opts...)
			defer srv.Close()
			accounts := more.seedAccounts(srv, extra)
			srv.AddNumber(srv.PropertySid, mockNumber)
			srv.AddNumberBlock(srv.PropertySid, mockBlock)
			flow := srv.AddFlow(srv.PropertySid, mockFlow)
			for _, c := range mockCalls {
				c.To, c.Endpoint = strings.TrimPrefix(mockNumber, "+"), "61400000000"
				srv.AddCall(srv.PropertySid, c)
			}
			// What POST /__telcotest/reset puts back: everything seeded
			// above, under the SIDs and tokens printed below.
			srv.Checkpoint()
			for _, f := range more.faults {
				srv.Inject(f.count, f.fault)
			}
			if err := ci.writeCA(); err != nil {
				return err
			}
			url, all := loopbackURL(srv.URL)
			if all {
				fmt.Fprintf(a.stderr, "telco: mock: warning: listening on every interface (%s): anyone who can reach this port can use the fake with the printed token; the URL printed is the loopback one\n", addr)
			}
			info := mockInfo{URL: url, AccountSid: srv.AccountSid, Token: srv.Token,
				PropertySid: srv.PropertySid, Number: mockNumber, Flow: flow.ConfigID, CAFile: ci.caFile, CAP12: ci.caP12,
				AdminURL: url + telcotest.AdminPath, Accounts: accounts}
			line, _ := json.Marshal(info)
			line = append(line, '\n')
			// Standard output first: once the info file is there, so is
			// what was printed, for a script that waits for the file.
			if env {
				_, _ = io.WriteString(a.stdout, mockEnv(info))
			} else {
				_, _ = a.stdout.Write(line)
			}
			if infoFile != "" {
				if err := writeFileAtomic(infoFile, line); err != nil {
					return fmt.Errorf("mock: --info-file: %w", err)
				}
				if !keepInfo {
					defer os.Remove(infoFile) // a stale file would point at a fake that is gone
				}
			}
			<-cmd.Context().Done()
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port)")
	fs.StringVar(&infoFile, "info-file", "", "also write the JSON line to this file, atomically, once ready")
	fs.BoolVar(&keepInfo, "keep-info-file", false, "leave --info-file in place when the mock stops")
	fs.BoolVar(&env, "env", false, "print export lines for a shell instead of the JSON line")
	more.flags(c)
	ci.flags(c)
	// --account-sid and --token name the credentials the fake accepts here,
	// with defaults of their own (TELCO_MOCK_*, never the client's
	// TELCO_ACCOUNT_SID and TELCO_TOKEN, so that a real account's
	// credentials are not reused): local flags that shadow the global ones,
	// so that the help says what the mock reads. --base-url and --profile,
	// which only clients take, are shadowed hidden and refused.
	fs.StringVar(&a.accountSid, "account-sid", "", "account SID the fake accepts (default $TELCO_MOCK_ACCOUNT_SID, else generated)")
	fs.StringVar(&a.token, "token", "", "token the fake accepts (default $TELCO_MOCK_TOKEN, else generated)")
	var baseURL string
	fs.StringVar(&baseURL, "base-url", "", "not taken: the mock prints its own URL")
	_ = fs.MarkHidden("base-url")
	var profile string
	fs.StringVar(&profile, "profile", "", "not taken: the mock's credentials are its flags'")
	_ = fs.MarkHidden("profile")
	c.PreRunE = func(cmd *cobra.Command, _ []string) error {
		if cmd.Flags().Changed("base-url") {
			return usagef("mock: --base-url is for the commands that call a service; the mock serves one and prints its URL")
		}
		if cmd.Flags().Changed("profile") {
			return usagef("mock: --profile is for the commands that call a service; the mock takes --account-sid and --token")
		}
		sid, token = a.mockCredentials()
		return nil
	}
	return c
}

// mockMore holds the flags of `telco mock` that go beyond one account and
// the happy path: more accounts and projects, and faults armed at start-up.
type mockMore struct {
	accounts, projects int
	fixed              []string // --account SID:TOKEN
	faultSpecs         []string // --fault
	faults             []mockFault
}

// mockFault is a --fault, read.
type mockFault struct {
	fault telcotest.Fault
	count int
}

func (m *mockMore) flags(c *cobra.Command) {
	fs := c.Flags()
	fs.IntVar(&m.accounts, "accounts", 1, "serve at least this many accounts: the first, each --account, then generated ones")
	fs.StringArrayVar(&m.fixed, "account", nil, "a further account with these credentials, as SID:TOKEN (repeatable)")
	fs.IntVar(&m.projects, "projects", 1, "projects per account, each enabled for SMS")
	// StringArray, not StringSlice: a fault's own commas must not split it.
	fs.StringArrayVar(&m.faultSpecs, "fault", nil,
		"arm a fault at start-up, as the admin API's keys: 'op=Messages.Send,kind=status,status=503,retry_after=2,count=3' (repeatable)")
}

// check reads the flags, refusing what cannot be served (exit 2), and
// returns the --account credentials as SID and token pairs. first is the
// first account's SID, when the flags or the environment fix it.
func (m *mockMore) check(first string) ([][2]string, error) {
	if m.accounts < 1 || m.accounts > maxMockAccounts {
		return nil, usagef("mock: --accounts must be 1 to %d (got %d)", maxMockAccounts, m.accounts)
	}
	if m.projects < 1 || m.projects > maxMockAccounts {
		return nil, usagef("mock: --projects must be 1 to %d (got %d)", maxMockAccounts, m.projects)
	}
	if len(m.fixed)+1 > maxMockAccounts {
		return nil, usagef("mock: at most %d accounts", maxMockAccounts)
	}
	seen := map[string]bool{first: first != ""}
	var out [][2]string
	for _, f := range m.fixed {
		sid, token, ok := strings.Cut(f, ":")
		sid, token = strings.TrimSpace(sid), strings.TrimSpace(token)
		if !ok || sid == "" || token == "" {
			return nil, usagef("mock: --account takes SID:TOKEN (got %q)", redactAccount(f))
		}
		if seen[sid] {
			return nil, usagef("mock: account %s is given twice", sid)
		}
		seen[sid] = true
		out = append(out, [2]string{sid, token})
	}
	for _, spec := range m.faultSpecs {
		f, n, err := telcotest.ParseFault(spec)
		if err != nil {
			if reason := errors.Unwrap(err); reason != nil {
				err = reason
			}
			return nil, usagef("mock: --fault %q: %v", spec, err)
		}
		m.faults = append(m.faults, mockFault{f, n})
	}
	return out, nil
}

// redactAccount is an --account value as an error may quote it: the SID,
// never what might be a token.
func redactAccount(v string) string {
	if sid, _, ok := strings.Cut(v, ":"); ok {
		return sid + ":..."
	}
	if len(v) > 8 {
		return v[:8] + "..."
	}
	return v
}

// seedAccounts adds the generated accounts --accounts asks for beyond
// fixed, and each account's further projects, and returns every account.
func (m *mockMore) seedAccounts(srv *telcotest.Server, fixed [][2]string) []mockAccount {
	sids := []string{srv.AccountSid}
	for _, f := range fixed {
		sids = append(sids, f[0])
	}
	for len(sids) < m.accounts {
		sids = append(sids, srv.AddAccount("", "").AccountSid)
	}
	out := make([]mockAccount, 0, len(sids))
	for _, sid := range sids {
		acct, _ := srv.Account(sid)
		ma := mockAccount{AccountSid: sid, Token: acct.Token, PropertySid: acct.PropertySid, PropertySids: []string{acct.PropertySid}}
		for i := 2; i <= m.projects; i++ {
			p, _ := srv.AddProperty(sid, "Project "+strconv.Itoa(i))
			ma.PropertySids = append(ma.PropertySids, p.PropertySid)
		}
		out = append(out, ma)
	}
	return out
}

// mockEnv is --env's output: export lines for a POSIX shell, values
// quoted (shellQuote, main.go), for the first account; the others as
// comments.
func mockEnv(info mockInfo) string {
	var b strings.Builder
	export := func(name, value string) { fmt.Fprintf(&b, "export %s=%s\n", name, shellQuote(value)) }
	export("TELCO_BASE_URL", info.URL)
	export("TELCO_ACCOUNT_SID", info.AccountSid)
	export("TELCO_TOKEN", info.Token)
	export("TELCO_PROPERTY_SID", info.PropertySid)
	if u, err := url.Parse(info.URL); err == nil && u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		export("TELCO_ALLOW_INSECURE_HTTP", "1")
	}
	if info.CAFile != "" {
		// The SDK, curl and most tools built on OpenSSL trust the mock's CA
		// through it; it replaces the system's roots in this shell.
		export("SSL_CERT_FILE", info.CAFile)
	}
	for i, acct := range info.Accounts {
		if i == 0 {
			continue
		}
		fmt.Fprintf(&b, "# account %d: TELCO_ACCOUNT_SID=%s TELCO_TOKEN=%s TELCO_PROPERTY_SID=%s\n", i+1,
			shellQuote(acct.AccountSid), shellQuote(acct.Token), shellQuote(acct.PropertySid))
	}
	return b.String()
}

// isLoopbackHost reports whether host is localhost or a loopback address,
// which the SDK reaches over plain http without an opt-in.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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
