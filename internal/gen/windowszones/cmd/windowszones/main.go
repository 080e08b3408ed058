// Command windowszones writes the telco package's Windows time zone maps
// from the CLDR's windowsZones.json. It is run by go generate (see
// timezones.go in the module root):
//
//	go run ./internal/gen/windowszones/cmd/windowszones -in internal/gen/windowszones/windowsZones.json -out timezones_table.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/telcosdk/telco/internal/gen/windowszones"
)

func main() {
	in := flag.String("in", "internal/gen/windowszones/windowsZones.json", "the CLDR windowsZones.json to read")
	out := flag.String("out", "timezones_table.go", "the Go file to write")
	pkg := flag.String("pkg", "telco", "the package name of the written file")
	flag.Parse()
	if err := run(*in, *out, *pkg); err != nil {
		fmt.Fprintln(os.Stderr, "windowszones:", err)
		os.Exit(1)
	}
}

func run(in, out, pkg string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	src, err := windowszones.Generate(data, pkg)
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}
