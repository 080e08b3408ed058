package main

import (
	"bufio"
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// addressesCmd is "telco addresses", over the SDK's Addresses service.
func (a *app) addressesCmd() *cobra.Command {
	return a.group("addresses", "Create, list, read and delete addresses",
		a.addressCreateCmd(), a.addressListCmd(), a.addressGetCmd(), a.addressDeleteCmd())
}

func (a *app) addressCreateCmd() *cobra.Command {
	var p telco.CreateAddressParams
	var acct string
	c := &cobra.Command{
		Use:         "create --line1 L --city C --country CC",
		Annotations: ops("Addresses.Create"),
		Short:       "Create an address on the account",
		Example:     `  telco addresses create --line1 "1 Example St" --city Sydney --region NSW --postal-code 2000 --country AU`,
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCall(a, func(c *telco.Client) (*telco.Address, error) {
				return c.Addresses.Create(cmd.Context(), firstNonEmpty(acct, a.account()), &p)
			}, showOne(a, addressCols))
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
	fieldFlags(c, "Line1", "line1", "Line2", "line2", "City", "city", "Region", "region", "PostalCode", "postal-code",
		"CountryCode", "country", "Friendly", "friendly", "Reference", "reference")
	return c
}

func (a *app) addressDeleteCmd() *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:         "delete ADDRESS_SID",
		Annotations: ops("Addresses.Delete"),
		Short:       "Delete an address (refused while a number relies on it)",
		Long: `Delete an address. On a terminal it asks first; elsewhere (a script, a
pipe) it needs --yes, so that a deletion is never a surprise.`,
		Args: exactArgs(1, "one ADDRESS_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !yes {
				if !a.stdinTTY {
					return usagef("addresses delete needs --yes when standard input is not a terminal (nothing was deleted)")
				}
				ok, err := a.confirm(fmt.Sprintf("Delete address %s? This cannot be undone. [y/N] ", args[0]))
				if err != nil {
					return err
				}
				if !ok {
					return &exitError{code: exitUsage, msg: "not confirmed: nothing was deleted"}
				}
			}
			return runCall(a, func(c *telco.Client) (string, error) {
				return args[0], c.Addresses.Delete(cmd.Context(), args[0])
			}, func(sid string) error {
				if a.jsonOut() {
					return a.printJSON(a.stdout, map[string]any{"AddressSid": sid, "Deleted": true})
				}
				fmt.Fprintln(a.stdout, "deleted", sid)
				return nil
			})
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking")
	return c
}

// confirm asks question on standard error and reads the answer from
// standard input: yes or y, in any case, is yes.
func (a *app) confirm(question string) (bool, error) {
	fmt.Fprint(a.stderr, question)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(a.stderr)
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// addressCols are an address's columns.
var addressCols = []column[telco.Address]{
	{name: "ADDRESS SID", get: func(a *telco.Address) string { return a.AddressSid }},
	{name: "FRIENDLY", get: func(a *telco.Address) string { return a.Friendly }},
	{name: "REFERENCE", get: func(a *telco.Address) string { return a.Reference }},
	{name: "LINE 1", get: func(a *telco.Address) string { return a.Line1 }},
	{name: "LINE 2", get: func(a *telco.Address) string { return a.Line2 }},
	{name: "CITY", get: func(a *telco.Address) string { return a.City }},
	{name: "REGION", get: func(a *telco.Address) string { return a.Region }},
	{name: "POSTAL CODE", get: func(a *telco.Address) string { return a.PostalCode }},
	{name: "COUNTRY", get: func(a *telco.Address) string { return a.CountryCode }},
	{name: "STATUS", get: func(a *telco.Address) string { return a.Status }},
}

func (a *app) addressListCmd() *cobra.Command {
	var lf listFlags
	var acct string
	var p telco.ListAddressesParams
	c := &cobra.Command{
		Use:         "list [--city C] [--country CC] [...]",
		Annotations: ops("Addresses.List"),
		Short:       "List the account's addresses; each filter is an exact match",
		Example:     `  telco addresses list --city Sydney --country AU`,
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.ListParams = lf.params()
			return runList(a, lf.all, addressCols, nil,
				func(c *telco.Client) (any, []telco.Address, error) {
					return pageOf(c.Addresses.List(cmd.Context(), firstNonEmpty(acct, a.account()), &p))
				},
				func(c *telco.Client) iter.Seq2[telco.Address, error] {
					return c.Addresses.ListAll(cmd.Context(), firstNonEmpty(acct, a.account()), &p)
				})
		},
	}
	fs := c.Flags()
	fs.StringVar(&acct, "account", "", "account SID (default your own)")
	fs.StringVar(&p.Friendly, "friendly", "", "friendly name")
	fs.StringVar(&p.Reference, "reference", "", "your reference")
	fs.StringVar(&p.City, "city", "", "city")
	fs.StringVar(&p.Region, "region", "", "state or region")
	fs.StringVar(&p.CountryCode, "country", "", "country code")
	fs.StringVar(&p.PostalCode, "postal-code", "", "postal code")
	lf.add(fs)
	return c
}

func (a *app) addressGetCmd() *cobra.Command {
	return getCmd(a, "Addresses.Get", "get ADDRESS_SID", "Show an address", "ADDRESS_SID", addressCols,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.Address, error) {
			return c.Addresses.Get(ctx, sid)
		})
}
