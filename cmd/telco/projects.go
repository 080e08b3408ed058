package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// projectsCmd is "telco projects", over the SDK's Properties service.
func (a *app) projectsCmd() *cobra.Command {
	return a.group("projects", "Create, read, list and update projects (properties)",
		a.projectCreateCmd(), a.projectGetCmd(), a.projectListCmd(), a.projectUpdateCmd())
}

func (a *app) projectCreateCmd() *cobra.Command {
	var p telco.CreatePropertyParams
	c := &cobra.Command{
		Use:         "create --name NAME --domain DOMAIN --time-zone ZONE",
		Annotations: ops("Properties.Create"),
		Short:       "Create a project",
		Example:     `  telco projects create --name "Acme AU" --domain acme.example --time-zone Australia/Sydney --sms`,
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.Active = optBool(cmd.Flags(), "active")
			var err error
			if p.TimeZone, err = a.timeZone(p.TimeZone); err != nil {
				return err
			}
			return runCall(a, func(c *telco.Client) (*telco.Property, error) {
				return c.Properties.Create(cmd.Context(), &p)
			}, showOne(a, propertyCols))
		},
	}
	fs := c.Flags()
	fs.StringVar(&p.Name, "name", "", "project name (required)")
	fs.StringVar(&p.MainDomain, "domain", "", "main domain (required)")
	fs.StringVar(&p.TimeZone, "time-zone", "", timeZoneHelp+" (required)")
	fs.BoolVar(&p.SmsEnabled, "sms", false, "enable SMS")
	fs.BoolVar(&p.CallRecordingEnabled, "call-recording", false, "enable call recording")
	fs.BoolVar(&p.IntegrationsEnabled, "integrations", false, "enable integrations")
	fs.Bool("active", true, "create active (the service default)")
	fieldFlags(c, projectFieldFlags...)
	return c
}

// projectFieldFlags are the flags of a project's fields.
var projectFieldFlags = []string{"Name", "name", "MainDomain", "domain", "TimeZone", "time-zone"}

func (a *app) projectGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "get [PROPERTY_SID]",
		Annotations: ops("Properties.Get"),
		Short:       "Show a project (default $TELCO_PROPERTY_SID, else the profile's default project)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("%s takes at most one PROPERTY_SID", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			sid := ""
			if len(args) == 1 {
				sid = args[0]
			}
			sid, err := a.property(sid)
			if err != nil {
				return usagef("give a PROPERTY_SID, set TELCO_PROPERTY_SID, or save a default project with 'telco login --property PR...'")
			}
			return runCall(a, func(c *telco.Client) (*telco.Property, error) {
				return c.Properties.Get(cmd.Context(), sid)
			}, showOne(a, propertyCols))
		},
	}
}

func (a *app) projectListCmd() *cobra.Command {
	return listCmd(a, "Properties.List", "List the account's projects", propertyCols,
		func(c *telco.Client) pager[telco.Property] { return c.Properties })
}

func (a *app) projectUpdateCmd() *cobra.Command {
	c := &cobra.Command{
		Use:         "update PROPERTY_SID [flags]",
		Annotations: ops("Properties.Update", "Properties.Get"),
		Short:       "Change a project: only the flags given are sent (merge patch)",
		Example:     `  telco projects update PR... --sms=false --name "Acme (old)"`,
		Args:        exactArgs(1, "one PROPERTY_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			p := telco.UpdatePropertyParams{
				Name: optString(fs, "name"), MainDomain: optString(fs, "domain"), TimeZone: optString(fs, "time-zone"),
				SmsEnabled: optBool(fs, "sms"), CallRecordingEnabled: optBool(fs, "call-recording"),
				IntegrationsEnabled: optBool(fs, "integrations"), Active: optBool(fs, "active"),
			}
			if p.TimeZone != nil {
				tz, err := a.timeZone(*p.TimeZone)
				if err != nil {
					return err
				}
				p.TimeZone = &tz
			}
			if p == (telco.UpdatePropertyParams{}) {
				return usagef("projects update: give at least one field to change")
			}
			return runCall(a, func(c *telco.Client) (*telco.Property, error) {
				if err := c.Properties.Update(cmd.Context(), args[0], &p); err != nil {
					return nil, err
				}
				return c.Properties.Get(cmd.Context(), args[0]) // the whole project, as create shows it
			}, showOne(a, propertyCols))
		},
	}
	fs := c.Flags()
	fs.String("name", "", "project name")
	fs.String("domain", "", "main domain")
	fs.String("time-zone", "", timeZoneHelp)
	fs.Bool("sms", false, "SMS enabled")
	fs.Bool("call-recording", false, "call recording enabled")
	fs.Bool("integrations", false, "integrations enabled")
	fs.Bool("active", false, "active")
	fieldFlags(c, projectFieldFlags...)
	return c
}

// timeZoneHelp is the help of --time-zone.
const timeZoneHelp = `Windows time zone ID ("AUS Eastern Standard Time"), or an IANA name (Australia/Sydney), sent as its Windows ID; any other name is refused before sending`

// legacyWindowsZones are Windows IDs that the CLDR table no longer lists
// (Windows retired them, but keeps them for old settings) and that the
// service still takes, as telcotest does.
var legacyWindowsZones = []string{"Mid-Atlantic Standard Time", "Kamchatka Standard Time"}

// timeZone is --time-zone as the service takes it: a Windows ID as it is
// (any case), an IANA name as the Windows ID of the SDK's table
// (telco.WindowsZone), said on standard error. Anything else is a usage
// error before any request, with the nearest names when one is close: a
// misspelt zone would otherwise cost a round trip to be refused, or worse,
// be taken for another. "" is left to the SDK's check of required fields.
func (a *app) timeZone(v string) (string, error) {
	z := strings.TrimSpace(v)
	switch {
	case z == "":
		return v, nil
	case isWindowsZone(z):
		return z, nil
	}
	if id, ok := telco.WindowsZone(z); ok {
		fmt.Fprintf(a.stderr, "telco: sent %s for %s\n", id, z)
		return id, nil
	}
	known := append(append(telco.IANAZones(), telco.WindowsZones()...), legacyWindowsZones...)
	if near := closest(z, known); len(near) > 0 {
		return "", usagef("--time-zone: unknown time zone %q; did you mean %s?", z, strings.Join(near, " or "))
	}
	return "", usagef(`--time-zone: unknown time zone %q: give a Windows time zone ID ("AUS Eastern Standard Time") or an IANA name (Australia/Sydney)`, z)
}

// isWindowsZone says whether id is a Windows time zone ID the service
// takes, in any case.
func isWindowsZone(id string) bool {
	if _, ok := telco.IANAZone(id); ok {
		return true
	}
	for _, legacy := range legacyWindowsZones {
		if strings.EqualFold(legacy, id) {
			return true
		}
	}
	return false
}

// propertyCols are a project's columns.
var propertyCols = []column[telco.Property]{
	{name: "PROPERTY SID", get: func(p *telco.Property) string { return p.PropertySid }},
	{name: "NAME", get: func(p *telco.Property) string { return p.Name }},
	{name: "DOMAIN", get: func(p *telco.Property) string { return p.MainDomain }},
	{name: "TIME ZONE", get: func(p *telco.Property) string { return p.TimeZone }},
	{name: "SMS", get: func(p *telco.Property) string { return yesNo(p.SmsEnabled) }},
	{name: "RECORDING", get: func(p *telco.Property) string { return yesNo(p.CallRecordingEnabled) }},
	{name: "INTEGRATIONS", get: func(p *telco.Property) string { return yesNo(p.IntegrationsEnabled) }},
	{name: "ACTIVE", get: func(p *telco.Property) string { return yesNo(p.Active) }},
}
