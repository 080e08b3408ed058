package main

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// sipTrunksCmd is "telco sip-trunks", over the SDK's SipTrunks service.
func (a *app) sipTrunksCmd() *cobra.Command {
	return a.group("sip-trunks", "Create, list, read and update SIP trunks", a.sipCreateCmd(), a.sipListCmd(), a.sipGetCmd(),
		a.sipUpdateCmd())
}

func (a *app) sipCreateCmd() *cobra.Command {
	var p telco.CreateSipTrunkParams
	var prop, typ, realm, password string
	var passwordStdin bool
	c := &cobra.Command{
		Use:         "create --property SID --name NAME --caller-id E164 --type ip|auth ...",
		Annotations: ops("SipTrunks.Create"),
		Short:       "Create a SIP trunk and print its SID",
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
			if p.Type == telco.SipTrunkIPToIP {
				// An IP trunk admits by address: a password would be stored
				// and never asked for.
				switch {
				case password != "" || passwordStdin:
					return usagef("--type ip takes no password (an IP-to-IP trunk admits callers by --ip): leave out --password and --password-stdin, or use --type auth")
				case a.env("TELCO_SIP_PASSWORD") != "":
					return usagef("--type ip takes no password, but TELCO_SIP_PASSWORD is set: unset it, or use --type auth")
				case realm != "":
					return usagef("--type ip takes no --realm: credentials are for --type auth")
				}
			}
			pw, err := a.secret("SIP password", password, "TELCO_SIP_PASSWORD", passwordStdin)
			if err != nil {
				return err
			}
			if pw != "" || realm != "" {
				p.Credentials = &telco.SipCredentials{Realm: realm, Password: pw}
			}
			return runCall(a, func(c *telco.Client) (string, error) {
				return c.SipTrunks.Create(cmd.Context(), prop, &p)
			}, func(sid string) error {
				if a.jsonOut() {
					return a.printJSON(a.stdout, map[string]string{"SipTrunkSid": sid})
				}
				fmt.Fprintln(a.stdout, sid)
				return nil
			})
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
	completeEnum(c, "type", "ip", "auth")
	fieldFlags(c, "Name", "name", "DefaultCallerId", "caller-id", "Type", "type", "SipTrunkIpAddresses", "ip",
		"SipTrunkIpAddresses[].IpAddress", "ip", "SipTrunkCredentials", "password", "SipTrunkCredentials.Password", "password",
		"SipTrunkCredentials.Realm", "realm", "SipTrunkAllowedCountries[].CountryCode", "country", "ChannelLimit", "channels",
		"CustomerReference", "reference")
	return c
}

func (a *app) sipListCmd() *cobra.Command {
	var lf listFlags
	var prop, typ string
	var state string
	c := &cobra.Command{
		Use:         "list --property SID",
		Annotations: ops("SipTrunks.List"),
		Short:       "List a project's SIP trunks",
		Args:        exactArgs(0, "no arguments"),
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
			if state != "" {
				s, err := parseProvisioningState(state)
				if err != nil {
					return err
				}
				p.ProvisioningState = &s
			}
			return runList(a, lf.all, sipTrunkCols, nil,
				func(c *telco.Client) (any, []telco.SipTrunk, error) {
					return pageOf(c.SipTrunks.List(cmd.Context(), prop, &p))
				},
				func(c *telco.Client) iter.Seq2[telco.SipTrunk, error] {
					return c.SipTrunks.ListAll(cmd.Context(), prop, &p)
				})
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	lf.add(fs)
	fs.StringVar(&typ, "type", "", "only ip or auth trunks")
	fs.Bool("active", false, "only active (true) or inactive (false) trunks")
	fs.StringVar(&state, "state", "", "only this provisioning state: Inactive, Provisioning, Active or Deprovisioning (or 0 to 3)")
	completeEnum(c, "type", "ip", "auth")
	completeEnum(c, "state", provisioningStates()...)
	fieldFlags(c, "Type", "type", "ProvisioningState", "state")
	return c
}

func (a *app) sipGetCmd() *cobra.Command {
	var prop, acct string
	c := &cobra.Command{
		Use:         "get SIP_TRUNK_SID [--property SID | --account SID]",
		Annotations: ops("SipTrunks.GetByProperty", "SipTrunks.GetByAccount"),
		Short:       "Show a SIP trunk with its details, by project (--property) or else by account",
		Args:        exactArgs(1, "one SIP_TRUNK_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCall(a, func(c *telco.Client) (*telco.SipTrunk, error) {
				prop, acct, err := a.scope(prop, acct)
				switch {
				case err != nil:
					return nil, err
				case prop != "":
					return c.SipTrunks.GetByProperty(cmd.Context(), prop, args[0])
				}
				return c.SipTrunks.GetByAccount(cmd.Context(), acct, args[0])
			}, showOne(a, sipTrunkFields))
		},
	}
	a.propertyFlag(c.Flags(), &prop)
	c.Flags().StringVar(&acct, "account", "", "account SID (default your own when no project is given by --property, $TELCO_PROPERTY_SID or the profile); not with --property")
	return c
}

func parseTrunkType(s string) (telco.SipTrunkType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ip", "ip-to-ip", "0":
		return telco.SipTrunkIPToIP, nil
	case "auth", "authenticated", "1":
		return telco.SipTrunkAuthenticated, nil
	}
	return 0, usagef("--type must be one of ip, auth (not %q)", s)
}

func provisioningStates() []string {
	var out []string
	for s := telco.ProvisioningInactive; s <= telco.ProvisioningDeprovisioning; s++ {
		out = append(out, s.String())
	}
	return out
}

// parseProvisioningState reads a state by name, in any case, or number.
func parseProvisioningState(v string) (telco.ProvisioningState, error) {
	names := provisioningStates()
	for i := range names {
		if strings.TrimSpace(v) == itoa(i) {
			return telco.ProvisioningState(i), nil
		}
	}
	name, err := enum("state", v, names...)
	if err != nil {
		return 0, err
	}
	return telco.ProvisioningState(slices.Index(names, name)), nil
}

// sipTrunkCols are a SIP trunk's list columns; sipTrunkFields add its
// details, which only get returns.
var sipTrunkCols = []column[telco.SipTrunk]{
	{name: "SIP TRUNK SID", get: func(s *telco.SipTrunk) string { return s.SipTrunkSid }},
	{name: "NAME", get: func(s *telco.SipTrunk) string { return s.Name }},
	{name: "TYPE", get: func(s *telco.SipTrunk) string { return s.Type.String() }},
	{name: "CALLER ID", get: func(s *telco.SipTrunk) string { return s.DefaultCallerID }},
	{name: "CHANNELS", get: func(s *telco.SipTrunk) string { return itoa(s.ChannelLimit) }},
	{name: "STATE", get: func(s *telco.SipTrunk) string { return s.ProvisioningState.String() }},
	{name: "REFERENCE", get: func(s *telco.SipTrunk) string { return s.CustomerReference }},
	{name: "CREATED", at: func(s *telco.SipTrunk) time.Time { return timeOf(s.Created) }},
}

var sipTrunkFields = append(append([]column[telco.SipTrunk]{}, sipTrunkCols...),
	column[telco.SipTrunk]{name: "IP ADDRESSES", get: func(s *telco.SipTrunk) string {
		var out []string
		for _, a := range s.SipTrunkIPAddresses {
			out = append(out, a.IPAddress)
		}
		return strings.Join(out, " ")
	}},
	column[telco.SipTrunk]{name: "REALM", get: func(s *telco.SipTrunk) string {
		if s.SipTrunkCredentials == nil {
			return ""
		}
		return s.SipTrunkCredentials.Realm
	}},
	column[telco.SipTrunk]{name: "COUNTRIES", get: func(s *telco.SipTrunk) string {
		var out []string
		for _, c := range s.SipTrunkAllowedCountries {
			out = append(out, c.CountryCode)
		}
		return strings.Join(out, " ")
	}},
	column[telco.SipTrunk]{name: "NUMBER RANGES", get: func(s *telco.SipTrunk) string {
		var out []string
		for _, r := range s.SipTrunkNumberRanges {
			out = append(out, r.StartNumber+"+"+itoa(r.Length))
		}
		return strings.Join(out, " ")
	}},
)

func (a *app) sipUpdateCmd() *cobra.Command {
	var prop, acct, typ, realm, password string
	var passwordStdin bool
	c := &cobra.Command{
		Use:         "update SIP_TRUNK_SID [--property SID | --account SID] [flags]",
		Annotations: ops("SipTrunks.Update", "SipTrunks.UpdateByAccount", "SipTrunks.GetByProperty", "SipTrunks.GetByAccount"),
		Short:       "Change a SIP trunk: only the flags given are sent (merge patch)",
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
	fs.StringVar(&acct, "account", "", "account SID (default your own when no project is given by --property, $TELCO_PROPERTY_SID or the profile); not with --property")
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
