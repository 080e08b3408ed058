package main

import "github.com/spf13/cobra"

// strictCompletion adds cobra's completion command now (it would add it in
// Execute) so as to change one thing: for a shell it does not know
// (completion tcsh) it printed its help and succeeded; that is a usage
// error. Call it after SetOut, which the scripts are written to.
func (a *app) strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args, c.RunE = a.noArgs, a.needSubcommand
			for _, sh := range c.Commands() {
				sh.Annotations = noOps("writes a completion script; calls none")
			}
		}
	}
}
