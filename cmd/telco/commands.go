package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/telcosdk/telco"
)

// Every command that calls the service names the SDK operations it calls
// (their names in internal/catalog) in its annOperation annotation,
// comma-separated, and a command that calls none says why in
// annNoOperation: TestEveryOperationHasACommand holds the catalogue and the
// command tree to each other, and the test harness checks every call a
// command makes against the operations it names.
const (
	annOperation   = "operation"
	annNoOperation = "telco.no-operation"
)

// ops is the annotations of a command that calls the operations names.
func ops(names ...string) map[string]string {
	return map[string]string{annOperation: strings.Join(names, ",")}
}

// noOps is the annotations of a command that calls no operation, and why.
func noOps(why string) map[string]string { return map[string]string{annNoOperation: why} }

// operationsOf are the operations cmd names.
func operationsOf(cmd *cobra.Command) []string {
	if v := cmd.Annotations[annOperation]; v != "" {
		return strings.Split(v, ",")
	}
	return nil
}

// group makes a command that only holds subcommands.
func (a *app) group(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, Args: a.noArgs, RunE: a.needSubcommand}
	c.AddCommand(subs...)
	return c
}

// noArgs refuses arguments where a subcommand was expected, suggesting
// the closest names.
func (a *app) noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usagef("%s", msg)
}

// flagError is the error for a flag the command line got wrong. A flag
// that a group does not know, after a word that names none of its
// commands ("telco sms sedn --to x"), is the word's mistake: cobra parses
// flags before it checks arguments, so without this the unknown command,
// and its suggestion, would be hidden behind "unknown flag: --to". A flag
// that this command does not take but others do names them.
func (a *app) flagError(cmd *cobra.Command, err error) error {
	if args := cmd.Flags().Args(); cmd.HasSubCommands() && len(args) > 0 {
		return a.noArgs(cmd, args)
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		name, dash := ne.GetSpecifiedName(), "--"
		if ne.GetSpecifiedShortnames() != "" {
			dash = "-"
		}
		if owners := flagOwners(cmd, name, dash == "-"); len(owners) > 0 {
			return usagef("unknown flag %s%s for %s; it belongs to: %s", dash, name, cmd.CommandPath(), strings.Join(owners, ", "))
		}
	}
	return &usageError{err}
}

// flagOwners are the commands that take the flag name (a shorthand
// letter when short): those nearest cmd in the tree, its siblings' first,
// then its parent's siblings', and so on up to the root.
func flagOwners(cmd *cobra.Command, name string, short bool) []string {
	has := func(c *cobra.Command) bool {
		if short {
			return c.Flags().ShorthandLookup(name) != nil
		}
		return c.Flags().Lookup(name) != nil
	}
	for p := cmd.Parent(); p != nil; p = p.Parent() {
		var out []string
		var visit func(c *cobra.Command)
		visit = func(c *cobra.Command) {
			if c != cmd && c.IsAvailableCommand() && has(c) {
				out = append(out, c.CommandPath())
			}
			for _, sub := range c.Commands() {
				visit(sub)
			}
		}
		visit(p)
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// needSubcommand is the action of a command that only groups others:
// asked for by name alone ("telco", "telco sms"), it prints its help and
// succeeds, as --help does.
func (a *app) needSubcommand(cmd *cobra.Command, _ []string) error {
	return cmd.Help()
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s (got %s)", cmd.CommandPath(), names, plural(len(args), "argument"))
		}
		return nil
	}
}

// getCmd is a command that reads one resource by its SID with the
// operation op and prints it.
func getCmd[T any](a *app, op, use, short, arg string, cols []column[T],
	get func(ctx context.Context, c *telco.Client, sid string) (*T, error)) *cobra.Command {
	return &cobra.Command{
		Use:         use,
		Short:       short,
		Annotations: ops(op),
		Args:        exactArgs(1, "one "+arg),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCall(a, func(c *telco.Client) (*T, error) { return get(cmd.Context(), c, args[0]) }, showOne(a, cols))
		},
	}
}

// pager is a service listing with plain ListParams: one page, or all.
type pager[T any] interface {
	List(ctx context.Context, p *telco.ListParams) (*telco.Page[T], error)
	ListAll(ctx context.Context, p *telco.ListParams) iter.Seq2[T, error]
}

// listCmd is "list [--count N] [--skip N] [--all]" over such a listing,
// the operation op.
func listCmd[T any](a *app, op, short string, cols []column[T], service func(c *telco.Client) pager[T]) *cobra.Command {
	var lf listFlags
	c := &cobra.Command{
		Use:         "list",
		Short:       short,
		Annotations: ops(op),
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			lp := lf.params()
			return runList(a, lf.all, cols, nil,
				func(c *telco.Client) (any, []T, error) { return pageOf(service(c).List(cmd.Context(), &lp)) },
				func(c *telco.Client) iter.Seq2[T, error] { return service(c).ListAll(cmd.Context(), &lp) })
		},
	}
	lf.add(c.Flags())
	return c
}
