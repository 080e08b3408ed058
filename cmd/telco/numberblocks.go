package main

import (
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/telcosdk/telco"
)

// numberBlocksCmd is "telco number-blocks", over the SDK's NumberBlocks
// service: four listings that share their filter and paging flags.
func (a *app) numberBlocksCmd() *cobra.Command {
	blockCmd := func(op, use, short string, args cobra.PositionalArgs, setup func(fs *pflag.FlagSet),
		one func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error),
		all func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) iter.Seq2[telco.NumberBlock, error],
	) *cobra.Command {
		var bf blockFlags
		c := &cobra.Command{Use: use, Short: short, Args: args, Annotations: ops(op),
			RunE: func(cmd *cobra.Command, args []string) error {
				p := bf.params(cmd.Flags())
				return runList(a, bf.all, numberBlockCols, nil,
					func(c *telco.Client) (any, []telco.NumberBlock, error) { return blocksOf(one(cmd, c, args, p)) },
					func(c *telco.Client) iter.Seq2[telco.NumberBlock, error] { return all(cmd, c, args, p) })
			}}
		bf.add(c.Flags())
		if setup != nil {
			setup(c.Flags())
		}
		return c
	}
	var acct, prop, text string
	search := blockCmd("NumberBlocks.Search", "search [--account SID | --property SID]", "Search number blocks by account or project",
		exactArgs(0, "no arguments"),
		func(fs *pflag.FlagSet) {
			fs.StringVar(&acct, "account", "", "account SID to search")
			fs.StringVar(&prop, "property", "", "project SID to search")
			fs.StringVar(&text, "text", "", "free text")
		},
		func(cmd *cobra.Command, c *telco.Client, _ []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.Search(cmd.Context(), &telco.NumberBlockSearchParams{AccountSid: acct, PropertySid: prop, Text: text, NumberBlockListParams: *p})
		},
		func(cmd *cobra.Command, c *telco.Client, _ []string, p *telco.NumberBlockListParams) iter.Seq2[telco.NumberBlock, error] {
			return c.NumberBlocks.SearchAll(cmd.Context(), &telco.NumberBlockSearchParams{AccountSid: acct, PropertySid: prop, Text: text, NumberBlockListParams: *p})
		})
	// The same scope rule as porting status, resolved before the request.
	search.PreRunE = func(*cobra.Command, []string) (err error) {
		prop, acct, err = a.scope(prop, acct)
		return err
	}
	searchText := blockCmd("NumberBlocks.SearchText", "search-text TEXT", "Search number blocks by free text", exactArgs(1, "one TEXT"), nil,
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.SearchText(cmd.Context(), args[0], p)
		},
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) iter.Seq2[telco.NumberBlock, error] {
			return c.NumberBlocks.SearchTextAll(cmd.Context(), args[0], p)
		})
	byProperty := blockCmd("NumberBlocks.ListByProperty", "list-by-property PROPERTY_SID", "List a project's number blocks", exactArgs(1, "one PROPERTY_SID"), nil,
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.ListByProperty(cmd.Context(), args[0], p)
		},
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) iter.Seq2[telco.NumberBlock, error] {
			return c.NumberBlocks.ListByPropertyAll(cmd.Context(), args[0], p)
		})
	accountArg := func(args []string) string {
		if len(args) > 0 {
			return args[0]
		}
		return a.account()
	}
	byAccount := blockCmd("NumberBlocks.ListByAccount", "list-by-account [ACCOUNT_SID]", "List an account's number blocks (default your own account)",
		cobra.MaximumNArgs(1), nil,
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.ListByAccount(cmd.Context(), accountArg(args), p)
		},
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) iter.Seq2[telco.NumberBlock, error] {
			return c.NumberBlocks.ListByAccountAll(cmd.Context(), accountArg(args), p)
		})
	byAccount.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usagef("%s takes at most one ACCOUNT_SID", cmd.CommandPath())
		}
		return nil
	}
	return a.group("number-blocks", "Search, list, buy and route number blocks", search, searchText, byProperty, byAccount,
		a.blockPurchaseCmd(), a.blockConfigureCmd())
}

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

// numberBlockCols are a number block's columns.
var numberBlockCols = []column[telco.NumberBlock]{
	{name: "ID", get: func(b *telco.NumberBlock) string { return itoa(b.ID) }},
	{name: "NUMBER BLOCK SID", get: func(b *telco.NumberBlock) string { return b.NumberBlockSid }},
	{name: "NUMBER", get: func(b *telco.NumberBlock) string { return firstNonEmpty(b.NumberPattern, b.Number) }},
	{name: "NAME", get: func(b *telco.NumberBlock) string { return firstNonEmpty(b.FriendlyName, b.Name) }},
	{name: "SIZE", get: func(b *telco.NumberBlock) string { return itoa(b.BlockSize) }},
	{name: "ACTIVE", get: func(b *telco.NumberBlock) string { return yesNo(b.Active) }},
	{name: "VOICE", get: func(b *telco.NumberBlock) string { return yesNo(b.SupportsVoice) }},
	{name: "SMS", get: func(b *telco.NumberBlock) string { return yesNo(b.SupportsSms) }},
	{name: "CREATED", at: func(b *telco.NumberBlock) time.Time { return timeOf(b.Created) }},
}

// blocksOf is pageOf for number blocks, whose pages hold their items in
// Data and count pages by index.
func blocksOf(p *telco.NumberBlockPage, err error) (any, []telco.NumberBlock, error) {
	if err != nil {
		return nil, nil, err
	}
	return blockNote{p}, p.Data, nil
}

// blockNote says whether a page of number blocks has pages after it.
type blockNote struct{ p *telco.NumberBlockPage }

func (n blockNote) more() string {
	size := n.p.PageSize
	if size <= 0 {
		size = len(n.p.Data)
	}
	if size == 0 || (n.p.PageIndex+1)*size >= n.p.TotalCount {
		return ""
	}
	return fmt.Sprintf("more results exist: --all fetches every page, --page %d the next", n.p.PageIndex+1)
}

func (a *app) blockPurchaseCmd() *cobra.Command {
	var p telco.PurchaseNumberBlockParams
	var prop string
	var fields []string
	c := &cobra.Command{
		Use:         "purchase --property SID --answer-point NUMBER [flags]",
		Annotations: ops("NumberBlocks.Purchase"),
		Short:       "Buy a number block for a project (not retried once it may have reached the service)",
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
		Use:         "configure NUMBER_BLOCK_SID --routing endpoint|flow|application [flags]",
		Annotations: ops("NumberBlocks.Configure"),
		Short:       "Route a number block's calls to an endpoint, a flow or an application",
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
		return a.printJSON(a.stdout, r)
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
