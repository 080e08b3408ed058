package main

// The commands of the service's pages beyond the interface document that
// change things: login and SIP trunk updates (merge patches: only the flags
// given are sent), and buying and routing number blocks.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

func (a *app) loginUpdateCmd() *cobra.Command {
	var perms []string
	var password string
	var passwordStdin, noPerms bool
	c := &cobra.Command{
		Use:   "update ONLINE_LOGIN_SID [flags]",
		Short: "Change a portal login: only the flags given are sent (merge patch)",
		Long: `Change a portal login. Only the flags given are sent, and only they change.

--permission OWNER=SCOPES, repeatable, replaces ALL the login's permissions:
OWNER is account:SID or property:SID (one or the other per permission), SCOPES
a comma-separated list, e.g. --permission property:PR...=Reporting,ManageSms.
--no-permissions removes them all.

A new password is read from --password-stdin (the first line of standard
input), else --password (visible to other users of this machine: avoid it).
It is never printed.

  telco logins update 3f2b8c1e-... --first-name Jane --enabled=false`,
		Args: exactArgs(1, "one ONLINE_LOGIN_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			p := telco.UpdateOnlineLoginParams{Email: optString(fs, "email"), FirstName: optString(fs, "first-name"),
				LastName: optString(fs, "last-name"), Enabled: optBool(fs, "enabled")}
			if passwordStdin || fs.Changed("password") {
				pw, err := a.secret("password", password, "", passwordStdin)
				if err != nil {
					return err
				}
				p.Password = pw
			}
			switch {
			case noPerms && len(perms) > 0:
				return usagef("give --permission or --no-permissions, not both")
			case noPerms:
				p.Permissions = []telco.Permission{}
			}
			for _, s := range perms {
				pm, err := parsePermission(s)
				if err != nil {
					return err
				}
				p.Permissions = append(p.Permissions, pm)
			}
			if p.Email == nil && p.FirstName == nil && p.LastName == nil && p.Enabled == nil && p.Password == "" && p.Permissions == nil {
				return usagef("logins update: give at least one field to change")
			}
			return runCall(a, func(c *telco.Client) (*telco.OnlineLogin, error) {
				if err := c.OnlineLogins.Update(cmd.Context(), args[0], &p); err != nil {
					return nil, err
				}
				return c.OnlineLogins.Get(cmd.Context(), args[0]) // the whole login, as get shows it
			}, showOne(a, loginCols))
		},
	}
	fs := c.Flags()
	fs.String("email", "", "e-mail address, the user name")
	fs.String("first-name", "", "first name")
	fs.String("last-name", "", "last name")
	fs.Bool("enabled", false, "allow the login to log in")
	fs.StringArrayVar(&perms, "permission", nil, "account:SID=SCOPES or property:SID=SCOPES (repeatable; replaces all)")
	fs.BoolVar(&noPerms, "no-permissions", false, "remove every permission")
	fs.StringVar(&password, "password", "", "new password (prefer --password-stdin)")
	fs.BoolVar(&passwordStdin, "password-stdin", false, "read the new password from the first line of standard input")
	return c
}

// parsePermission reads account:SID=SCOPES or property:SID=SCOPES.
func parsePermission(s string) (telco.Permission, error) {
	owner, scopes, ok := strings.Cut(s, "=")
	kind, sid, ok2 := strings.Cut(owner, ":")
	sid = strings.TrimSpace(sid)
	if !ok || !ok2 || sid == "" {
		return telco.Permission{}, usagef("--permission %q: want account:SID=SCOPES or property:SID=SCOPES", s)
	}
	p := telco.Permission{Scopes: telco.ParseScopes(scopes)}
	switch strings.ToLower(strings.TrimSpace(kind)) {
	case "account":
		p.AccountSid = sid
	case "property", "project":
		p.PropertySid = sid
	default:
		return telco.Permission{}, usagef("--permission %q: the owner is account:SID or property:SID", s)
	}
	return p, nil
}

func (a *app) sipUpdateCmd() *cobra.Command {
	var prop, acct, typ, realm, password string
	var passwordStdin bool
	c := &cobra.Command{
		Use:   "update SIP_TRUNK_SID [--property SID | --account SID] [flags]",
		Short: "Change a SIP trunk: only the flags given are sent (merge patch)",
		Long: `Change a SIP trunk, by project (--property) or else by account. Only the flags
given are sent, and only they change; --ip and --country replace the trunk's
whole list. A new password is read from --password-stdin (the first line of
standard input), else --password (visible to other users of this machine). It
is never printed.

The service's page for this operation names PATCH in one capture and PUT in
another; the tool sends PATCH with a merge patch. Should the service refuse it,
'telco api PUT' sends a whole trunk.

  telco sip-trunks update ST... --channels 4 --ip 8.8.8.0/24`,
		Args: exactArgs(1, "one SIP_TRUNK_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			p := telco.UpdateSipTrunkParams{Name: optString(fs, "name"), DefaultCallerID: optString(fs, "caller-id"),
				CustomerReference: optString(fs, "reference")}
			if fs.Changed("type") {
				t, err := parseTrunkType(typ)
				if err != nil {
					return err
				}
				p.Type = &t
			}
			if fs.Changed("ip") {
				p.IPAddresses, _ = fs.GetStringSlice("ip")
			}
			if fs.Changed("country") {
				p.AllowedCountries, _ = fs.GetStringSlice("country")
			}
			if fs.Changed("channels") {
				n, _ := fs.GetInt("channels")
				p.ChannelLimit = &n
			}
			var pw string
			if passwordStdin || fs.Changed("password") {
				var err error
				if pw, err = a.secret("SIP password", password, "", passwordStdin); err != nil {
					return err
				}
			}
			if pw != "" || realm != "" {
				p.Credentials = &telco.SipCredentials{Realm: realm, Password: pw}
			}
			if p.Name == nil && p.DefaultCallerID == nil && p.CustomerReference == nil && p.Type == nil && p.IPAddresses == nil &&
				p.AllowedCountries == nil && p.ChannelLimit == nil && p.Credentials == nil {
				return usagef("sip-trunks update: give at least one field to change")
			}
			return runCall(a, func(c *telco.Client) (*telco.SipTrunk, error) {
				prop, acct, err := a.scope(prop, acct)
				if err != nil {
					return nil, err
				}
				if prop != "" {
					if err := c.SipTrunks.Update(cmd.Context(), prop, args[0], &p); err != nil {
						return nil, err
					}
					return c.SipTrunks.GetByProperty(cmd.Context(), prop, args[0])
				}
				if err := c.SipTrunks.UpdateByAccount(cmd.Context(), acct, args[0], &p); err != nil {
					return nil, err
				}
				return c.SipTrunks.GetByAccount(cmd.Context(), acct, args[0])
			}, showOne(a, sipTrunkFields))
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&acct, "account", "", "account SID (default your own when neither --property nor $TELCO_PROPERTY_SID); not with --property")
	fs.String("name", "", "trunk name")
	fs.String("caller-id", "", "default caller ID, an Australian E.164 number")
	fs.StringVar(&typ, "type", "", "ip (IP to IP) or auth (authenticated)")
	fs.StringSlice("ip", nil, "allowed IPv4 address or CIDR /24 to /32 (repeatable; replaces the list)")
	fs.StringVar(&realm, "realm", "", "credentials realm")
	fs.StringVar(&password, "password", "", "new password (prefer --password-stdin)")
	fs.BoolVar(&passwordStdin, "password-stdin", false, "read the new password from the first line of standard input")
	fs.StringSlice("country", nil, "allowed country code (repeatable; replaces the list)")
	fs.Int("channels", 0, "channel limit, at least 1")
	fs.String("reference", "", "your reference")
	_ = c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{"ip", "auth"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func (a *app) blockPurchaseCmd() *cobra.Command {
	var p telco.PurchaseNumberBlockParams
	var prop string
	var fields []string
	c := &cobra.Command{
		Use:   "purchase --property SID --answer-point NUMBER [flags]",
		Short: "Buy a number block for a project (not retried once it may have reached the service)",
		Long: `Buy a number block for a project. A purchase that fails after it may have
reached the service is not repeated: check with list-by-property before buying
again. --field KEY=JSON sends a field the tool has no flag for (the service's
page lists more than it shows).`,
		Example: `  telco number-blocks purchase --property PR... --answer-point 0299990000`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			fs := cmd.Flags()
			for _, f := range []struct {
				name string
				dst  **int
			}{{"group-type", &p.GroupType}, {"preamble", &p.Preamble}, {"routing-action", &p.RoutingAction}} {
				if fs.Changed(f.name) {
					n, _ := fs.GetInt(f.name)
					*f.dst = &n
				}
			}
			for _, kv := range fields {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || strings.TrimSpace(k) == "" {
					return usagef("--field %q: want KEY=JSON", kv)
				}
				var val any
				if json.Unmarshal([]byte(v), &val) != nil {
					val = v // a bare word is a string
				}
				if p.Extra == nil {
					p.Extra = map[string]any{}
				}
				p.Extra[strings.TrimSpace(k)] = val
			}
			return runCall(a, func(c *telco.Client) (*telco.NumberBlockResult, error) {
				return c.NumberBlocks.Purchase(cmd.Context(), prop, &p)
			}, a.printBlockResult)
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&p.AnswerPoint, "answer-point", "", "where the block's calls are answered (required)")
	fs.StringVar(&p.AccountSid, "account", "", "owning account SID (default: the project owns it)")
	fs.Int("group-type", 0, "GroupType, 0 or 1")
	fs.Int("preamble", 0, "Preamble, 0 to 2")
	fs.Int("routing-action", 0, "RoutingAction, 0 to 3")
	fs.StringVar(&p.Dialplan, "dialplan", "", "dial plan (sent as Diaplan)")
	fs.StringArrayVar(&fields, "field", nil, "KEY=JSON, another field to send (repeatable)")
	return c
}

func (a *app) blockConfigureCmd() *cobra.Command {
	var p telco.ConfigureNumberBlockParams
	var method string
	c := &cobra.Command{
		Use:   "configure NUMBER_BLOCK_SID --routing endpoint|flow|application [flags]",
		Short: "Route a number block's calls to an endpoint, a flow or an application",
		Long: `Route a number block's calls: --routing endpoint with --endpoint (an Australian
number), flow with --flow (a flow's ConfigId), or application with
--application.

  telco number-blocks configure NB... --routing endpoint --endpoint 0299990000`,
		Args: exactArgs(1, "one NUMBER_BLOCK_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.RoutingMethod = telco.BlockRoutingMethod(method)
			return runCall(a, func(c *telco.Client) (*telco.NumberBlockResult, error) {
				return c.NumberBlocks.Configure(cmd.Context(), args[0], &p)
			}, a.printBlockResult)
		},
	}
	fs := c.Flags()
	fs.StringVar(&method, "routing", "", "endpoint, flow or application (required)")
	fs.StringVar(&p.EndpointNumber, "endpoint", "", "answering point, for --routing endpoint")
	fs.StringVar(&p.Flow, "flow", "", "flow ConfigId, for --routing flow")
	fs.StringVar(&p.Application, "application", "", "application, for --routing application")
	_ = c.RegisterFlagCompletionFunc("routing", cobra.FixedCompletions([]string{"endpoint", "flow", "application"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// printBlockResult shows a purchase's or configuration's answer, whose
// shape the service does not document: -o json prints the SDK's
// NumberBlockResult, whose Raw holds the answer as the service sent it; a
// table shows the block when the answer holds one, else its SID.
func (a *app) printBlockResult(r *telco.NumberBlockResult) error {
	if a.jsonOut() {
		return printJSON(a.stdout, r)
	}
	if r.Block != nil {
		return printOne(a, r.Block, numberBlockCols)
	}
	if r.NumberBlockSid != "" {
		fmt.Fprintln(a.stdout, r.NumberBlockSid)
		return nil
	}
	fmt.Fprintln(a.stdout, "done; the answer named no block ("+strconv.Itoa(len(r.Raw))+" bytes; -o json shows it)")
	return nil
}
