package main

import (
	"fmt"

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
		Use:     "create --line1 L --city C --country CC",
		Short:   "Create an address on the account",
		Example: `  telco addresses create --line1 "1 Example St" --city Sydney --region NSW --postal-code 2000 --country AU`,
		Args:    exactArgs(0, "no arguments"),
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
	return c
}

func (a *app) addressDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete ADDRESS_SID",
		Short: "Delete an address (refused while a number relies on it)",
		Args:  exactArgs(1, "one ADDRESS_SID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCall(a, func(c *telco.Client) (string, error) {
				return args[0], c.Addresses.Delete(cmd.Context(), args[0])
			}, func(sid string) error {
				if a.jsonOut() {
					return printJSON(a.stdout, map[string]any{"AddressSid": sid, "Deleted": true})
				}
				fmt.Fprintln(a.stdout, "deleted", sid)
				return nil
			})
		},
	}
}

// addressCols are an address's columns.
var addressCols = []column[telco.Address]{
	{"ADDRESS SID", func(a *telco.Address) string { return a.AddressSid }},
	{"FRIENDLY", func(a *telco.Address) string { return a.Friendly }},
	{"REFERENCE", func(a *telco.Address) string { return a.Reference }},
	{"LINE 1", func(a *telco.Address) string { return a.Line1 }},
	{"LINE 2", func(a *telco.Address) string { return a.Line2 }},
	{"CITY", func(a *telco.Address) string { return a.City }},
	{"REGION", func(a *telco.Address) string { return a.Region }},
	{"POSTAL CODE", func(a *telco.Address) string { return a.PostalCode }},
	{"COUNTRY", func(a *telco.Address) string { return a.CountryCode }},
	{"STATUS", func(a *telco.Address) string { return a.Status }},
}
