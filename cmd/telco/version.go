package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// buildInfo is what `telco version` reports: the SDK's version, and the
// commit and Go version the binary was built from (from the build info Go
// records; Commit is empty for a build outside a repository, such as go
// install of a module version).
type buildInfo struct {
	Version   string
	Commit    string `json:",omitempty"`
	Modified  bool   `json:",omitempty"` // built from a tree with uncommitted changes
	GoVersion string
}

func readBuildInfo() buildInfo {
	bi := buildInfo{Version: telco.Version, GoVersion: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		bi.GoVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Commit = s.Value
			case "vcs.modified":
				bi.Modified = s.Value == "true"
			}
		}
	}
	return bi
}

// versionLine is the one line of `telco --version` and `telco version`.
func versionLine() string {
	bi := readBuildInfo()
	commit := bi.Commit
	if commit == "" {
		commit = "unknown"
	} else if len(commit) > 12 {
		commit = commit[:12]
	}
	if bi.Modified {
		commit += "+dirty"
	}
	return fmt.Sprintf("%s (commit %s, %s)", bi.Version, commit, bi.GoVersion)
}

// versionCmd is "telco version".
func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Annotations: noOps("prints what the binary knows; calls none"),
		Short:       "Print the version, the commit and the Go version of this build",
		Args:        exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			if a.jsonOut() {
				return a.printJSON(a.stdout, readBuildInfo())
			}
			fmt.Fprintln(a.stdout, "telco", versionLine())
			return nil
		},
	}
}
