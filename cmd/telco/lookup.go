package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// lookupCmd is "telco lookup", over the SDK's Lookup service.
func (a *app) lookupCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "lookup NUMBER...",
		Annotations: ops("Lookup.NumberDetails"),
		Short:       "Look numbers up in the numbering regulator's database",
		Example:     `  telco lookup +61299999999 0298765432`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("lookup takes at least one NUMBER")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCall(a, func(c *telco.Client) ([]telco.NumberDetail, error) {
				return c.Lookup.NumberDetails(cmd.Context(), args...)
			}, func(ds []telco.NumberDetail) error { return printList(a, ds, ds, numberDetailCols) })
		},
	}
}

// numberDetailCols are a looked-up number's columns.
var numberDetailCols = []column[telco.NumberDetail]{
	{name: "NUMBER", get: func(d *telco.NumberDetail) string { return "+" + strconv.FormatInt(d.E164, 10) }},
	{name: "ASSIGNED CARRIER", get: func(d *telco.NumberDetail) string { return carrier(d.AssignedCarrier) }},
	{name: "CURRENT CARRIER", get: func(d *telco.NumberDetail) string { return carrier(d.CurrentCarrier) }},
	{name: "AREA", get: func(d *telco.NumberDetail) string { return d.NumberingArea }},
	{name: "PORTED", get: func(d *telco.NumberDetail) string { return d.PortedActionIndicator }},
	{name: "THIRD PARTY", get: func(d *telco.NumberDetail) string { return yesNo(d.ThirdParty) }},
	{name: "REASON", get: func(d *telco.NumberDetail) string { return d.Reason }},
}

func carrier(c telco.Carrier) string {
	if c.CAC < 0 && c.Name == "" {
		return "unknown"
	}
	return strings.TrimSpace(c.Name + " (" + itoa(c.CAC) + ")")
}
