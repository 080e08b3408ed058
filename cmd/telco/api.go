package main

// "telco api METHOD PATH": the SDK's escape hatch, Client.Do, on the command
// line, as "gh api" is for GitHub: any request the tool has no command for,
// with the same credentials, retries and error reporting.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

func (a *app) apiCmd() *cobra.Command {
	var body string
	var include bool
	c := &cobra.Command{
		Use:         "api METHOD PATH [--body JSON|@FILE|@-]",
		Annotations: noOps("sends the request given: any operation, or one the tool has no command for"),
		Short:       "Send any request to the service and print its answer",
		Long: `Send a request the tool has no command for, with the same credentials,
retries and error reporting as every command, and print the answer's body
as the service sent it (JSON indented; the JSON contract of the other
commands, RFC 3339 times and enumerations by name, does not apply).

METHOD is GET, HEAD, POST, PUT, PATCH or DELETE. POST is not repeated once it
may have reached the service; the others are retried like reads. PATH is
relative to the base URL and escaped as it is to be sent, with an optional
query; /v2 is added when it starts with no version ("Properties" is
"/v2/Properties").

--body is the JSON body: given inline, read from a file with @FILE, or from
standard input with @-. PATCH bodies are sent as JSON merge patches.
--include prints the status line and headers first.`,
		Example: `  telco api GET /v2/Properties/PR...
  telco api PATCH /v2/Properties/PR... --body '{"Name":"Renamed"}'
  telco api get 'Properties?Results_Count=5' --include`,
		Args: exactArgs(2, "METHOD and PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var payload any
			if cmd.Flags().Changed("body") {
				b, err := a.readBody(body)
				if err != nil {
					return err
				}
				if !json.Valid(b) {
					return usagef("--body is not JSON")
				}
				payload = json.RawMessage(b)
			}
			return a.withClient(func(c *telco.Client) error {
				ctx, info := telco.CaptureResponse(cmd.Context())
				var out json.RawMessage
				err := c.Do(ctx, args[0], args[1], payload, &out)
				if err != nil {
					return err
				}
				if include {
					printHead(a.stdout, info)
				}
				return printRaw(a.stdout, out)
			})
		},
	}
	c.Flags().StringVar(&body, "body", "", "request body: JSON, @FILE or @- (standard input)")
	c.Flags().BoolVarP(&include, "include", "i", false, "print the status line and headers before the body")
	return c
}

// readBody reads --body: inline JSON, @FILE or @- for standard input.
func (a *app) readBody(v string) ([]byte, error) {
	name, ok := strings.CutPrefix(v, "@")
	switch {
	case !ok:
		return []byte(v), nil
	case name == "-":
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return nil, fmt.Errorf("reading the body from standard input: %w", err)
		}
		return b, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, usagef("--body: %v", err)
	}
	return b, nil
}

// printHead writes the answer's status line and headers, sorted.
func printHead(w io.Writer, info *telco.ResponseInfo) {
	fmt.Fprintf(w, "HTTP %d\n", info.StatusCode)
	keys := make([]string, 0, len(info.Header))
	for k := range info.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range info.Header[k] {
			fmt.Fprintf(w, "%s: %s\n", k, v)
		}
	}
	fmt.Fprintln(w)
}

// printRaw writes a body, indented when it is JSON, as it came otherwise;
// nothing for an empty one.
func printRaw(w io.Writer, b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") == nil {
		b = buf.Bytes()
	}
	_, err := fmt.Fprintf(w, "%s\n", b)
	return err
}
