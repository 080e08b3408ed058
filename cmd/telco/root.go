package main

// How the tool is laid out: main.go runs it and turns errors into exit
// statuses; this file holds the root command, its global flags and the
// client they build. Each command group is one file (projects.go, sms.go,
// ...) holding its commands and its table columns, listed in rootCmd's
// AddCommand. They share flags.go (flags and their values), commands.go
// (command shapes: groups, arguments, get and list), call.go (the body:
// client, call, print) and output.go (tables and JSON).

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// app is one invocation of the tool: its streams, environment and global
// flags. Nothing is global, so that tests run commands in process.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	env            func(string) string
	intr           *interrupts    // the signals that reached the tool
	loc            *time.Location // the user's zone, for times given without one
	width          int            // the terminal's width when stdout is one, else 0
	stdinTTY       bool           // standard input is a terminal (a person may answer)
	started        time.Time      // when the tool started: a look-up of what it sent searches from then

	accountSid, token, baseURL string
	profile                    string // --profile: the saved credentials to use
	profileNoted               bool   // the note that TELCO_PROFILE gives way was printed
	credSource                 string // where the client's credentials came from, for a 401
	creds                      resolvedCredentials
	output                     string
	timeout                    time.Duration
	debug                      bool
	utc                        bool // --utc: times are read and shown in UTC

	client *telco.Client
	// clientOpts are added to every client the tool builds: the tests
	// observe the calls a command makes with them.
	clientOpts []telco.Option
}

// outputs are the values of -o.
var outputs = []string{"table", "wide", "json"}

// rootCmd is the whole command tree: the global flags, then one command
// group per file (projects.go, sms.go, ...), each listed in AddCommand.
func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "telco",
		Short: "The telephony service from a terminal: every operation, and a fake service to try them on",
		Long: `telco talks to the telephony management service through the telco-go SDK.
'telco COMMAND --help' describes each command; the reference of every command
is in cmd/telco/docs of the telco-go repository.

Credentials and the base URL are taken from the first of:
  1. the flags: --account-sid and --token, --base-url;
  2. the environment: TELCO_ACCOUNT_SID and TELCO_TOKEN, TELCO_BASE_URL;
  3. a profile saved by 'telco login': --profile NAME, else $TELCO_PROFILE,
     else "default";
  4. none: an error that says how to give them.
Without a base URL the tool calls the public service; point it at 'telco mock'
to try everything locally. A refused login (401) says where its credentials
came from, never what they are.

Times without a zone (2026-11-25, "2026-11-25 09:30") are read in the local
zone, and every time is shown in it, in tables as in JSON (--utc: UTC for
both); offsets from now take days too (+2d, -1d12h).

Output: -o table (fits the terminal), -o wide (never cut), -o json (RFC 3339
times, enumeration names, one array for one page or --all, errors as JSON on
standard error).

Exit status: 0 success, 1 service or network error (not carried out), 2 usage
or validation error, 3 may have taken effect and unresolved (a message that
may have been sent: run the same command again, or look it up), 128+N when
cut short by signal N (129 SIGHUP, 130 SIGINT, 143 SIGTERM).`,
		Version:       versionLine(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          a.noArgs,
		RunE:          a.needSubcommand,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) (err error) {
			if a.output, err = enum("output", a.output, outputs...); err != nil {
				return err
			}
			if a.timeout < 0 {
				return usagef("--timeout must not be negative")
			}
			a.loc = a.userZone()
			return nil
		},
	}
	root.SetVersionTemplate("telco {{.Version}}\n")
	pf := root.PersistentFlags()
	pf.StringVar(&a.accountSid, "account-sid", "", "account SID (default $TELCO_ACCOUNT_SID, else the profile's)")
	pf.StringVar(&a.token, "token", "", "API token (default $TELCO_TOKEN, else the profile's)")
	pf.StringVar(&a.baseURL, "base-url", "", "service base URL (default $TELCO_BASE_URL, else the profile's, else "+telco.DefaultBaseURL+")")
	pf.StringVar(&a.profile, "profile", "", `saved credentials to use, from 'telco login' (default $TELCO_PROFILE, else "default")`)
	pf.StringVarP(&a.output, "output", "o", "table", "output format: table, wide or json")
	pf.DurationVar(&a.timeout, "timeout", 0, "bound on each request to the service, e.g. 30s (0: none beyond the SDK's own)")
	pf.BoolVar(&a.debug, "debug", false, "log one line per request attempt on standard error (never a secret)")
	pf.BoolVar(&a.utc, "utc", false, "read and show times in UTC rather than the local zone")
	completeEnum(root, "output", outputs...)
	root.SetFlagErrorFunc(a.flagError)

	root.AddCommand(
		a.mockCmd(), a.versionCmd(), a.loginCmd(), a.logoutCmd(), a.profilesCmd(),
		a.projectsCmd(), a.numbersCmd(), a.numberBlocksCmd(), a.smsCmd(), a.ledgerCmd(),
		a.loginsCmd(), a.sipTrunksCmd(), a.portingCmd(), a.addressesCmd(), a.lookupCmd(),
		a.flowsCmd(), a.callsCmd(),
		a.apiCmd(),
	)
	return root
}

// commandTree is the command tree as it runs: rootCmd, writing to the
// app's streams, with cobra's help and completion commands added now
// rather than in Execute, so that the tests and the reference generator
// see the commands a user does.
func (a *app) commandTree() *cobra.Command {
	root := a.rootCmd()
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.InitDefaultHelpCmd()
	a.strictCompletion(root)
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Annotations = noOps("prints help; calls none")
		}
	}
	return root
}

// getClient builds the SDK client from flags, else the environment.
func (a *app) getClient() (*telco.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	c, err := a.newClient()
	if err != nil {
		return nil, err
	}
	a.client = c
	return c, nil
}

// newClient builds a client from the credentials (flags, else the
// environment, else a profile), with extra options (a send ledger).
func (a *app) newClient(extra ...telco.Option) (*telco.Client, error) {
	cr, err := a.credentials()
	if err != nil {
		return nil, err
	}
	a.credSource = cr.source
	return a.clientFor(cr, extra...)
}

// clientFor builds a client with these credentials and the global flags'
// options.
func (a *app) clientFor(cr credentials, extra ...telco.Option) (*telco.Client, error) {
	opts := []telco.Option{telco.WithUserAgent("telco-cli")}
	if cr.baseURL != "" {
		opts = append(opts, telco.WithBaseURL(cr.baseURL))
	}
	if a.timeout > 0 {
		opts = append(opts, telco.WithAttemptTimeout(a.timeout))
	}
	policy, err := a.reconcilePolicy(0)
	if err != nil {
		return nil, err
	}
	opts = append(opts, telco.WithReconcilePolicy(policy))
	if a.debug {
		// The SDK logs an allow-list of fields: never a token, a password
		// or a message's text.
		opts = append(opts, telco.WithLogger(slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	insecure, err := a.allowInsecureHTTP()
	if err != nil {
		return nil, err
	}
	if insecure {
		opts = append(opts, telco.WithInsecureHTTP())
	}
	opts = append(opts, a.clientOpts...)
	c, err := telco.NewClient(cr.sid, cr.token, append(opts, extra...)...)
	if err != nil {
		return nil, &usageError{insecureHint(err)}
	}
	return c, nil
}

// location is the zone times without one are read in, and every time is
// shown in: the user's (userZone), fixed once the flags are parsed.
func (a *app) location() *time.Location {
	if a.loc != nil {
		return a.loc
	}
	return time.Local
}

// userZone is UTC with --utc, else the local zone: TZ's when it names one
// (read from the app's environment, as the process's own time.Local is,
// so that a test can set it), else time.Local.
func (a *app) userZone() *time.Location {
	if a.utc {
		return time.UTC
	}
	if tz := strings.TrimPrefix(a.env("TZ"), ":"); tz != "" {
		if loc, err := time.LoadLocation(tz); err == nil {
			return loc
		}
	}
	return time.Local
}

// parseTime is parseTime in the user's zone.
func (a *app) parseTime(flag, s string, now time.Time) (time.Time, error) {
	return parseTime(flag, s, now, a.location())
}

// account is the account SID the credentials name, for operations that
// take one; "" when there are none (building the client then says why).
func (a *app) account() string {
	cr, err := a.credentials()
	if err != nil {
		return ""
	}
	return cr.sid
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// settleTimeEnv shortens the settle time of sends that may have reached
// the service (the SDK's DefaultReconcilePolicy, 5s), for tests that
// resume many interrupted batches against a fake whose search lags less.
// It is not for production: a settle time shorter than the service's lag
// sends a message twice.
const settleTimeEnv = "TELCO_TEST_SETTLE_TIME"

// settleTime is the settle time the tool uses: the SDK's default, unless
// TELCO_TEST_SETTLE_TIME (a Go duration) says otherwise.
func (a *app) settleTime() (time.Duration, error) {
	v := a.env(settleTimeEnv)
	if v == "" {
		return telco.DefaultReconcilePolicy().SettleTime, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usagef("%s must be a positive duration such as 500ms, not %q", settleTimeEnv, v)
	}
	return d, nil
}

// reconcilePolicy is the SDK's reconcile policy as the tool sets it: its
// settle time (settleTime), and lookBack (0 for none), --look-up-first's
// look-up before a first send.
func (a *app) reconcilePolicy(lookBack time.Duration) (telco.ReconcilePolicy, error) {
	settle, err := a.settleTime()
	return telco.ReconcilePolicy{SettleTime: settle, LookBack: lookBack}, err
}

// stateDir is where the tool keeps its state (the ledger of sms send):
// $XDG_STATE_HOME/telco when set (an absolute path), else the platform's
// place for an application's local data: ~/.local/state/telco on Unix,
// ~/Library/Application Support/telco on macOS, %LocalAppData%\telco on
// Windows.
func (a *app) stateDir() (string, error) {
	if d := a.env("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "telco"), nil
	}
	if runtime.GOOS == "windows" {
		if d := a.env("LocalAppData"); d != "" {
			return filepath.Join(d, "telco"), nil
		}
		return "", usagef("%%LocalAppData%% is not set: give --ledger PATH")
	}
	home := a.env("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", usagef("no home directory (%v): give --ledger PATH", err)
		}
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "telco"), nil
	}
	return filepath.Join(home, ".local", "state", "telco"), nil
}
