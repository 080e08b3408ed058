package main

import (
	"iter"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// flowsCmd is "telco flows", over the SDK's Flows service.
func (a *app) flowsCmd() *cobra.Command {
	return a.group("flows", "List call flows (their ConfigID is what numbers configure --flow takes)", a.flowListCmd())
}

func (a *app) flowListCmd() *cobra.Command {
	var lf listFlags
	var prop string
	c := &cobra.Command{
		Use:         "list [--property SID]",
		Annotations: ops("Flows.List"),
		Short:       "List a project's flows",
		Example:     `  telco flows list --property PR...`,
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			sid, err := a.property(prop)
			if err != nil {
				return err
			}
			lp := lf.params()
			return runList(a, lf.all, flowCols, nil,
				func(c *telco.Client) (any, []telco.Flow, error) { return pageOf(c.Flows.List(cmd.Context(), sid, &lp)) },
				func(c *telco.Client) iter.Seq2[telco.Flow, error] { return c.Flows.ListAll(cmd.Context(), sid, &lp) })
		},
	}
	a.propertyFlag(c.Flags(), &prop)
	lf.add(c.Flags())
	return c
}

// flowCols are a flow's columns.
var flowCols = []column[telco.Flow]{
	{name: "CONFIG ID", get: func(f *telco.Flow) string { return f.ConfigID }},
	{name: "NAME", get: func(f *telco.Flow) string { return f.Name }},
	{name: "TYPE", get: func(f *telco.Flow) string { return f.Type }},
	{name: "REVISION", get: func(f *telco.Flow) string { return f.Revision }},
	{name: "LAST UPDATED", at: func(f *telco.Flow) time.Time { return timeOf(f.LastUpdated) }},
}
