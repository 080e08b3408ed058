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

	accountSid, token, baseURL string
	output                     string

	client *telco.Client
}

// rootCmd is the whole command tree: the global flags, then one command
// group per file (projects.go, sms.go, ...), each listed in AddCommand.
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
	insecure, err := a.allowInsecureHTTP()
	if err != nil {
		return nil, err
	}
	if insecure {
		opts = append(opts, telco.WithInsecureHTTP())
	}
	c, err := telco.NewClient(sid, token, opts...)
	if err != nil {
		return nil, &usageError{insecureHint(err)}
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
