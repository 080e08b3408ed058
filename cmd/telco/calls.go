package main

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// callsCmd is "telco calls", over the SDK's Calls service.
func (a *app) callsCmd() *cobra.Command {
	return a.group("calls", "Read tracked calls, and follow new ones", a.callGetCmd(), a.callListCmd())
}

func (a *app) callGetCmd() *cobra.Command {
	return getCmd(a, "Calls.Get", "get CALL_SID", "Show a call", "CALL_SID", callCols,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.Call, error) {
			return c.Calls.Get(ctx, sid)
		})
}

// callListFlags are the filters of "calls list".
type callListFlags struct {
	prop, acct, since, until, keys string
	p                              telco.ListCallsParams
	dispositions                   []string
	all, follow                    bool
	interval                       time.Duration
}

// params turns the flags into the SDK's params.
func (f *callListFlags) params(a *app, now time.Time) (*telco.ListCallsParams, error) {
	p := f.p
	var err error
	if p.DateFrom, err = a.parseTime("since", f.since, now); err != nil {
		return nil, err
	}
	if p.DateTo, err = a.parseTime("until", f.until, now); err != nil {
		return nil, err
	}
	p.Dispositions = nil
	for _, d := range f.dispositions {
		p.Dispositions = append(p.Dispositions, telco.CallDisposition(d))
	}
	p.PromptKeys = nil
	for _, path := range strings.Split(f.keys, ";") {
		if path = strings.TrimSpace(path); path != "" {
			p.PromptKeys = append(p.PromptKeys, strings.Split(path, ","))
		}
	}
	return &p, nil
}

func (a *app) callListCmd() *cobra.Command {
	var f callListFlags
	c := &cobra.Command{
		Use:         "list [--property SID | --account SID] [filters] [--all | --follow]",
		Annotations: ops("Calls.ListByProperty", "Calls.ListByAccount"),
		Short:       "List calls, by project or else by account; --follow prints new calls as they are written",
		Long: `list prints one answer of calls (earliest first) and, on standard error, its
Token: give it to --token to list only the calls written since. --all
follows the Tokens to the last call written so far; --follow then keeps
asking every --interval and prints each new call on its own line (JSON
lines with -o json) until interrupted, then prints the Token to resume
from:

  telco calls list --follow --interval 30s`,
		Example: `  telco calls list --since -24h --disposition Answered,NoAnswer
  telco calls list --all --source google --keys "1;2,1"`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.all && f.follow {
				return usagef("give --all or --follow, not both")
			}
			p, err := f.params(a, time.Now())
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			return a.withClient(func(c *telco.Client) error {
				prop, acct, err := a.scope(f.prop, f.acct)
				if err != nil {
					return err
				}
				list, owner := c.Calls.ListByAccount, acct
				if prop != "" {
					list, owner = c.Calls.ListByProperty, prop
				}
				feed := telco.NewCallFeed(list, owner, p)
				token := ""
				switch {
				case f.follow:
					err = a.followCalls(ctx, feed, f.interval)
					token = feed.Token()
				case f.all:
					err = printAll(a, feed.All(ctx), callListCols, nil)
					token = feed.Token()
				default:
					err = printListing(a, false, callListCols, nil, func() (any, []telco.Call, error) {
						page, err := list(ctx, owner, p)
						if err != nil {
							return nil, nil, err
						}
						token = page.Token
						return page, page.Calls, nil
					}, nil)
				}
				// On an error too: the Token of the calls already printed.
				if token != "" {
					fmt.Fprintf(a.stderr, "token: %s (pass --token %s to list the calls written after these)\n", token, token)
				}
				return err
			})
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &f.prop)
	fs.StringVar(&f.acct, "account", "", "account SID (default your own when no project is given by --property, $TELCO_PROPERTY_SID or the profile); not with --property")
	fs.StringVar(&f.since, "since", "", "calls that started at or after this time ("+timeHelp+")")
	fs.StringVar(&f.until, "until", "", "calls that started before this time")
	fs.StringVar(&f.p.Token, "token", "", "only calls written after the answer that gave this Token")
	fs.StringSliceVar(&f.dispositions, "disposition", nil, "Answered, IVR, Busy, NoAnswer or Failed (repeatable)")
	fs.StringSliceVar(&f.p.To, "to", nil, "number called (repeatable)")
	fs.StringSliceVar(&f.p.Endpoints, "endpoint", nil, "number the call went to (repeatable)")
	fs.StringSliceVar(&f.p.AttributionSources, "source", nil, "Attribution_Source (repeatable)")
	fs.StringSliceVar(&f.p.AttributionMediums, "medium", nil, "Attribution_Medium (repeatable)")
	fs.StringSliceVar(&f.p.AttributionCampaigns, "campaign", nil, "Attribution_Campaign (repeatable)")
	fs.StringSliceVar(&f.p.AttributionContents, "content", nil, "Attribution_Content (repeatable)")
	fs.StringVar(&f.keys, "keys", "", `IVR keys pressed: paths separated by ";", keys by ",", e.g. "1,2;3"`)
	fs.StringVar((*string)(&f.p.Unique), "unique", "", "Unique filter, e.g. All")
	fs.BoolVar(&f.all, "all", false, "follow the Tokens to the last call written so far")
	fs.BoolVar(&f.follow, "follow", false, "keep printing new calls until interrupted")
	fs.DurationVar(&f.interval, "interval", telco.DefaultCallPollInterval, "with --follow, the wait after an answer without new calls")
	_ = c.RegisterFlagCompletionFunc("disposition", cobra.FixedCompletions([]string{"Answered", "IVR", "Busy", "NoAnswer", "Failed"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// followCalls prints each new call as one line as soon as it comes: a
// table cannot be aligned before its last row, and a follow has none.
func (a *app) followCalls(ctx context.Context, feed *telco.CallFeed, every time.Duration) error {
	var seq iter.Seq2[telco.Call, error] = feed.Follow(ctx, every)
	if !a.jsonOut() {
		fmt.Fprintf(a.stdout, "%-25s  %-32s  %-11s  %8s  %-16s  %-16s  %s\n", "START", "CALL SID", "DISPOSITION", "DURATION", "FROM", "TO", "SOURCE")
	}
	for call, err := range seq {
		if err != nil {
			return err
		}
		if a.jsonOut() {
			b, err := json.Marshal(call)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s\n", b)
			continue
		}
		fmt.Fprintf(a.stdout, "%-25s  %-32s  %-11s  %8d  %-16s  %-16s  %s\n", a.formatTime(timeOf(call.DateStart)), clean(call.CallSid),
			clean(string(call.Disposition)), call.Duration, clean(call.From), clean(call.To), clean(call.AttributionSource))
	}
	return nil
}

// callListCols are a call's columns in a list.
var callListCols = []column[telco.Call]{
	{name: "START", at: func(c *telco.Call) time.Time { return timeOf(c.DateStart) }},
	{name: "CALL SID", get: func(c *telco.Call) string { return c.CallSid }},
	{name: "DISPOSITION", get: func(c *telco.Call) string { return string(c.Disposition) }},
	{name: "DURATION", get: func(c *telco.Call) string { return itoa(c.Duration) }},
	{name: "FROM", get: func(c *telco.Call) string { return c.From }},
	{name: "TO", get: func(c *telco.Call) string { return c.To }},
	{name: "ENDPOINT", get: func(c *telco.Call) string { return c.Endpoint }},
	{name: "SOURCE", get: func(c *telco.Call) string { return c.AttributionSource }},
	{name: "CAMPAIGN", get: func(c *telco.Call) string { return c.AttributionCampaign }},
}

// callCols are a call's fields, one per line.
var callCols = []column[telco.Call]{
	{name: "CALL SID", get: func(c *telco.Call) string { return c.CallSid }},
	{name: "PROPERTY SID", get: func(c *telco.Call) string { return c.PropertySid }},
	{name: "TYPE", get: func(c *telco.Call) string { return c.CallType }},
	{name: "START", at: func(c *telco.Call) time.Time { return timeOf(c.DateStart) }},
	{name: "DISPOSITION", get: func(c *telco.Call) string { return string(c.Disposition) }},
	{name: "DURATION", get: func(c *telco.Call) string { return itoa(c.Duration) }},
	{name: "FROM", get: func(c *telco.Call) string { return c.From }},
	{name: "TO", get: func(c *telco.Call) string { return c.To }},
	{name: "ENDPOINT", get: func(c *telco.Call) string { return c.Endpoint }},
	{name: "CALLER CITY", get: func(c *telco.Call) string { return c.CallerCity }},
	{name: "CALLER REGION", get: func(c *telco.Call) string { return c.CallerRegion }},
	{name: "CALLER COUNTRY", get: func(c *telco.Call) string { return c.CallerCountryCode }},
	{name: "ATTRIBUTION SOURCE", get: func(c *telco.Call) string { return c.AttributionSource }},
	{name: "ATTRIBUTION MEDIUM", get: func(c *telco.Call) string { return c.AttributionMedium }},
	{name: "ATTRIBUTION CAMPAIGN", get: func(c *telco.Call) string { return c.AttributionCampaign }},
	{name: "ATTRIBUTION CONTENT", get: func(c *telco.Call) string { return c.AttributionContent }},
	{name: "IVR KEYS", get: func(c *telco.Call) string { return c.PromptsKeys }},
	{name: "EXTRA", get: func(c *telco.Call) string { return extra(c.Extra) }},
}
