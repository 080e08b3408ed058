package main

import (
	"encoding/json"
	"iter"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// The read and purchase side of "telco numbers": get, list, purchase.

func (a *app) numberGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "get NUMBER",
		Short: "Show a number the account owns (E.164, + optional)",
		Long: `get shows a number with its configuration. The service does not document
this answer's fields: those the SDK does not know are shown under EXTRA
(and, with -o json, beside the others).`,
		Args: exactArgs(1, "one NUMBER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCall(a, func(c *telco.Client) (*telco.Number, error) {
				return c.Numbers.Get(cmd.Context(), args[0])
			}, showOne(a, numberCols()))
		},
	}
}

func (a *app) numberListCmd() *cobra.Command {
	var lf listFlags
	var prop, acct string
	var types, caps []string
	c := &cobra.Command{
		Use:     "list [--property SID | --account SID] [--type T]... [--capability C]...",
		Short:   "List numbers, by project or else by account",
		Example: `  telco numbers list --type Local --capability SMS`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := telco.ListNumbersParams{ListParams: lf.params()}
			for _, t := range types {
				p.Types = append(p.Types, telco.NumberType(t))
			}
			for _, c := range caps {
				p.Capabilities = append(p.Capabilities, telco.NumberCapability(c))
			}
			ctx := cmd.Context()
			return a.withClient(func(c *telco.Client) error {
				prop, acct, err := a.scope(prop, acct)
				if err != nil {
					return err
				}
				if prop != "" {
					return printListing(a, lf.all, numberListCols, nil,
						func() (any, []telco.Number, error) { return pageOf(c.Numbers.ListByProperty(ctx, prop, &p)) },
						func() iter.Seq2[telco.Number, error] { return c.Numbers.ListByPropertyAll(ctx, prop, &p) })
				}
				return printListing(a, lf.all, numberListCols, nil,
					func() (any, []telco.Number, error) { return pageOf(c.Numbers.ListByAccount(ctx, acct, &p)) },
					func() iter.Seq2[telco.Number, error] { return c.Numbers.ListByAccountAll(ctx, acct, &p) })
			})
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&acct, "account", "", "account SID (default your own when neither --property nor $TELCO_PROPERTY_SID); not with --property")
	fs.StringSliceVar(&types, "type", nil, "Local, Toll-Free, Shared-Rate or National (repeatable)")
	fs.StringSliceVar(&caps, "capability", nil, "Voice, SMS or MMS (repeatable)")
	lf.add(fs)
	_ = c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{"Local", "Toll-Free", "Shared-Rate", "National"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("capability", cobra.FixedCompletions([]string{"Voice", "SMS", "MMS"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func (a *app) numberPurchaseCmd() *cobra.Command {
	var prop string
	var p telco.PurchaseNumberParams
	c := &cobra.Command{
		Use:   "purchase NUMBER [--property SID] [--address ADDRESS_SID]",
		Short: "Buy a number for a project: Active with an address, else Pending",
		Long: `purchase buys NUMBER (E.164) for the project. Without --address the service
assigns the first suitable address of the project, and reserves the number
(Pending) when there is none. A purchase is never retried once it may have
reached the service: after a network error, check with 'telco numbers get'.`,
		Example: `  telco numbers purchase +61299990001`,
		Args:    exactArgs(1, "one NUMBER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sid, err := a.property(prop)
			if err != nil {
				return err
			}
			p.Number = args[0]
			return runCall(a, func(c *telco.Client) (*telco.NumberPurchase, error) {
				return c.Numbers.Purchase(cmd.Context(), sid, &p)
			}, showOne(a, purchaseCols))
		},
	}
	a.propertyFlag(c.Flags(), &prop)
	c.Flags().StringVar(&p.AddressSid, "address", "", "address SID to register the number with")
	return c
}

// extra shows members the SDK did not decode as k=v, sorted.
func extra(m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + string(m[k])
	}
	return strings.Join(parts, " ")
}

// numberCols are a number's fields, one per line: its configuration, then
// what only the listings show, then what the SDK did not know.
func numberCols() []column[telco.Number] {
	var cols []column[telco.Number]
	for _, c := range numberConfigCols {
		get := c.get
		cols = append(cols, column[telco.Number]{c.name, func(n *telco.Number) string { return get(&n.NumberConfig) }})
	}
	return append(cols,
		column[telco.Number]{"TYPE", func(n *telco.Number) string { return string(n.Type) }},
		column[telco.Number]{"CAPABILITIES", func(n *telco.Number) string { return n.Capabilities.String() }},
		column[telco.Number]{"STATUS", func(n *telco.Number) string { return string(n.Status) }},
		column[telco.Number]{"CITY", func(n *telco.Number) string { return n.City }},
		column[telco.Number]{"REGION", func(n *telco.Number) string { return n.Region }},
		column[telco.Number]{"COUNTRY", func(n *telco.Number) string { return n.CountryCode }},
		column[telco.Number]{"ADDRESS REQUIREMENT", func(n *telco.Number) string { return n.AddressRequirement }},
		column[telco.Number]{"EXTRA", func(n *telco.Number) string { return extra(n.Extra) }},
	)
}

// numberListCols are a number's columns in a list.
var numberListCols = []column[telco.Number]{
	{"NUMBER", func(n *telco.Number) string { return n.Number }},
	{"TYPE", func(n *telco.Number) string { return string(n.Type) }},
	{"CAPABILITIES", func(n *telco.Number) string { return n.Capabilities.String() }},
	{"STATUS", func(n *telco.Number) string { return string(n.Status) }},
	{"ROUTING", func(n *telco.Number) string { return string(n.RoutingMethod) }},
	{"TO", func(n *telco.Number) string { return firstNonEmpty(n.EndpointNumber, n.Flow) }},
	{"FRIENDLY", func(n *telco.Number) string { return n.Friendly }},
	{"PROPERTY SID", func(n *telco.Number) string { return n.PropertySid }},
}

// purchaseCols are a purchase's answer.
var purchaseCols = []column[telco.NumberPurchase]{
	{"NUMBER", func(p *telco.NumberPurchase) string { return p.Number }},
	{"STATUS", func(p *telco.NumberPurchase) string { return string(p.Status) }},
	{"EXTRA", func(p *telco.NumberPurchase) string { return extra(p.Extra) }},
}
