package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/telcosdk/telco"
)

// optBool is a flag's value only when the user gave it, so that an unset
// flag leaves the service's default.
func optBool(fs *pflag.FlagSet, name string) *bool {
	if !fs.Changed(name) {
		return nil
	}
	v, _ := fs.GetBool(name)
	return &v
}

func optString(fs *pflag.FlagSet, name string) *string {
	if !fs.Changed(name) {
		return nil
	}
	v, _ := fs.GetString(name)
	return &v
}

// parseTime reads a time given on the command line: RFC 3339, a date
// (YYYY-MM-DD, midnight UTC), Unix seconds, "now", or a duration from now
// ("-24h", "+30m").
func parseTime(flag, s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return time.Time{}, nil
	case s == "now":
		return now, nil
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		if d, err := time.ParseDuration(s); err == nil {
			return now.Add(d), nil
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("--%s: %q is not a time (RFC 3339, YYYY-MM-DD, Unix seconds, now, or -24h)", flag, s)
}

// listFlags are Results_Count / Results_Skip and --all.
type listFlags struct {
	count, skip int
	all         bool
}

func (l *listFlags) add(fs *pflag.FlagSet) {
	fs.IntVar(&l.count, "count", 0, "page size (Results_Count; 0: the service default)")
	fs.IntVar(&l.skip, "skip", 0, "items to skip (Results_Skip)")
	fs.BoolVar(&l.all, "all", false, "fetch every page")
}

func (l *listFlags) params() telco.ListParams { return telco.ListParams{Count: l.count, Skip: l.skip} }

// getCmd is a command that reads one resource by its SID and prints it.
func getCmd[T any](a *app, use, short, arg string, cols []column[T],
	get func(ctx context.Context, c *telco.Client, sid string) (*T, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1, "one "+arg),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.getClient()
			if err != nil {
				return err
			}
			v, err := get(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			return printOne(a, v, cols)
		},
	}
}

// pager is a service listing with plain ListParams: one page, or all.
type pager[T any] interface {
	List(ctx context.Context, p *telco.ListParams) (*telco.Page[T], error)
	ListAll(ctx context.Context, p *telco.ListParams) iter.Seq2[T, error]
}

// listCmd is "list [--count N] [--skip N] [--all]" over such a listing.
func listCmd[T any](a *app, short string, cols []column[T], service func(c *telco.Client) pager[T]) *cobra.Command {
	var lf listFlags
	c := &cobra.Command{
		Use:   "list",
		Short: short,
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.getClient()
			if err != nil {
				return err
			}
			lp := lf.params()
			if lf.all {
				return printAll(a, service(c).ListAll(cmd.Context(), &lp), cols, nil)
			}
			page, err := service(c).List(cmd.Context(), &lp)
			if err != nil {
				return err
			}
			return printList(a, page, page.Items, cols)
		},
	}
	lf.add(c.Flags())
	return c
}

// propertyFlag adds --property, defaulting to $TELCO_PROPERTY_SID.
func (a *app) propertyFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "property", "", "project (property) SID (default $TELCO_PROPERTY_SID)")
}

func (a *app) property(p string) (string, error) {
	if v := firstNonEmpty(p, a.env("TELCO_PROPERTY_SID")); v != "" {
		return v, nil
	}
	return "", usagef("give --property or set TELCO_PROPERTY_SID")
}

// scope picks a project or an account for a command that takes either:
// an explicit flag wins over $TELCO_PROPERTY_SID (else setting the variable,
// as the mock recipe does, would silently override --account), and giving
// both flags is a usage error. With neither, it is $TELCO_PROPERTY_SID when
// set, else the caller's own account. Exactly one result is non-empty,
// unless the account is unknown too.
func (a *app) scope(prop, acct string) (string, string, error) {
	switch {
	case prop != "" && acct != "":
		return "", "", usagef("give --property or --account, not both")
	case acct != "":
		return "", acct, nil
	case prop != "":
		return prop, "", nil
	}
	if p := a.env("TELCO_PROPERTY_SID"); p != "" {
		return p, "", nil
	}
	return "", a.account(), nil
}

// secret reads a password without echoing it anywhere: from its flag, its
// environment variable, or the first line of standard input. It is never
// printed.
func (a *app) secret(what, flagValue, envName string, fromStdin bool) (string, error) {
	if fromStdin {
		line, err := bufio.NewReader(a.stdin).ReadString('\n')
		if err != nil && err != io.EOF {
			return "", fmt.Errorf("reading the %s from standard input: %w", what, err)
		}
		if line = strings.TrimRight(line, "\r\n"); line == "" {
			return "", usagef("no %s on standard input", what)
		}
		return line, nil
	}
	if flagValue != "" {
		return flagValue, nil
	}
	return a.env(envName), nil
}

// ---- projects ----

func (a *app) projectsCmd() *cobra.Command {
	return a.group("projects", "Create, read, list and update projects (properties)",
		a.projectCreateCmd(), a.projectGetCmd(), a.projectListCmd(), a.projectUpdateCmd())
}

func (a *app) projectCreateCmd() *cobra.Command {
	var p telco.CreatePropertyParams
	c := &cobra.Command{
		Use:     "create --name NAME --domain DOMAIN --time-zone ZONE",
		Short:   "Create a project",
		Example: `  telco projects create --name "Acme AU" --domain acme.example --time-zone "AUS Eastern Standard Time" --sms`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.Active = optBool(cmd.Flags(), "active")
			c, err := a.getClient()
			if err != nil {
				return err
			}
			prop, err := c.Properties.Create(cmd.Context(), &p)
			if err != nil {
				return err
			}
			return printOne(a, prop, propertyCols)
		},
	}
	fs := c.Flags()
	fs.StringVar(&p.Name, "name", "", "project name (required)")
	fs.StringVar(&p.MainDomain, "domain", "", "main domain (required)")
	fs.StringVar(&p.TimeZone, "time-zone", "", `Windows time zone ID, e.g. "AUS Eastern Standard Time" (required)`)
	fs.BoolVar(&p.SmsEnabled, "sms", false, "enable SMS")
	fs.BoolVar(&p.CallRecordingEnabled, "call-recording", false, "enable call recording")
	fs.BoolVar(&p.IntegrationsEnabled, "integrations", false, "enable integrations")
	fs.Bool("active", true, "create active (the service default)")
	return c
}

func (a *app) projectGetCmd() *cobra.Command {
	return getCmd(a, "get PROPERTY_SID", "Show a project", "PROPERTY_SID", propertyCols,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.Property, error) {
			return c.Properties.Get(ctx, sid)
		})
}

func (a *app) projectListCmd() *cobra.Command {
	return listCmd(a, "List the account's projects", propertyCols,
		func(c *telco.Client) pager[telco.Property] { return c.Properties })
}

func (a *app) projectUpdateCmd() *cobra.Command {
	c := &cobra.Command{
		Use:     "update PROPERTY_SID [flags]",
		Short:   "Change a project: only the flags given are sent (merge patch)",
		Example: `  telco projects update PR... --sms=false --name "Acme (old)"`,
		Args:    exactArgs(1, "one PROPERTY_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			p := telco.UpdatePropertyParams{
				Name: optString(fs, "name"), MainDomain: optString(fs, "domain"), TimeZone: optString(fs, "time-zone"),
				SmsEnabled: optBool(fs, "sms"), CallRecordingEnabled: optBool(fs, "call-recording"),
				IntegrationsEnabled: optBool(fs, "integrations"), Active: optBool(fs, "active"),
			}
			if p == (telco.UpdatePropertyParams{}) {
				return usagef("projects update: give at least one field to change")
			}
			c, err := a.getClient()
			if err != nil {
				return err
			}
			if err := c.Properties.Update(cmd.Context(), args[0], &p); err != nil {
				return err
			}
			prop, err := c.Properties.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printOne(a, prop, propertyCols)
		},
	}
	fs := c.Flags()
	fs.String("name", "", "project name")
	fs.String("domain", "", "main domain")
	fs.String("time-zone", "", "Windows time zone ID")
	fs.Bool("sms", false, "SMS enabled")
	fs.Bool("call-recording", false, "call recording enabled")
	fs.Bool("integrations", false, "integrations enabled")
	fs.Bool("active", false, "active")
	return c
}

// ---- numbers ----

func (a *app) numbersCmd() *cobra.Command {
	return a.group("numbers", "Configure phone numbers", a.numberConfigureCmd())
}

func (a *app) numberConfigureCmd() *cobra.Command {
	var p telco.NumberConfigParams
	var routing, recording string
	c := &cobra.Command{
		Use:     "configure NUMBER [flags]",
		Short:   "Configure a number (E.164, + optional): only the flags given are sent",
		Example: `  telco numbers configure +61299999999 --friendly Reception --sms-webhook-url https://example.com/sms`,
		Args:    exactArgs(1, "one NUMBER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.RoutingMethod = telco.RoutingMethod(routing)
			p.Recording = telco.Recording(recording)
			c, err := a.getClient()
			if err != nil {
				return err
			}
			n, err := c.Numbers.Configure(cmd.Context(), args[0], &p)
			if err != nil {
				return err
			}
			return printOne(a, n, numberConfigCols)
		},
	}
	fs := c.Flags()
	fs.StringVar(&p.Friendly, "friendly", "", "friendly name")
	fs.StringVar(&p.AddressSid, "address", "", "address SID")
	fs.StringVar(&p.AttributionSource, "attribution-source", "", "Attribution_Source")
	fs.StringVar(&p.AttributionMedium, "attribution-medium", "", "Attribution_Medium")
	fs.StringVar(&p.AttributionCampaign, "attribution-campaign", "", "Attribution_Campaign")
	fs.StringVar(&p.AttributionContent, "attribution-content", "", "Attribution_Content")
	fs.StringVar(&routing, "routing", "", "routing method: Endpoint or Flow")
	fs.StringVar(&p.EndpointNumber, "endpoint", "", "endpoint number (E.164), with --routing Endpoint")
	fs.StringVar(&p.Flow, "flow", "", "flow ConfigID, with --routing Flow")
	fs.StringVar(&recording, "recording", "", "call recording: Off or Call")
	fs.StringVar(&p.SendSmsFrom, "forward-sms-from", "", "forward received SMS from this number")
	fs.StringVar(&p.SendSmsTo, "forward-sms-to", "", "forward received SMS to this number")
	fs.StringVar(&p.SendEmailFrom, "forward-email-from", "", "forward received SMS by e-mail from this address")
	fs.StringVar(&p.SendEmailTo, "forward-email-to", "", "forward received SMS by e-mail to this address")
	fs.StringVar(&p.WebhookURL, "sms-webhook-url", "", "URL called on a received SMS (WebHookUrl)")
	fs.StringVar(&p.WebhookMethod, "sms-webhook-method", "", "GET or POST")
	fs.StringVar(&p.DeliveryReceiptWebhookURL, "receipt-webhook-url", "", "URL called on a delivery receipt (DeliveryReceiptWebHookUrl)")
	fs.StringVar(&p.DeliveryReceiptWebhookMethod, "receipt-webhook-method", "", "GET or POST")
	_ = c.RegisterFlagCompletionFunc("routing", cobra.FixedCompletions([]string{"Endpoint", "Flow"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("recording", cobra.FixedCompletions([]string{"Off", "Call"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// ---- number blocks ----

type blockFlags struct {
	p   telco.NumberBlockListParams
	all bool
}

func (b *blockFlags) add(fs *pflag.FlagSet) {
	fs.Bool("active", false, "only active (true) or inactive (false) blocks")
	fs.Bool("sms", false, "only blocks with (true) or without (false) SMS")
	fs.Bool("voice", false, "only blocks with (true) or without (false) voice")
	fs.BoolVar(&b.p.IncludeAssociations, "include-associations", false, "include assignments and analytics numbers")
	fs.IntVar(&b.p.PageIndex, "page", 0, "page index, from 0")
	fs.IntVar(&b.p.PageSize, "page-size", 0, "page size (0: the service default, 10)")
	fs.StringVar(&b.p.SortBy, "sort-by", "", "sort field (default Id)")
	fs.StringVar(&b.p.SortDir, "sort-dir", "", "asc or desc")
	fs.BoolVar(&b.all, "all", false, "fetch every page")
}

func (b *blockFlags) params(fs *pflag.FlagSet) *telco.NumberBlockListParams {
	b.p.Active, b.p.Sms, b.p.Voice = optBool(fs, "active"), optBool(fs, "sms"), optBool(fs, "voice")
	return &b.p
}

func (a *app) numberBlocksCmd() *cobra.Command {
	blockCmd := func(use, short string, args cobra.PositionalArgs, setup func(fs *pflag.FlagSet),
		one func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error),
		all func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) func(yield func(telco.NumberBlock, error) bool),
	) *cobra.Command {
		var bf blockFlags
		c := &cobra.Command{Use: use, Short: short, Args: args,
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := a.getClient()
				if err != nil {
					return err
				}
				p := bf.params(cmd.Flags())
				if bf.all {
					return printAll(a, all(cmd, c, args, p), numberBlockCols, nil)
				}
				page, err := one(cmd, c, args, p)
				if err != nil {
					return err
				}
				return printList(a, page, page.Data, numberBlockCols)
			}}
		bf.add(c.Flags())
		if setup != nil {
			setup(c.Flags())
		}
		return c
	}
	var acct, prop, text string
	search := blockCmd("search [--account SID | --property SID]", "Search number blocks by account or project (operation 1)",
		exactArgs(0, "no arguments"),
		func(fs *pflag.FlagSet) {
			fs.StringVar(&acct, "account", "", "account SID to search")
			fs.StringVar(&prop, "property", "", "project SID to search")
			fs.StringVar(&text, "text", "", "free text")
		},
		func(cmd *cobra.Command, c *telco.Client, _ []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.Search(cmd.Context(), &telco.NumberBlockSearchParams{AccountSid: acct, PropertySid: prop, Text: text, NumberBlockListParams: *p})
		},
		func(cmd *cobra.Command, c *telco.Client, _ []string, p *telco.NumberBlockListParams) func(yield func(telco.NumberBlock, error) bool) {
			return c.NumberBlocks.SearchAll(cmd.Context(), &telco.NumberBlockSearchParams{AccountSid: acct, PropertySid: prop, Text: text, NumberBlockListParams: *p})
		})
	// The same scope rule as porting status, resolved before the request.
	search.PreRunE = func(*cobra.Command, []string) (err error) {
		prop, acct, err = a.scope(prop, acct)
		return err
	}
	searchText := blockCmd("search-text TEXT", "Search number blocks by free text", exactArgs(1, "one TEXT"), nil,
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.SearchText(cmd.Context(), args[0], p)
		},
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) func(yield func(telco.NumberBlock, error) bool) {
			return c.NumberBlocks.SearchTextAll(cmd.Context(), args[0], p)
		})
	byProperty := blockCmd("list-by-property PROPERTY_SID", "List a project's number blocks", exactArgs(1, "one PROPERTY_SID"), nil,
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.ListByProperty(cmd.Context(), args[0], p)
		},
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) func(yield func(telco.NumberBlock, error) bool) {
			return c.NumberBlocks.ListByPropertyAll(cmd.Context(), args[0], p)
		})
	accountArg := func(args []string) string {
		if len(args) > 0 {
			return args[0]
		}
		return a.account()
	}
	byAccount := blockCmd("list-by-account [ACCOUNT_SID]", "List an account's number blocks (default your own account)",
		cobra.MaximumNArgs(1), nil,
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.ListByAccount(cmd.Context(), accountArg(args), p)
		},
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) func(yield func(telco.NumberBlock, error) bool) {
			return c.NumberBlocks.ListByAccountAll(cmd.Context(), accountArg(args), p)
		})
	byAccount.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usagef("%s takes at most one ACCOUNT_SID", cmd.CommandPath())
		}
		return nil
	}
	return a.group("number-blocks", "Search and list number blocks", search, searchText, byProperty, byAccount)
}

// ---- online logins ----

func (a *app) loginsCmd() *cobra.Command {
	return a.group("logins", "Create, read and list portal logins", a.loginCreateCmd(), a.loginGetCmd(), a.loginListCmd())
}

func (a *app) loginCreateCmd() *cobra.Command {
	var p telco.CreateOnlineLoginParams
	var prop, password, scopes string
	var passwordStdin bool
	c := &cobra.Command{
		Use:   "create --property SID --email EMAIL --scopes a,b [--password-stdin]",
		Short: "Create a portal login on a project",
		Long: `Create a portal login on a project. The password is read from --password-stdin
(the first line of standard input), else $TELCO_LOGIN_PASSWORD, else --password
(visible to other users of this machine: avoid it). It is never printed.`,
		Example: `  printf '%s\n' "$PW" | telco logins create --property PR... --email ops@example.com --first-name Ops --last-name Team --scopes Reporting --password-stdin`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			if p.Password, err = a.secret("password", password, "TELCO_LOGIN_PASSWORD", passwordStdin); err != nil {
				return err
			}
			p.Scopes = telco.ParseScopes(scopes)
			c, err := a.getClient()
			if err != nil {
				return err
			}
			l, err := c.OnlineLogins.Create(cmd.Context(), prop, &p)
			if err != nil {
				return err
			}
			return printOne(a, l, loginCols)
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&p.Email, "email", "", "e-mail address, the user name (required)")
	fs.StringVar(&p.FirstName, "first-name", "", "first name (required)")
	fs.StringVar(&p.LastName, "last-name", "", "last name (required)")
	fs.StringVar(&scopes, "scopes", "", "comma-separated scopes, e.g. Manage,Reporting")
	fs.BoolVar(&p.Enabled, "enabled", false, "allow the login to log in")
	fs.StringVar(&password, "password", "", "password (prefer --password-stdin or $TELCO_LOGIN_PASSWORD)")
	fs.BoolVar(&passwordStdin, "password-stdin", false, "read the password from the first line of standard input")
	return c
}

func (a *app) loginGetCmd() *cobra.Command {
	return getCmd(a, "get ONLINE_LOGIN_SID", "Show a portal login", "ONLINE_LOGIN_SID", loginCols,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.OnlineLogin, error) {
			return c.OnlineLogins.Get(ctx, sid)
		})
}

func (a *app) loginListCmd() *cobra.Command {
	return listCmd(a, "List the account's portal logins", loginCols,
		func(c *telco.Client) pager[telco.OnlineLogin] { return c.OnlineLogins })
}

// ---- SIP trunks ----

func (a *app) sipTrunksCmd() *cobra.Command {
	return a.group("sip-trunks", "Create, list and read SIP trunks", a.sipCreateCmd(), a.sipListCmd(), a.sipGetCmd())
}

func parseTrunkType(s string) (telco.SipTrunkType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ip", "ip-to-ip", "0":
		return telco.SipTrunkIPToIP, nil
	case "auth", "authenticated", "1":
		return telco.SipTrunkAuthenticated, nil
	}
	return 0, usagef("--type must be ip or auth, not %q", s)
}

func (a *app) sipCreateCmd() *cobra.Command {
	var p telco.CreateSipTrunkParams
	var prop, typ, realm, password string
	var passwordStdin bool
	c := &cobra.Command{
		Use:   "create --property SID --name NAME --caller-id E164 --type ip|auth ...",
		Short: "Create a SIP trunk and print its SID",
		Long: `Create a SIP trunk. An IP-to-IP trunk (--type ip) needs --ip (repeatable); an
authenticated trunk (--type auth) needs a password: --password-stdin (first line
of standard input), else $TELCO_SIP_PASSWORD, else --password (visible to other
users of this machine). The password is never printed.`,
		Example: `  telco sip-trunks create --property PR... --name Office --caller-id +61299999999 --type ip --ip 8.8.8.0/24`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			if p.Type, err = parseTrunkType(typ); err != nil {
				return err
			}
			pw, err := a.secret("SIP password", password, "TELCO_SIP_PASSWORD", passwordStdin)
			if err != nil {
				return err
			}
			if pw != "" || realm != "" {
				p.Credentials = &telco.SipCredentials{Realm: realm, Password: pw}
			}
			c, err := a.getClient()
			if err != nil {
				return err
			}
			sid, err := c.SipTrunks.Create(cmd.Context(), prop, &p)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return printJSON(a.stdout, map[string]string{"SipTrunkSid": sid})
			}
			fmt.Fprintln(a.stdout, sid)
			return nil
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&p.Name, "name", "", "trunk name (required)")
	fs.StringVar(&p.DefaultCallerID, "caller-id", "", "default caller ID, an Australian E.164 number (required)")
	fs.StringVar(&typ, "type", "ip", "ip (IP to IP) or auth (authenticated)")
	fs.StringSliceVar(&p.IPAddresses, "ip", nil, "allowed IPv4 address or CIDR /24 to /32 (repeatable)")
	fs.StringVar(&realm, "realm", "", "credentials realm (auth trunks)")
	fs.StringVar(&password, "password", "", "password (prefer --password-stdin or $TELCO_SIP_PASSWORD)")
	fs.BoolVar(&passwordStdin, "password-stdin", false, "read the password from the first line of standard input")
	fs.StringSliceVar(&p.AllowedCountries, "country", nil, "allowed country code (repeatable; default AU)")
	fs.IntVar(&p.ChannelLimit, "channels", 0, "channel limit (0: the service default, 1)")
	fs.StringVar(&p.CustomerReference, "reference", "", "your reference")
	_ = c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{"ip", "auth"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func (a *app) sipListCmd() *cobra.Command {
	var lf listFlags
	var prop, typ string
	var state int
	c := &cobra.Command{
		Use:   "list --property SID",
		Short: "List a project's SIP trunks",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			p := telco.ListSipTrunksParams{ListParams: lf.params(), Active: optBool(cmd.Flags(), "active")}
			if typ != "" {
				t, err := parseTrunkType(typ)
				if err != nil {
					return err
				}
				p.Type = &t
			}
			if cmd.Flags().Changed("state") {
				s := telco.ProvisioningState(state)
				p.ProvisioningState = &s
			}
			c, err := a.getClient()
			if err != nil {
				return err
			}
			if lf.all {
				return printAll(a, c.SipTrunks.ListAll(cmd.Context(), prop, &p), sipTrunkCols, nil)
			}
			page, err := c.SipTrunks.List(cmd.Context(), prop, &p)
			if err != nil {
				return err
			}
			return printList(a, page, page.Items, sipTrunkCols)
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	lf.add(fs)
	fs.StringVar(&typ, "type", "", "only ip or auth trunks")
	fs.Bool("active", false, "only active (true) or inactive (false) trunks")
	fs.IntVar(&state, "state", 0, "only this provisioning state (0 Inactive, 1 Provisioning, 2 Active, 3 Deprovisioning)")
	return c
}

func (a *app) sipGetCmd() *cobra.Command {
	var prop, acct string
	c := &cobra.Command{
		Use:   "get SIP_TRUNK_SID [--property SID | --account SID]",
		Short: "Show a SIP trunk with its details, by project (--property) or else by account",
		Args:  exactArgs(1, "one SIP_TRUNK_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.getClient()
			if err != nil {
				return err
			}
			prop, acct, err := a.scope(prop, acct)
			if err != nil {
				return err
			}
			var t *telco.SipTrunk
			if prop != "" {
				t, err = c.SipTrunks.GetByProperty(cmd.Context(), prop, args[0])
			} else {
				t, err = c.SipTrunks.GetByAccount(cmd.Context(), acct, args[0])
			}
			if err != nil {
				return err
			}
			return printOne(a, t, sipTrunkFields)
		},
	}
	a.propertyFlag(c.Flags(), &prop)
	c.Flags().StringVar(&acct, "account", "", "account SID (default your own when neither --property nor $TELCO_PROPERTY_SID); not with --property")
	return c
}

// ---- porting ----

func (a *app) portingCmd() *cobra.Command {
	return a.group("porting", "Submit porting requests and read their status", a.portingSubmitCmd(), a.portingStatusCmd())
}

func (a *app) portingSubmitCmd() *cobra.Command {
	var p telco.PortingRequestParams
	var prop, schedule, date string
	var numbers []string
	var num telco.PortingNumberParams
	c := &cobra.Command{
		Use:   "submit --property SID --contact-name ... --number E164 ...",
		Short: "Submit a porting request",
		Example: `  telco porting submit --property PR... --contact-name "Jo Citizen" --contact-email jo@example.com \
    --contact-number +61299999999 --carrier Telstra --carrier-account 12345 --schedule asap \
    --number +61299999999 --port-address "1 Example St, Sydney NSW 2000"`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			switch strings.ToLower(schedule) {
			case "asap":
				p.PreferredPortSchedule = telco.PortASAP
			case "date":
				p.PreferredPortSchedule = telco.PortOnDate
			case "":
			default:
				return usagef("--schedule must be asap or date, not %q", schedule)
			}
			if date != "" {
				d, err := time.Parse(time.DateOnly, date)
				if err != nil {
					return usagef("--date must be YYYY-MM-DD, not %q", date)
				}
				p.PreferredPortDate = d
			}
			for _, n := range numbers {
				pn := num
				pn.Number = n
				p.PortingNumbers = append(p.PortingNumbers, pn)
			}
			c, err := a.getClient()
			if err != nil {
				return err
			}
			pr, err := c.Porting.Submit(cmd.Context(), prop, &p)
			if err != nil {
				return err
			}
			return printOne(a, pr, portingCols)
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&p.AuthorisedContactName, "contact-name", "", "authorised contact name (required)")
	fs.StringVar(&p.AuthorisedContactEmail, "contact-email", "", "authorised contact e-mail (required)")
	fs.StringVar(&p.DaytimeContactNumber, "contact-number", "", "daytime contact number (required)")
	fs.StringVar(&p.CurrentCarrier, "carrier", "", "current carrier (required)")
	fs.StringVar(&p.CurrentCarrierAccountNo, "carrier-account", "", "account number at the current carrier (required)")
	fs.StringVar(&schedule, "schedule", "", "asap or date (required)")
	fs.StringVar(&date, "date", "", "preferred port date YYYY-MM-DD, with --schedule date")
	fs.StringVar(&p.CustomerDescription, "description", "", "description")
	fs.StringVar(&p.WebhookURL, "webhook-url", "", "URL called on each status change")
	fs.StringSliceVar(&numbers, "number", nil, "E.164 number to port (repeatable)")
	fs.StringVar(&num.PortType, "port-type", telco.PortTypeCatA, "port type of the numbers")
	fs.StringVar(&num.PortAddress, "port-address", "", "service address of the numbers")
	fs.StringVar(&num.IncomingActionType, "incoming-action", "", `"Answering Point" or "Flow"`)
	fs.StringVar(&num.IncomingActionID, "incoming-action-id", "", "flow ID, with --incoming-action Flow")
	fs.StringVar(&num.IncomingAnswerPoint, "incoming-answer-point", "", `answering point, with --incoming-action "Answering Point"`)
	return c
}

func (a *app) portingStatusCmd() *cobra.Command {
	var lf listFlags
	var prop, acct, since, until string
	var numbers []string
	c := &cobra.Command{
		Use:   "status [--property SID | --account SID] [--since T] [--until T]",
		Short: "List porting requests and their status, by project or else by account",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			from, err := parseTime("since", since, now)
			if err != nil {
				return err
			}
			to, err := parseTime("until", until, now)
			if err != nil {
				return err
			}
			p := telco.PortingStatusParams{From: from, To: to, PortingRequestNumbers: numbers, ListParams: lf.params()}
			c, err := a.getClient()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			prop, acct, err := a.scope(prop, acct)
			if err != nil {
				return err
			}
			if lf.all {
				if prop != "" {
					return printAll(a, c.Porting.StatusByPropertyAll(ctx, prop, &p), portingCols, nil)
				}
				return printAll(a, c.Porting.StatusByAccountAll(ctx, acct, &p), portingCols, nil)
			}
			var page *telco.Page[telco.PortingRequest]
			if prop != "" {
				page, err = c.Porting.StatusByProperty(ctx, prop, &p)
			} else {
				page, err = c.Porting.StatusByAccount(ctx, acct, &p)
			}
			if err != nil {
				return err
			}
			return printList(a, page, page.Items, portingCols)
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&acct, "account", "", "account SID (default your own when neither --property nor $TELCO_PROPERTY_SID); not with --property")
	fs.StringVar(&since, "since", "-720h", "from this time (RFC 3339, YYYY-MM-DD, Unix seconds, now, or -24h)")
	fs.StringVar(&until, "until", "+1h", "to this time")
	fs.StringSliceVar(&numbers, "porting-no", nil, "only these porting request numbers (repeatable)")
	lf.add(fs)
	return c
}

// ---- addresses ----

func (a *app) addressesCmd() *cobra.Command {
	return a.group("addresses", "Create and delete addresses", a.addressCreateCmd(), a.addressDeleteCmd())
}

func (a *app) addressCreateCmd() *cobra.Command {
	var p telco.CreateAddressParams
	var acct string
	c := &cobra.Command{
		Use:     "create --line1 L --city C --country CC",
		Short:   "Create an address on the account",
		Example: `  telco addresses create --line1 "1 Example St" --city Sydney --region NSW --postal-code 2000 --country AU`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.getClient()
			if err != nil {
				return err
			}
			addr, err := c.Addresses.Create(cmd.Context(), firstNonEmpty(acct, a.account()), &p)
			if err != nil {
				return err
			}
			return printOne(a, addr, addressCols)
		},
	}
	fs := c.Flags()
	fs.StringVar(&acct, "account", "", "account SID (default your own)")
	fs.StringVar(&p.Line1, "line1", "", "first line (required)")
	fs.StringVar(&p.Line2, "line2", "", "second line")
	fs.StringVar(&p.City, "city", "", "city (required)")
	fs.StringVar(&p.Region, "region", "", "state or region")
	fs.StringVar(&p.PostalCode, "postal-code", "", "postal code")
	fs.StringVar(&p.CountryCode, "country", "", "two-letter country code (required)")
	fs.StringVar(&p.Friendly, "friendly", "", "friendly name")
	fs.StringVar(&p.Reference, "reference", "", "your reference")
	return c
}

func (a *app) addressDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete ADDRESS_SID",
		Short: "Delete an address (refused while a number relies on it)",
		Args:  exactArgs(1, "one ADDRESS_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.getClient()
			if err != nil {
				return err
			}
			if err := c.Addresses.Delete(cmd.Context(), args[0]); err != nil {
				return err
			}
			if a.jsonOut() {
				return printJSON(a.stdout, map[string]any{"AddressSid": args[0], "Deleted": true})
			}
			fmt.Fprintln(a.stdout, "deleted", args[0])
			return nil
		},
	}
}

// ---- lookup ----

func (a *app) lookupCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "lookup NUMBER...",
		Short:   "Look numbers up in the numbering regulator's database",
		Example: `  telco lookup +61299999999 0298765432`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("lookup takes at least one NUMBER")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.getClient()
			if err != nil {
				return err
			}
			ds, err := c.Lookup.NumberDetails(cmd.Context(), args...)
			if err != nil {
				return err
			}
			return printList(a, ds, ds, numberDetailCols)
		},
	}
}
