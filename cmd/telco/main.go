// Command telco is the SDK's command-line tool.
//
//	telco mock [--addr 127.0.0.1:8080] [--account-sid SID] [--token TOKEN]
//
// mock serves telcotest, the in-memory fake of the whole service, until
// interrupted, and prints its URL, account SID, token and seeded project,
// so that any client (this SDK with telco.WithBaseURL, curl, another
// language) can be pointed at it.
//
//	telco version
//
// prints the SDK version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  telco mock [--addr 127.0.0.1:8080] [--account-sid SID] [--token TOKEN]
      serve the in-memory fake service until interrupted
  telco version
      print the SDK version
`

// run is the whole tool; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "mock":
		return mock(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "telco-go", telco.Version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "telco: unknown command %q\n%s", args[0], usage)
	return 2
}

func mock(ctx context.Context, args []string, stdout, stderr io.Writer) (status int) {
	fs := flag.NewFlagSet("mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port)")
	sid := fs.String("account-sid", "", "account SID to accept (default: generated)")
	token := fs.String("token", "", "token to accept (default: generated)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if (*sid == "") != (*token == "") {
		fmt.Fprintln(stderr, "telco mock: give both --account-sid and --token, or neither")
		return 2
	}
	defer func() {
		if r := recover(); r != nil { // NewServer panics when it cannot listen
			fmt.Fprintln(stderr, "telco mock:", r)
			status = 1
		}
	}()
	opts := []telcotest.ServerOption{telcotest.WithAddr(*addr)}
	if *sid != "" {
		opts = append(opts, telcotest.WithCredentials(*sid, *token))
	}
	srv := telcotest.NewServer(opts...)
	defer srv.Close()
	fmt.Fprintf(stdout, "telco mock: serving the fake service\n")
	fmt.Fprintf(stdout, "  URL:          %s\n", srv.URL)
	fmt.Fprintf(stdout, "  account SID:  %s\n", srv.AccountSid)
	fmt.Fprintf(stdout, "  token:        %s\n", srv.Token)
	fmt.Fprintf(stdout, "  project SID:  %s (SMS enabled)\n", srv.PropertySid)
	fmt.Fprintf(stdout, "Use it with telco.NewClient(sid, token, telco.WithBaseURL(%q)). Ctrl-C stops it.\n", srv.URL)
	<-ctx.Done()
	return 0
}
