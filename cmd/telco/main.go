// Command telco is the SDK's command-line tool: every operation of the
// service from a terminal, and the fake service for local work.
//
//	telco mock [--addr 127.0.0.1:8080] [--account-sid SID --token TOKEN]
//	telco projects create|get|list|update
//	telco numbers get|list|purchase|configure
//	telco number-blocks search|search-text|list-by-property|list-by-account
//	telco sms send|batch|find|get
//	telco logins create|get|list
//	telco sip-trunks create|list|get
//	telco porting submit|status
//	telco addresses create|list|get|delete
//	telco lookup NUMBER...
//	telco flows list
//	telco calls get|list [--all|--follow]
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
