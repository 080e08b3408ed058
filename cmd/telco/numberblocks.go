package main

import (
	"fmt"
	"iter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/telcosdk/telco"
)

// numberBlocksCmd is "telco number-blocks", over the SDK's NumberBlocks
// service: four listings that share their filter and paging flags.
func (a *app) numberBlocksCmd() *cobra.Command {
	blockCmd := func(use, short string, args cobra.PositionalArgs, setup func(fs *pflag.FlagSet),
		one func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error),
		all func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) iter.Seq2[telco.NumberBlock, error],
	) *cobra.Command {
		var bf blockFlags
		c := &cobra.Command{Use: use, Short: short, Args: args,
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
	search := blockCmd("search [--account SID | --property SID]", "Search number blocks by account or project (operation 1)",
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
	searchText := blockCmd("search-text TEXT", "Search number blocks by free text", exactArgs(1, "one TEXT"), nil,
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) (*telco.NumberBlockPage, error) {
			return c.NumberBlocks.SearchText(cmd.Context(), args[0], p)
		},
		func(cmd *cobra.Command, c *telco.Client, args []string, p *telco.NumberBlockListParams) iter.Seq2[telco.NumberBlock, error] {
			return c.NumberBlocks.SearchTextAll(cmd.Context(), args[0], p)
		})
	byProperty := blockCmd("list-by-property PROPERTY_SID", "List a project's number blocks", exactArgs(1, "one PROPERTY_SID"), nil,
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
	byAccount := blockCmd("list-by-account [ACCOUNT_SID]", "List an account's number blocks (default your own account)",
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
	{"ID", func(b *telco.NumberBlock) string { return itoa(b.ID) }},
	{"NUMBER BLOCK SID", func(b *telco.NumberBlock) string { return b.NumberBlockSid }},
	{"NUMBER", func(b *telco.NumberBlock) string { return firstNonEmpty(b.NumberPattern, b.Number) }},
	{"NAME", func(b *telco.NumberBlock) string { return firstNonEmpty(b.FriendlyName, b.Name) }},
	{"SIZE", func(b *telco.NumberBlock) string { return itoa(b.BlockSize) }},
	{"ACTIVE", func(b *telco.NumberBlock) string { return yesNo(b.Active) }},
	{"VOICE", func(b *telco.NumberBlock) string { return yesNo(b.SupportsVoice) }},
	{"SMS", func(b *telco.NumberBlock) string { return yesNo(b.SupportsSms) }},
	{"CREATED", func(b *telco.NumberBlock) string {
		if b.Created.IsZero() {
			return ""
		}
		return b.Created.Format("2006-01-02T15:04:05-07:00")
	}},
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
