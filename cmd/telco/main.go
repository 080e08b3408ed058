// Command telco is the SDK's command-line tool: every operation of the
// service from a terminal, and the fake service for local work.
//
//	telco mock [--addr 127.0.0.1:8080] [--account-sid SID --token TOKEN]
//	telco projects create|get|list|update
//	telco numbers configure
//	telco number-blocks search|search-text|list-by-property|list-by-account
//	telco sms send|batch|find|get
//	telco logins create|get|list
//	telco sip-trunks create|list|get
//	telco porting submit|status
//	telco addresses create|delete
//	telco lookup NUMBER...
//	telco completion bash|zsh|fish|powershell
//	telco version
//
// Credentials and the base URL come from --account-sid, --token and
// --base-url, or else from TELCO_ACCOUNT_SID, TELCO_TOKEN and
// TELCO_BASE_URL. --output table (the default) prints aligned tables for
// people; --output json prints the SDK's types as JSON for scripts.
//
// Exit status: 0 success; 1 an error from the service (its code, message
// and field names are printed) or the network; 2 a usage error or a
// parameter the SDK's validation refused before sending (with the fields).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK      = 0
	exitService = 1 // the service (or the network) said no
	exitUsage   = 2 // the command line, or parameters refused before sending
)

// usageError is a mistake on the command line: exit status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitError carries an exit status for a failure already reported (a batch
// with rejected messages prints them in its results).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// app is one invocation of the tool: its streams, environment and global
// flags. Nothing is global, so that tests run commands in process.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	env            func(string) string

	accountSid, token, baseURL string
	output                     string

	client *telco.Client
}

// run runs the tool with args (without the program name) and returns the
// exit status. env looks up environment variables (os.Getenv in main).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, env: env}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	a.strictCompletion(root)
	err := root.ExecuteContext(ctx)
	return a.report(err)
}

// report prints err the way its exit status says and returns the status.
func (a *app) report(err error) int {
	if err == nil {
		return exitOK
	}
	var (
		ue *usageError
		ve *telco.ValidationError
		ae *telco.APIError
		ee *exitError
	)
	switch {
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(a.stderr, prefixed(ee.msg))
		}
		return ee.code
	case errors.As(err, &ve):
		fmt.Fprintf(a.stderr, "telco: invalid parameters (%s):\n", ve.Op)
		for _, f := range ve.Fields {
			fmt.Fprintf(a.stderr, "  %s\n", f)
		}
		return exitUsage
	case errors.As(err, &ue):
		fmt.Fprintln(a.stderr, prefixed(ue.err.Error()))
		fmt.Fprintln(a.stderr, "Run 'telco --help' for usage.")
		return exitUsage
	case errors.As(err, &ae):
		printAPIError(a.stderr, err, ae)
		return exitService
	}
	fmt.Fprintln(a.stderr, prefixed(err.Error()))
	return exitService
}

// prefixed starts a message with "telco: " once (the SDK's errors already
// do).
func prefixed(msg string) string {
	if strings.HasPrefix(msg, "telco: ") {
		return msg
	}
	return "telco: " + msg
}

// printAPIError prints err, then the service's answer within it: code,
// message and fields, one per line.
func printAPIError(w io.Writer, err error, ae *telco.APIError) {
	fmt.Fprintln(w, prefixed(err.Error()))
	if ae.Code != "" {
		fmt.Fprintln(w, "  code:   ", ae.Code)
	}
	if ae.Message != "" {
		fmt.Fprintln(w, "  message:", ae.Message)
	}
	for _, f := range ae.Fields {
		fmt.Fprintln(w, "  field:  ", f)
	}
	if errors.Is(ae, telco.ErrMaybeSent) {
		fmt.Fprintln(w, "  the request may have reached the service: check before repeating it")
	}
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "telco",
		Short: "Manage projects, numbers, SMS, logins, SIP trunks, porting and addresses",
		Long: `telco talks to the telephony management service through the telco-go SDK.

Credentials: --account-sid and --token, or TELCO_ACCOUNT_SID and TELCO_TOKEN.
Base URL: --base-url or TELCO_BASE_URL (default the public service); point it
at 'telco mock' to try everything locally.

Exit status: 0 success, 1 service or network error, 2 usage or validation error.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          a.noArgs,
		RunE:          a.needSubcommand,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if a.output != "table" && a.output != "json" {
				return usagef("--output must be table or json, not %q", a.output)
			}
			return nil
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.accountSid, "account-sid", "", "account SID (default $TELCO_ACCOUNT_SID)")
	pf.StringVar(&a.token, "token", "", "API token (default $TELCO_TOKEN)")
	pf.StringVar(&a.baseURL, "base-url", "", "service base URL (default $TELCO_BASE_URL, else "+telco.DefaultBaseURL+")")
	pf.StringVarP(&a.output, "output", "o", "table", "output format: table or json")
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })

	root.AddCommand(
		a.mockCmd(), a.versionCmd(),
		a.projectsCmd(), a.numbersCmd(), a.numberBlocksCmd(), a.smsCmd(),
		a.loginsCmd(), a.sipTrunksCmd(), a.portingCmd(), a.addressesCmd(), a.lookupCmd(),
	)
	return root
}

// strictCompletion adds cobra's completion command now (it would add it in
// Execute) so as to change one thing: for a shell it does not know
// (completion tcsh) it printed its help and succeeded; that is a usage
// error. Call it after SetOut, which the scripts are written to.
func (a *app) strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args, c.RunE = a.noArgs, a.needSubcommand
		}
	}
}

// noArgs refuses arguments where a subcommand was expected, suggesting
// the closest names.
func (a *app) noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usagef("%s", msg)
}

// needSubcommand is the action of a command that only groups others.
func (a *app) needSubcommand(cmd *cobra.Command, _ []string) error {
	cmd.SetOut(a.stderr)
	_ = cmd.Usage()
	return usagef("%s needs a subcommand", cmd.CommandPath())
}

// group makes a command that only holds subcommands.
func (a *app) group(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, Args: a.noArgs, RunE: a.needSubcommand}
	c.AddCommand(subs...)
	return c
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s (got %d argument(s))", cmd.CommandPath(), names, len(args))
		}
		return nil
	}
}

// getClient builds the SDK client from flags, else the environment.
func (a *app) getClient() (*telco.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	sid := firstNonEmpty(a.accountSid, a.env("TELCO_ACCOUNT_SID"))
	token := firstNonEmpty(a.token, a.env("TELCO_TOKEN"))
	if sid == "" || token == "" {
		return nil, usagef("no credentials: give --account-sid and --token, or set TELCO_ACCOUNT_SID and TELCO_TOKEN")
	}
	opts := []telco.Option{telco.WithUserAgent("telco-cli")}
	if base := firstNonEmpty(a.baseURL, a.env("TELCO_BASE_URL")); base != "" {
		opts = append(opts, telco.WithBaseURL(base))
	}
	c, err := telco.NewClient(sid, token, opts...)
	if err != nil {
		return nil, &usageError{err}
	}
	a.client = c
	return c, nil
}

// account is the account SID the credentials name, for operations that
// take one.
func (a *app) account() string {
	return firstNonEmpty(a.accountSid, a.env("TELCO_ACCOUNT_SID"))
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
