package main

// telco sms batch: the command, its flags, the journal's opening and
// recovery, and the printing of results and exit status. The engine (the
// input's readers, ExternalIds, the chunks in flight over SendBatchOnce,
// the order of the results) is in internal/batch; the journal's file in
// internal/boltledger.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/boltledger"
	"github.com/telcosdk/telco/cmd/telco/internal/batch"
	"github.com/telcosdk/telco/internal/smswire"
)

// batchOpts are the flags of sms batch.
type batchOpts struct {
	prop, format, journal, since, batchID string
	chunk, parallel                       int
	noJournal, force, dryRun, recover     bool
}

// journalSuffix names the default journal, beside the input.
const journalSuffix = batch.JournalSuffix

// maxParallel bounds --parallel: past a handful of requests in flight a
// batch gains little (the service, not the client, sets the pace), and
// every chunk in flight is one a kill leaves to be looked up on resume.
const maxParallel = 16

func (a *app) smsBatchCmd() *cobra.Command {
	var o batchOpts
	c := &cobra.Command{
		Use:         "batch [FILE|-]",
		Annotations: ops("Messages.SendBatch", "Messages.Find"),
		Short:       "Send many SMS from a CSV or JSON-lines file, resumably",
		Long: `Send many SMS in batches. The input is CSV with a header row naming the
columns, or JSON lines (one object per line) or a JSON array of objects,
with the same names, the service's own, in any case (string values;
Schedule may be a number and DeliveryReceipt a boolean):

` + wrap(strings.Join(batch.FieldNames(), ", "), "  ", 76) + `

` + wrap("Schedule is Unix seconds, RFC 3339, or a date and time without a zone, "+
			"read in the local zone; DeliveryReceipt is true or false; "+leaseFields()+" apply to a leased sender (no From).", "", 76) + `

The format is taken from --format, else the file's extension, else the
first character (a '{' means JSON lines, a '[' a JSON array). FILE - or no
FILE reads standard input.

Every message is sent at most once. Each line has an ExternalId: its own
column (no leading or trailing blank), else one made from the batch and
the line number. A journal (FILE` + journalSuffix + ` beside the file FILE
resolves to, or --journal PATH; none for standard input unless --journal
is given) records every attempt before its request. Run the same command
again after an interruption: sent lines are skipped, lines that may have
been sent are looked up by ExternalId before anything is resent, the rest
is sent. A finished batch sends nothing again unless --force. --dry-run
checks every line and prints what would be sent.

Every record of the journal carries a checksum. A record that fails it
is in doubt: its line is looked up before it is sent. A journal that
cannot be read at all (truncated, damaged) sends nothing and exits 3:
run again with --recover, which moves it aside and looks every line up,
from when the batch began (--since, when the damaged journal does not
say), before sending it.

Messages go in chunks of --chunk-size, up to --parallel chunks in flight
at once (default 1, at most 16). Results are printed chunk by chunk in the
order of the input (table rows, or one JSON object per line with -o json),
a chunk that finishes early waiting for those before it, with the lines
settled by an earlier run marked so. SIGHUP, SIGINT and SIGTERM finish the
chunks in flight, write the journal and the output, and exit 129, 130 or
143; a second signal stops at once (the journal still says which lines may
have been sent). A progress bar is drawn on standard error when it is a
terminal.

Exit status: 0 every line sent; 1 some line refused, or a failure that
sent nothing (the rest is not sent); 2 a usage error, or every line refused
before sending (nothing sent); 3 some line may have been sent and is
unresolved, or the journal cannot be read: run the same command again.`,
		Example: `  printf 'To,Text,ExternalId\n+61499999999,Hello,c-1\n' | telco sms batch --property PR... -`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("sms batch takes at most one FILE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.runBatch(cmd, args, o) },
	}
	fs := c.Flags()
	a.propertyFlag(fs, &o.prop)
	fs.StringVar(&o.format, "format", "", "csv or jsonl (default: from the extension or the content)")
	fs.IntVar(&o.chunk, "chunk-size", 100, "messages per request")
	fs.IntVar(&o.parallel, "parallel", 1, fmt.Sprintf("chunks in flight at once, 1 to %d; results stay in input order", maxParallel))
	fs.StringVar(&o.journal, "journal", "", "journal file (default FILE"+journalSuffix+"; none for standard input)")
	fs.BoolVar(&o.noJournal, "no-journal", false, "keep no journal: an interrupted batch cannot be resumed")
	fs.BoolVar(&o.force, "force", false, "send a batch the journal says is finished again, as a new batch")
	fs.BoolVar(&o.dryRun, "dry-run", false, "check every line and print what would be sent; send nothing")
	fs.BoolVar(&o.recover, "recover", false, "move a journal that cannot be read aside and look every line up before sending it")
	fs.StringVar(&o.since, "since", "", "with --recover: when the batch was first run, the look-ups search from then (default: the damaged journal's own, when it can be read)")
	fs.StringVar(&o.batchID, "batch-id", "", "with --recover: the damaged journal's batch ID (tb...), for lines without an ExternalId, when it cannot be read")
	completeEnum(c, "format", "csv", "jsonl")
	return c
}

// wrap breaks text at spaces into lines of at most width characters
// (a longer word has a line of its own), each starting with indent.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if line != indent && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	b.WriteString(line)
	return b.String()
}

// leaseFields names the fields of a leased send, from the wire's table.
func leaseFields() string {
	var names []string
	for _, f := range smswire.Fields() {
		if f.LeaseOnly {
			names = append(names, f.Name)
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// runBatch is sms batch once its flags are parsed.
func (a *app) runBatch(cmd *cobra.Command, args []string, o batchOpts) error {
	prop, err := a.property(o.prop)
	if err != nil {
		return err
	}
	switch {
	case o.chunk < 1:
		return usagef("--chunk-size must be at least 1")
	case o.parallel < 1 || o.parallel > maxParallel:
		return usagef("--parallel must be from 1 to %d (not %d)", maxParallel, o.parallel)
	case o.noJournal && o.journal != "":
		return usagef("give --journal or --no-journal, not both")
	case o.recover && (o.noJournal || o.dryRun):
		return usagef("--recover replaces a journal: not with --no-journal or --dry-run")
	case !o.recover && (o.since != "" || o.batchID != ""):
		return usagef("--since and --batch-id go with --recover")
	}
	if o.format, err = enum("format", o.format, "csv", "jsonl"); err != nil {
		return err
	}
	name := "-"
	var raw []byte
	if len(args) == 1 && args[0] != "-" {
		name = args[0]
		if raw, err = os.ReadFile(name); err != nil {
			return usagef("%v", err)
		}
	} else if raw, err = io.ReadAll(a.stdin); err != nil {
		return fmt.Errorf("reading standard input: %w", err)
	}
	lines, err := batch.Read(bytes.NewReader(raw), o.format, name, a.location())
	if err == nil {
		// Before a journal is bound to this input: a corrected file is
		// another input.
		err = batch.CheckIDs(lines)
	}
	if err != nil {
		return inputError(err)
	}

	path := o.journal
	switch {
	case o.noJournal:
		path = ""
	case path == "" && name == "-":
		fmt.Fprintln(a.stderr, "telco: reading standard input: no journal; give --journal PATH to make this batch resumable")
	case path == "":
		// One file reached by two names has one journal.
		if path, err = batch.DefaultJournalPath(name); err != nil {
			return usagef("%v", err)
		}
	}
	ctx := cmd.Context()
	var j *batch.Journal
	if path != "" {
		if j, err = a.openJournal(path, prop, batch.InputSum(raw), lines, o); err != nil {
			return err
		}
		defer j.Close()
	}
	job, err := batch.Prepare(ctx, prop, lines, j)
	if err != nil {
		return inputError(err)
	}
	complete := job.Complete()
	if complete && o.force {
		if err := job.Restart(ctx, o.dryRun); err != nil {
			return journalError(path, err)
		}
		complete = false
	}
	if o.dryRun {
		return a.batchDryRun(job, complete)
	}
	c, err := a.newClient(telco.WithLedger(job.Ledger()))
	if err != nil {
		return err
	}
	a.intr.finishInFlight()
	annotate(cmd, annResolve, prop)
	out := newBatchOutput(a, lines, job.IDs(), prop)
	if n := job.ToDo(); n > 0 && !complete {
		out.bar = a.newProgress("sending", n)
	}
	out.header()
	res := job.Run(ctx, c, batch.Options{ChunkSize: o.chunk, Parallel: o.parallel, Rows: out.rows, Stopping: a.intr.stopping})
	out.finish()
	if complete {
		fmt.Fprintf(a.stderr, "telco: batch already complete (journal %s): nothing sent; --force sends every line again\n", j.Path())
	}
	return a.batchStatus(res, j)
}

// openJournal opens the journal at path for this batch, or with
// --recover replaces one that cannot be read. A journal that cannot be
// read stops the batch with exit status 3: earlier runs may have sent
// lines, and nothing is known of which.
func (a *app) openJournal(path, prop, sum string, lines []batch.Line, o batchOpts) (*batch.Journal, error) {
	jo := batch.JournalOptions{Input: sum, Property: prop, ReadOnly: o.dryRun}
	if !o.recover {
		j, err := batch.OpenJournal(path, jo)
		if err != nil {
			return nil, journalError(path, err)
		}
		if j != nil {
			if from, found, _ := j.Ledger.Doubt(); found != "" {
				fmt.Fprintf(a.stderr, "telco: journal %s is damaged (%s): every line it does not record as sent is looked up by its ExternalId, from %s, before it is sent\n",
					path, found, a.formatTime(from))
			}
		}
		return j, nil
	}
	r := batch.RecoverOptions{BatchID: o.batchID, NeedBatchID: batch.NeedsBatchID(lines)}
	if o.since != "" {
		var err error
		if r.Since, err = a.parseTime("since", o.since, time.Now()); err != nil {
			return nil, err
		}
	}
	j, rec, err := batch.RecoverJournal(path, jo, r)
	if err != nil {
		return nil, journalError(path, err)
	}
	how := "given"
	if rec.Salvaged {
		how = "read from the damaged journal"
	}
	fmt.Fprintf(a.stderr, "telco: journal %s moved aside to %s; a new journal (batch %s, %s) looks every line up by its ExternalId, from %s, before sending it\n",
		path, rec.MovedTo, rec.BatchID, how, a.formatTime(rec.Since))
	return j, nil
}

// journalError says what a journal's failure means for the batch.
func journalError(path string, err error) error {
	var (
		me *batch.MismatchError
		fe *boltledger.FormatError
		de *boltledger.DamagedError
	)
	switch {
	case errors.As(err, &me):
		return &usageError{err}
	case errors.Is(err, boltledger.ErrBusy):
		return &exitError{code: exitService, msg: fmt.Sprintf("journal %s: in use by another telco process (is the batch still running?): nothing sent", path)}
	case errors.As(err, &fe):
		return &exitError{code: exitMaybeSent, msg: fmt.Sprintf("journal %s was written by an earlier version of telco: nothing sent; finish the batch with that version, "+
			"or run the same command with --recover to move the journal aside and look every line up by its ExternalId before sending it", path)}
	case errors.As(err, &de):
		return &exitError{code: exitMaybeSent, msg: fmt.Sprintf("journal %s cannot be read (%s): nothing sent, but earlier runs may have sent lines; "+
			"run the same command with --recover to move it aside and look every line up by its ExternalId before sending it "+
			"(with --since TIME, when the batch was first run, if the journal does not say)", path, strings.TrimPrefix(de.Error(), "ledger "+path+" is "))}
	case errors.Is(err, fs.ErrPermission), errors.Is(err, fs.ErrNotExist):
		return &usageError{fmt.Errorf("journal %s: %w", path, err)}
	}
	return fmt.Errorf("journal %s: %w", path, err)
}

// inputError turns the engine's input errors into usage errors.
func inputError(err error) error {
	var ie *batch.InputError
	if errors.As(err, &ie) {
		return &usageError{err}
	}
	return err
}

// batchRow is one line's outcome as printed: a JSON line under -o json.
type batchRow struct {
	Line       int
	ExternalID string `json:"ExternalId"`
	// State is sent, refused or uncertain (the send may have reached the
	// service: re-run the command, or run Resolve).
	State   string
	Earlier bool           `json:",omitempty"` // settled by an earlier run, as the journal says
	Found   bool           `json:",omitempty"` // was uncertain, found sent by its ExternalId
	Message *telco.Message `json:",omitempty"`
	Err     *rowError      `json:",omitempty"`
	Resolve string         `json:",omitempty"`
	to      string
}

// rowError is a line's rejection: the service's code, message and fields
// (or, for a line refused before sending, those the service would use).
type rowError struct {
	Code    string
	Message string
	Fields  []telco.FieldError `json:",omitempty"`
}

func rowErr(e *telco.APIError) *rowError {
	if e == nil {
		return nil
	}
	return &rowError{Code: e.Code, Message: e.Message, Fields: e.Fields}
}

// batchStatus is the batch's summary on standard error and its exit
// status: 3 when a line may have been sent and is unresolved, whatever
// else happened.
func (a *app) batchStatus(res *batch.Result, j *batch.Journal) error {
	summary := res.Summary()
	resume := ""
	if j != nil {
		resume = fmt.Sprintf("; re-run the same command to resume (journal %s)", j.Path())
	}
	switch {
	case res.Interrupted:
		if sig := a.intr.signal(); sig != nil {
			return &exitError{code: exitCode(sig), msg: fmt.Sprintf("interrupted by %s: %s%s", signalName(sig), summary, resume)}
		}
		code := exitService
		if res.Uncertain > 0 {
			code = exitMaybeSent
		}
		return &exitError{code: code, msg: fmt.Sprintf("writing the results: %v: %s; the journal holds them%s", res.OutputErr, summary, resume)}
	case res.Failed != nil:
		err := fmt.Errorf("%s: %w%s", summary, res.Failed, resume)
		if res.Uncertain > 0 {
			return &statusError{code: exitMaybeSent, err: err}
		}
		return err
	case res.Uncertain > 0:
		return &exitError{code: exitMaybeSent, msg: summary + resume}
	case res.Refused > 0 && res.Refused == res.LocalRefused && res.LocalRefused == res.Total:
		// Nothing was sent: as with one invalid sms send, a validation error.
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%d of %d messages refused before sending; none was sent", res.Refused, res.Total)}
	case res.Refused > 0:
		return &exitError{code: exitService, msg: fmt.Sprintf("%s: %d of %d messages rejected", summary, res.Refused, res.Total)}
	}
	fmt.Fprintf(a.stderr, "telco: %s\n", summary)
	return nil
}

// batchDryRun prints what a run would do with every line, and sends
// nothing.
func (a *app) batchDryRun(job *batch.Job, complete bool) error {
	type plan struct {
		batch.Plan
		Schedule string    `json:",omitempty"` // RFC 3339, in the local zone
		Err      *rowError `json:",omitempty"`
	}
	plans := job.Plans()
	counts := map[string]int{}
	rows := [][]string{{"LINE", "ACTION", "EXTERNAL ID", "FROM", "TO", "SCHEDULED", "SEGMENTS", "TEXT"}}
	for _, p := range plans {
		counts[p.Action]++
		if a.jsonOut() {
			out := plan{Plan: p, Err: rowErr(p.Err)}
			out.Schedule = a.formatTime(p.Schedule)
			if err := a.printJSONLine(a.stdout, out); err != nil {
				return err
			}
			continue
		}
		sched := a.formatTime(p.Schedule)
		act := p.Action
		if p.Err != nil {
			act += ": " + refusal(rowErr(p.Err))
		}
		rows = append(rows, []string{itoa(p.Line), act, p.ExternalID, p.From, p.To, sched, itoa(p.Segments), clean(p.Text)})
	}
	if !a.jsonOut() {
		if err := a.writeTable(rows); err != nil {
			return err
		}
	}
	summary := fmt.Sprintf("dry run, nothing sent: %d lines would be sent", counts["send"])
	if counts["look-up"] > 0 {
		summary += fmt.Sprintf(", %d looked up first (they may have been sent)", counts["look-up"])
	}
	if counts["done"] > 0 {
		summary += fmt.Sprintf(", %d settled by an earlier run", counts["done"])
	}
	if complete {
		summary += " (the batch is complete: --force would send it again)"
	}
	if counts["refuse"] > 0 {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%s, %d refused", summary, counts["refuse"])}
	}
	fmt.Fprintln(a.stderr, "telco: "+summary)
	return nil
}

// refusal is a rejection in one cell: code, message and fields.
func refusal(e *rowError) string {
	s := firstNonEmpty(e.Code, "REJECTED")
	if e.Message != "" {
		s += ": " + e.Message
	}
	var names []string
	for _, f := range e.Fields {
		if f.FieldName != "" {
			names = append(names, f.FieldName)
		}
	}
	if len(names) > 0 {
		s += " [" + strings.Join(names, ", ") + "]"
	}
	return s
}

// batchOutput prints a batch's rows as the engine hands them out, in
// input order: a table whose columns are sized up front from the input
// (so that rows printed chunk by chunk stay aligned), or one JSON object
// per line. It clears the progress bar before writing and redraws it
// after. A failed write is returned to the engine, which then stops after
// the chunks in flight.
type batchOutput struct {
	a      *app
	prop   string
	bar    *progress
	widths []int
	err    error
}

var batchHeader = []string{"LINE", "TO", "MESSAGE SID", "EXTERNAL ID", "RESULT"}

func newBatchOutput(a *app, lines []batch.Line, ids []string, prop string) *batchOutput {
	w := make([]int, len(batchHeader)-1)
	for i, h := range batchHeader[:len(w)] {
		w[i] = len(h)
	}
	w[2] = max(w[2], 32) // a MessageSid
	for i, l := range lines {
		w[0] = max(w[0], len(itoa(l.Num)))
		w[1] = max(w[1], len([]rune(clean(l.Params.To))))
		w[3] = max(w[3], len([]rune(clean(ids[i]))))
	}
	if a.width > 0 && a.output == "table" {
		all := append(w, len("RESULT")+20) // room for the start of a refusal
		fitWidths(all, a.width)
		w = all[:len(w)]
	}
	return &batchOutput{a: a, prop: prop, widths: w}
}

func (o *batchOutput) header() {
	if !o.a.jsonOut() {
		o.write(o.line(batchHeader))
	}
}

func (o *batchOutput) line(cells []string) string {
	var s strings.Builder
	used := 0
	for i, c := range cells {
		if i < len(o.widths) {
			c = cut(clean(c), o.widths[i])
			s.WriteString(c + strings.Repeat(" ", o.widths[i]-len([]rune(c))+tableGap))
			used += o.widths[i] + tableGap
			continue
		}
		c = clean(c)
		if o.a.width > 0 && o.a.output == "table" {
			c = cut(c, max(o.a.width-used, 1))
		}
		s.WriteString(c)
	}
	return s.String() + "\n"
}

// rows prints rows, and counts those of this run on the bar.
func (o *batchOutput) rows(in []batch.Row) error {
	var s strings.Builder
	for _, br := range in {
		r := batchRow{Line: br.Line, ExternalID: br.ExternalID, State: br.State, Earlier: br.Earlier, Found: br.Found,
			Message: br.Message, Err: rowErr(br.Err), to: br.To}
		if br.State == batch.StateUncertain {
			r.Resolve = findCommand(o.prop, br.Since.Add(-time.Minute).In(o.a.location()), []string{br.ExternalID})
		}
		if !br.Earlier {
			o.bar.add(1)
			if br.Err != nil {
				o.bar.refuse(1)
			}
		}
		if o.a.jsonOut() {
			b, err := encodeJSON(r, o.a.location())
			if err != nil {
				o.err = err
				return err
			}
			s.Write(b)
			s.WriteByte('\n')
			continue
		}
		sid := ""
		if r.Message != nil {
			sid = r.Message.MessageSid
		}
		res := "accepted"
		switch {
		case r.Err != nil:
			res = refusal(r.Err)
		case r.State == batch.StateUncertain:
			res = "UNCERTAIN: may have been sent; re-run the same command to look it up"
		case r.Found:
			res = "accepted (found by ExternalId)"
		}
		if r.Earlier {
			res += " (earlier run)"
		}
		s.WriteString(o.line([]string{itoa(r.Line), firstNonEmpty(messageTo(r.Message), r.to), sid, r.ExternalID, res}))
	}
	o.write(s.String())
	return o.err
}

func messageTo(m *telco.Message) string {
	if m == nil {
		return ""
	}
	return m.To
}

// write writes s between a clearing and a redrawing of the bar.
func (o *batchOutput) write(s string) {
	if o.err != nil {
		return
	}
	o.bar.clear()
	_, o.err = io.WriteString(o.a.stdout, s)
	o.bar.redraw()
}

// finish ends the progress bar.
func (o *batchOutput) finish() {
	o.bar.finish()
}

// signalName names a signal as the shell does: SIGHUP.
func signalName(s os.Signal) string {
	switch s.String() {
	case "hangup":
		return "SIGHUP"
	case "interrupt":
		return "SIGINT"
	case "terminated":
		return "SIGTERM"
	}
	return s.String()
}
