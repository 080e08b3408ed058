package main

import (
	"context"
	"strings"

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
	return getCmd(a, "get ONLINE_LOGIN_SID", "Show a portal login", "ONLINE_LOGIN_SID", loginCols,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.OnlineLogin, error) {
			return c.OnlineLogins.Get(ctx, sid)
		})
}

func (a *app) loginListCmd() *cobra.Command {
	return listCmd(a, "List the account's portal logins", loginCols,
		func(c *telco.Client) pager[telco.OnlineLogin] { return c.OnlineLogins })
}

// loginCols are a portal login's columns.
var loginCols = []column[telco.OnlineLogin]{
	{"ONLINE LOGIN SID", func(l *telco.OnlineLogin) string { return l.OnlineLoginSid }},
	{"EMAIL", func(l *telco.OnlineLogin) string { return l.Email }},
	{"NAME", func(l *telco.OnlineLogin) string { return strings.TrimSpace(l.FirstName + " " + l.LastName) }},
	{"ENABLED", func(l *telco.OnlineLogin) string { return yesNo(l.Enabled) }},
	{"CREATED", func(l *telco.OnlineLogin) string { return ts(l.Created) }},
	{"PERMISSIONS", func(l *telco.OnlineLogin) string {
		parts := make([]string, 0, len(l.Permissions))
		for _, p := range l.Permissions {
			parts = append(parts, firstNonEmpty(p.PropertySid, p.AccountSid)+":"+p.Scopes.String())
		}
		return strings.Join(parts, " ")
	}},
}
