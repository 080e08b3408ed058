package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// versionCmd is "telco version".
func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the SDK version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(a.stdout, "telco-go", telco.Version)
			return nil
		},
	}
}
