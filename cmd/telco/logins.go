package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// loginsCmd is "telco logins", over the SDK's OnlineLogins service.
func (a *app) loginsCmd() *cobra.Command {
	return a.group("logins", "Create, read, list and update portal logins", a.loginCreateCmd(), a.loginGetCmd(), a.loginListCmd(),
		a.loginUpdateCmd())
}

func (a *app) loginCreateCmd() *cobra.Command {
	var p telco.CreateOnlineLoginParams
	var prop, password, scopes string
	var passwordStdin bool
	c := &cobra.Command{
		Use:         "create --property SID --email EMAIL --scopes a,b [--password-stdin]",
		Annotations: ops("OnlineLogins.Create"),
		Short:       "Create a portal login on a project",
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
			if p.Scopes, err = parseScopes(scopes); err != nil {
				return err
			}
			return runCall(a, func(c *telco.Client) (*telco.OnlineLogin, error) {
				return c.OnlineLogins.Create(cmd.Context(), prop, &p)
			}, showOne(a, loginCols))
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
	completeList(c, "scopes", scopeNames()...)
	fieldFlags(c, "Email", "email", "FirstName", "first-name", "LastName", "last-name", "Scopes", "scopes", "Password", "password")
	return c
}

// scopeNames are the scopes the service defines.
func scopeNames() []string {
	all := []telco.Scope{telco.ScopeManage, telco.ScopeReporting, telco.ScopeManageSms, telco.ScopeReportingSms,
		telco.ScopeIntegrations, telco.ScopeBilling, telco.ScopeProjectManagement, telco.ScopeUserManagement,
		telco.ScopeSipManagement, telco.ScopeProvisionSms, telco.ScopeOutboundCallReporting,
		telco.ScopeDisconnectNumbers, telco.ScopeAdmin}
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = string(s)
	}
	return out
}

// parseScopes reads a comma-separated list of scopes in any case.
func parseScopes(list string) (telco.Scopes, error) {
	var out telco.Scopes
	for _, s := range telco.ParseScopes(list) {
		v, err := enum("scopes", string(s), scopeNames()...)
		if err != nil {
			return nil, err
		}
		out = append(out, telco.Scope(v))
	}
	return out, nil
}

func (a *app) loginGetCmd() *cobra.Command {
	return getCmd(a, "OnlineLogins.Get", "get ONLINE_LOGIN_SID", "Show a portal login", "ONLINE_LOGIN_SID", loginCols,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.OnlineLogin, error) {
			return c.OnlineLogins.Get(ctx, sid)
		})
}

func (a *app) loginListCmd() *cobra.Command {
	return listCmd(a, "OnlineLogins.List", "List the account's portal logins", loginCols,
		func(c *telco.Client) pager[telco.OnlineLogin] { return c.OnlineLogins })
}

// loginCols are a portal login's columns.
var loginCols = []column[telco.OnlineLogin]{
	{name: "ONLINE LOGIN SID", get: func(l *telco.OnlineLogin) string { return l.OnlineLoginSid }},
	{name: "EMAIL", get: func(l *telco.OnlineLogin) string { return l.Email }},
	{name: "NAME", get: func(l *telco.OnlineLogin) string { return strings.TrimSpace(l.FirstName + " " + l.LastName) }},
	{name: "ENABLED", get: func(l *telco.OnlineLogin) string { return yesNo(l.Enabled) }},
	{name: "CREATED", at: func(l *telco.OnlineLogin) time.Time { return timeOf(l.Created) }},
	{name: "PERMISSIONS", get: func(l *telco.OnlineLogin) string {
		parts := make([]string, 0, len(l.Permissions))
		for _, p := range l.Permissions {
			parts = append(parts, firstNonEmpty(p.PropertySid, p.AccountSid)+":"+p.Scopes.String())
		}
		return strings.Join(parts, " ")
	}},
}

func (a *app) loginUpdateCmd() *cobra.Command {
	var perms []string
	var password string
	var passwordStdin, noPerms bool
	c := &cobra.Command{
		Use:         "update ONLINE_LOGIN_SID [flags]",
		Annotations: ops("OnlineLogins.Update", "OnlineLogins.Get"),
		Short:       "Change a portal login: only the flags given are sent (merge patch)",
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
