// Command telco is the SDK's command-line tool: every operation of the
// service from a terminal, and the fake service for local work.
//
// Its commands and their flags are in the reference under docs/, which
// is generated from the command tree (go test ./cmd/telco -run
// TestCLIReference -update) and checked against it, and in telco --help;
// README.md beside this file holds the operators' recipes.
//
// Credentials and the base URL come from the flags (--account-sid,
// --token, --base-url), else the environment (TELCO_ACCOUNT_SID,
// TELCO_TOKEN, TELCO_BASE_URL), else a profile saved by telco login
// (--profile NAME, else TELCO_PROFILE, else "default"). --output table
// (the default) prints aligned tables for people; --output json prints
// the SDK's types as JSON for scripts.
//
// Exit status: 0 success; 1 an error from the service (its code, message
// and field names are printed) or the network, the request not carried
// out; 2 a usage error or a parameter the SDK's validation refused before
// sending (named by its flag); 3 a request that may have taken effect (a
// message that may have been sent) and is unresolved, with the command
// that settles it; 128+N when cut short by signal N (129 SIGHUP, 130
// SIGINT, 143 SIGTERM).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/catalog"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	in := newInterrupts(cancel)
	in.listen(ctx)
	code := runWith(ctx, in, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	cancel()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK      = 0
	exitService = 1 // the service (or the network) said no: not carried out
	exitUsage   = 2 // the command line, or parameters refused before sending
	// exitMaybeSent: the request may have taken effect (a message may have
	// been sent) and it is not known whether it did. Running the same
	// command again settles it for sms send --external-id and sms batch.
	exitMaybeSent = 3
)

// usageError is a mistake on the command line: exit status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitError carries an exit status for a failure already reported (a batch
// with rejected messages prints them in its results).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// statusError is err, reported as usual, with another exit status (a
// batch whose failure left other lines uncertain exits 3).
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// run runs the tool with args (without the program name) and returns the
// exit status. env looks up environment variables (os.Getenv in main).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	return runWith(ctx, newInterrupts(nil), args, stdin, stdout, stderr, env)
}

// runWith is run with the signals of in.
func runWith(ctx context.Context, in *interrupts, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	_, code := newApp(ctx, in, stdin, stdout, stderr, env).execute(args)
	return code
}

// newApp is one invocation of the tool over these streams and environment.
func newApp(ctx context.Context, in *interrupts, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) *app {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, env: env, intr: in,
		stdinTTY: isTerminal(stdin), started: time.Now()}
	if f, ok := stdout.(*os.File); ok && isTerminal(stdout) {
		a.width = termWidth(f, env)
	}
	return a
}

// execute runs the command that args name and returns it (nil when none
// was found) with the exit status.
func (a *app) execute(args []string) (*cobra.Command, int) {
	root := a.commandTree()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(a.ctx)
	code := a.report(cmd, err)
	if s := a.intr.signal(); s != nil && code != exitOK {
		// Cut short: the shell's status for the signal, whatever the
		// command made of the interruption.
		return cmd, exitCode(s)
	}
	return cmd, code
}

// report prints err the way its exit status says and returns the status.
// Every error is said once, in the user's terms: the command that failed
// (not the SDK operation inside it, which -o json gives as Op), what went
// wrong, and, for an answer of the service, each of its fields once, by
// the flag that carries it. Under -o json the error is one JSON object on
// standard error.
func (a *app) report(cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	var (
		ue *usageError
		ve *telco.ValidationError
		ae *telco.APIError
		ee *exitError
	)
	where := commandName(cmd)
	rep := errorReport{Message: userText(err.Error()), ExitCode: exitService, Command: where}
	var details []string // lines under the message
	switch {
	case errors.As(err, &ee):
		rep.ExitCode, rep.Message = ee.code, ee.msg
		if a.jsonOut() {
			if ee.msg == "" {
				return ee.code
			}
			return a.printErrorJSON(rep)
		}
		if ee.msg != "" {
			fmt.Fprintln(a.stderr, prefixed(ee.msg))
		}
		return ee.code
	case errors.As(err, &ve):
		rep.ExitCode = exitUsage
		rep.Op = ve.Op
		texts := make([]string, len(ve.Fields))
		for i, f := range ve.Fields {
			rep.Fields = append(rep.Fields, flagField(cmd, f))
			texts[i] = rep.Fields[i].text()
		}
		rep.Message = strings.Join(texts, "; ")
		if a.jsonOut() {
			return a.printErrorJSON(rep)
		}
		if len(rep.Fields) == 1 {
			fmt.Fprintln(a.stderr, "telco: "+rep.Fields[0].text())
		} else {
			fmt.Fprintf(a.stderr, "telco: %s: %d invalid parameters:\n", firstNonEmpty(where, ve.Op), len(rep.Fields))
			for _, f := range rep.Fields {
				fmt.Fprintln(a.stderr, "  "+f.text())
			}
		}
		return exitUsage
	case errors.As(err, &ue):
		rep.ExitCode, rep.Message = exitUsage, userText(ue.err.Error())
		if a.jsonOut() {
			return a.printErrorJSON(rep)
		}
		fmt.Fprintln(a.stderr, prefixed(rep.Message))
		fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", commandPath(cmd, "telco"))
		return exitUsage
	case errors.As(err, &ae):
		rep.Op, rep.Status, rep.Code, rep.ServiceMessage = ae.Op, ae.StatusCode, ae.Code, ae.Message
		for _, f := range ae.Fields {
			issue := flagField(cmd, f)
			rep.Fields = append(rep.Fields, issue)
			if issue.Code == ae.Code {
				issue.Code = "" // said once, in the message
			}
			details = append(details, issue.text())
		}
		rep.Message = userText(apiMessage(err, ae))
		if ae.StatusCode == http.StatusUnauthorized && a.credSource != "" {
			rep.Credentials = a.credSource
			details = append(details, "the credentials came from "+a.credSource+": check them, or save new ones with 'telco login'")
		}
	}
	if _, ok := catalog.Lookup(rep.Op); !ok {
		rep.Op = "" // telco api's Client.Do, say: no operation of the service's
	}
	var doubt interface {
		Resolve() string
		Details() []string
	}
	switch {
	case errors.As(err, &doubt):
		// A command that said its doubt in its own terms (a batch's
		// lines in doubt, however many, in a few lines).
		rep.MaybeSent, rep.ExitCode = true, exitMaybeSent
		rep.Resolve = doubt.Resolve()
		details = append(details, doubt.Details()...)
	case errors.Is(err, telco.ErrMaybeSent):
		rep.MaybeSent = true
		rep.ExitCode = exitMaybeSent
		rep.Resolve = resolveHint(cmd, err, a.started, a.location())
		// Said on a line of its own, once.
		rep.Message = strings.ReplaceAll(rep.Message, " ("+telco.ErrMaybeSent.Error()+")", "")
		details = append(details, "the request may have reached the service: check before repeating it")
		if rep.Resolve != "" {
			details = append(details, "to find out: "+rep.Resolve)
		}
	}
	if se := (*statusError)(nil); errors.As(err, &se) {
		rep.ExitCode = se.code
	}
	if where != "" {
		rep.Message = where + ": " + rep.Message
	}
	if a.jsonOut() {
		return a.printErrorJSON(rep)
	}
	fmt.Fprintln(a.stderr, "telco: "+rep.Message)
	for _, d := range details {
		fmt.Fprintln(a.stderr, "  "+d)
	}
	return rep.ExitCode
}

// commandName is the command as the user typed it, without "telco": "sms
// send"; "" for the tool itself.
func commandName(cmd *cobra.Command) string {
	if cmd == nil {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(cmd.CommandPath(), "telco"))
}

// apiMessage is an answer of the service said once: its status, its code
// and its message (unless the status or one of its fields already says
// it), within whatever err adds around it.
func apiMessage(err error, ae *telco.APIError) string {
	status := "refused"
	if ae.StatusCode != 0 {
		status = fmt.Sprintf("%d %s", ae.StatusCode, http.StatusText(ae.StatusCode))
	}
	parts := []string{status}
	if ae.Code != "" {
		parts = append(parts, ae.Code)
	}
	said := ae.Message == "" || ae.Message == http.StatusText(ae.StatusCode)
	for _, f := range ae.Fields {
		said = said || f.Message == ae.Message
	}
	if !said {
		parts = append(parts, ae.Message)
	}
	if cause := ae.Unwrap(); cause != nil {
		parts = append(parts, cause.Error())
	}
	msg := strings.Join(parts, ": ")
	full, own := err.Error(), ae.Error()
	if i := strings.Index(full, own); i >= 0 {
		msg = full[:i] + msg + full[i+len(own):]
	}
	return msg
}

// sdkPrefix is the SDK's prefix of an error's text, naming its operation
// or function ("telco: Messages.Send: ", "telco: NewClient: ").
var sdkPrefix = regexp.MustCompile(`telco: [A-Z][A-Za-z]*(\.[A-Z][A-Za-z]*)?: `)

// urlPrefix is net/http's account of a request that failed,
// `Get "https://...": `.
var urlPrefix = regexp.MustCompile(`\b(Get|Head|Post|Put|Patch|Delete) "([^"]*)": `)

// userText is an error's text in the user's terms: without the SDK's
// prefixes, which the command replaces, and a request that failed as
// "GET https://...: " rather than in Go's words.
func userText(msg string) string {
	msg = sdkPrefix.ReplaceAllString(msg, "")
	return urlPrefix.ReplaceAllStringFunc(msg, func(m string) string {
		sub := urlPrefix.FindStringSubmatch(m)
		return strings.ToUpper(sub[1]) + " " + sub[2] + ": "
	})
}

// errorReport is an error as -o json prints it on standard error, in an
// object of its own: {"Error": {...}}.
type errorReport struct {
	Message        string
	ExitCode       int
	Command        string       `json:",omitempty"` // the command that failed: "sms send"
	Op             string       `json:",omitempty"` // the SDK operation, a catalogue name
	Status         int          `json:",omitempty"` // the HTTP status of the service's answer
	Code           string       `json:",omitempty"` // the service's ErrorCode
	ServiceMessage string       `json:",omitempty"`
	Fields         []fieldIssue `json:",omitempty"`
	Credentials    string       `json:",omitempty"` // where refused credentials came from (never their value)
	MaybeSent      bool         `json:",omitempty"` // the request may have taken effect
	Resolve        string       `json:",omitempty"` // the command that tells whether it did
}

func (a *app) printErrorJSON(rep errorReport) int {
	_ = a.printJSONLine(a.stderr, struct{ Error errorReport }{rep})
	return rep.ExitCode
}

// fieldIssue is one problem with one parameter, named by the flag that
// carries it when there is one.
type fieldIssue struct {
	Flag    string `json:",omitempty"` // "--contact-name"
	Field   string `json:",omitempty"` // the SDK's (wire) name, "AuthorisedContactName"
	Code    string `json:",omitempty"`
	Message string `json:",omitempty"`
}

// text is the issue as one line: the message in flag names, and the field
// and code when no flag carries it.
func (f fieldIssue) text() string {
	if f.Flag != "" {
		return f.Message
	}
	return telco.FieldError{Code: f.Code, FieldName: f.Field, Message: f.Message}.String()
}

// flagFor returns the flag ("--contact-name") of cmd that carries the
// SDK's field name, or "". Commands declare theirs with fieldFlags;
// indexes are ignored ("PortingNumbers[1].Number" is PortingNumbers[].Number).
func flagFor(cmd *cobra.Command, field string) string {
	key := indexRe.ReplaceAllString(field, "[]")
	if cmd != nil {
		if f := cmd.Annotations[annField+key]; f != "" {
			return f
		}
	}
	return commonFlags[key]
}

var indexRe = regexp.MustCompile(`\[\d+\]`)

// commonFlags are the fields every command that has them carries alike.
var commonFlags = map[string]string{
	"Results_Count": "--count",
	"Results_Skip":  "--skip",
	"PropertySid":   "--property",
}

// annField prefixes the annotations of fieldFlags.
const annField = "telco.field:"

// annotate sets one annotation of c.
func annotate(c *cobra.Command, key, value string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[key] = value
}

// fieldFlags declares which flag of c carries each SDK field, pairs of
// field and flag name: fieldFlags(c, "AuthorisedContactName", "contact-name").
func fieldFlags(c *cobra.Command, pairs ...string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		c.Annotations[annField+pairs[i]] = "--" + pairs[i+1]
	}
}

// flagField restates a field problem in the command's flags: the message's
// field names (this field's and any other the command maps) become flag
// names, so "Date_To (exclusive) must be after Date_From" reads
// "--until (exclusive) must be after --since".
func flagField(cmd *cobra.Command, f telco.FieldError) fieldIssue {
	issue := fieldIssue{Flag: flagFor(cmd, f.FieldName), Field: f.FieldName, Code: f.Code, Message: f.Message}
	if issue.Flag == "" {
		return issue
	}
	if issue.Message == "" {
		issue.Message = f.FieldName + " is invalid"
	}
	names := map[string]string{f.FieldName: issue.Flag}
	if cmd != nil {
		for k, v := range cmd.Annotations {
			if field, ok := strings.CutPrefix(k, annField); ok && !strings.Contains(field, "[]") {
				names[field] = v
			}
		}
	}
	for k, v := range commonFlags {
		names[k] = v
	}
	issue.Message = renameFields(issue.Message, names)
	if !strings.Contains(issue.Message, issue.Flag) {
		issue.Message = issue.Flag + ": " + issue.Message
	}
	return issue
}

// renameFields replaces each whole-word occurrence of a key of names in
// msg by its value, longest keys first.
func renameFields(msg string, names map[string]string) string {
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	isWord := func(c byte) bool {
		return c == '_' || c == '.' || c == '[' || c == ']' || c == '-' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
	}
	for _, k := range keys {
		var b strings.Builder
		for i := 0; i < len(msg); {
			j := strings.Index(msg[i:], k)
			if j < 0 {
				b.WriteString(msg[i:])
				break
			}
			j += i
			end := j + len(k)
			if (j > 0 && isWord(msg[j-1])) || (end < len(msg) && isWord(msg[end]) && msg[end] != '.') {
				b.WriteString(msg[i:end])
			} else {
				b.WriteString(msg[i:j] + names[k])
			}
			i = end
		}
		msg = b.String()
	}
	return msg
}

// commandPath names the command for messages, or else fallback.
func commandPath(cmd *cobra.Command, fallback string) string {
	if cmd == nil {
		return fallback
	}
	return cmd.CommandPath()
}

// resolveHint is the command that tells whether a message that may have
// been sent was: sms find by its ExternalId, over a window from a minute
// before the first attempt (the error's LookupSince, when it knows it),
// else before the command started. Commands that send set the
// annotations it reads.
func resolveHint(cmd *cobra.Command, err error, started time.Time, loc *time.Location) string {
	if cmd == nil || cmd.Annotations[annResolve] == "" {
		return ""
	}
	var ids []string
	var ue *telco.UnresolvedError
	if errors.As(err, &ue) {
		ids = ue.ExternalIDs
	} else if id := cmd.Annotations[annExternalID]; id != "" {
		ids = []string{id}
	}
	since := started
	var ls interface{ LookupSince() time.Time }
	if errors.As(err, &ls) && !ls.LookupSince().IsZero() && ls.LookupSince().Before(since) {
		since = ls.LookupSince()
	}
	return findCommand(cmd.Annotations[annResolve], since.Add(-time.Minute).In(loc), ids)
}

// sinceError is err with the time a look-up of what it left in doubt
// must search from (an earlier run's first attempt).
type sinceError struct {
	err   error
	since time.Time
}

func (e *sinceError) Error() string          { return e.err.Error() }
func (e *sinceError) Unwrap() error          { return e.err }
func (e *sinceError) LookupSince() time.Time { return e.since }

// Annotations a sending command sets for resolveHint: the project, and the
// ExternalId of the message.
const (
	annResolve    = "telco.resolve.property"
	annExternalID = "telco.resolve.externalid"
)

// findCommand is the command line that looks messages up: by ExternalId
// when there are any, else every message sent since then (in since's
// zone, the user's).
func findCommand(prop string, since time.Time, ids []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "telco sms find --property %s --since %s --direction Transmit", prop, since.Format(time.RFC3339))
	for _, id := range ids {
		b.WriteString(" --external-id " + shellQuote(id))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// prefixed starts a message with "telco: " once (the SDK's errors already
// do).
func prefixed(msg string) string {
	if strings.HasPrefix(msg, "telco: ") {
		return msg
	}
	return "telco: " + msg
}
