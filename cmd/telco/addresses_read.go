package main

import (
	"context"
	"iter"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// The read side of "telco addresses": list and get.

func (a *app) addressListCmd() *cobra.Command {
	var lf listFlags
	var acct string
	var p telco.ListAddressesParams
	c := &cobra.Command{
		Use:     "list [--city C] [--country CC] [...]",
		Short:   "List the account's addresses; each filter is an exact match",
		Example: `  telco addresses list --city Sydney --country AU`,
		Args:    exactArgs(0, "no arguments"),
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
	return getCmd(a, "get ADDRESS_SID", "Show an address", "ADDRESS_SID", addressCols,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.Address, error) {
			return c.Addresses.Get(ctx, sid)
		})
}
