package main

// telco sms batch: the command, its flags, the opening and recovery of
// the journal and the account's ledger (ledger.go), and the printing of
// results and exit status. The engine (the input's readers, ExternalIds,
// the journal, the lines sent with the SDK's SendAll) is in
// internal/batch; the ledger's file is boltledger's.

import (
	"bytes"
	"context"
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
	"github.com/telcosdk/telco/internal/boltfile"
	"github.com/telcosdk/telco/internal/smswire"
)

// batchOpts are the flags of sms batch.
type batchOpts struct {
	prop, format, journal, ledger, since, batchID  string
	chunk, parallel                                int
	noJournal, force, dryRun, recover, lookUpFirst bool
}

// journalSuffix names the default journal, beside the input.
const journalSuffix = batch.JournalSuffix

// maxParallel bounds --parallel, as the SDK bounds SendAll's: past a
// handful of requests in flight a batch gains little (the service, not
// the client, sets the pace), and every chunk in flight is one a kill
// leaves to be looked up on resume.
const maxParallel = telco.MaxSendAllParallel

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

` + wrap("Every line is sent at most once. "+onceHelp, "", 76) + `

Each line has an ExternalId: its own column (no leading or trailing blank),
else one the batch makes up from its ID and the line number, kept in a
journal (FILE` + journalSuffix + ` beside the file FILE resolves to, or
--journal PATH; none for standard input unless --journal is given) under
the line's content, so that a line keeps it when the file is edited. Run
the same command again, after an interruption or on the file edited (a bad
number fixed, say): lines the ledger holds as sent are reported as sent
before, with their MessageSid, and not sent; lines that may have been sent
are looked up by ExternalId before anything is resent; the rest is sent.
--force sends the lines without an ExternalId of their own again, as a new
batch, once every line was sent; never an ExternalId in the file. --dry-run
checks every line and prints what would be sent.

A journal that cannot be read (truncated, damaged, or an earlier telco's)
sends nothing and exits 3: run again with --recover, which moves it aside,
makes the same ExternalIds again from the batch's ID, and looks every line
the ledger does not know up, from when the batch began (--since, and
--batch-id, when the damaged journal does not say), before sending it. A
ledger that cannot be read also exits 3: --recover --since TIME replaces
it.

Messages go in chunks of --chunk-size, up to --parallel chunks in flight
at once (default 1, at most 16). Results are printed chunk by chunk in the
order of the input (table rows, or one JSON object per line with -o json),
a chunk that finishes early waiting for those before it, with the lines
sent before marked so. SIGHUP, SIGINT and SIGTERM finish the chunks in
flight, write the ledger and the output, and exit 129, 130 or 143; a second
signal stops at once (the ledger still says which lines may have been
sent). A progress bar is drawn on standard error when it is a
terminal.

Exit status: 0 every line sent; 1 some line refused, or a failure that
sent nothing (the rest is not sent); 2 a usage error, or every line refused
before sending (nothing sent); 3 some line may have been sent and is
unresolved, or the journal or ledger cannot be read: run the same command
again. Many lines in doubt are counted, not listed: --dry-run shows them
as look-ups.`,
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
	fs.StringVar(&o.journal, "journal", "", "journal file: the ExternalIds the batch makes up for lines without one (default FILE"+journalSuffix+"; none for standard input); what was sent is in the ledger")
	fs.StringVar(&o.ledger, "ledger", "", ledgerHelp)
	fs.BoolVar(&o.noJournal, "no-journal", false, "keep no journal: lines without an ExternalId of their own get ExternalIds made from the input, the same for the same input but new for an edited one (lines with one are still sent once per ledger)")
	fs.BoolVar(&o.force, "force", false, "once every line was sent, send the lines without an ExternalId of their own again, as a new batch (never an ExternalId in the file)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "check every line and print what would be sent; send nothing")
	fs.BoolVar(&o.recover, "recover", false, "replace a journal (or, with --since, a ledger) that cannot be read, and look every line the ledger does not know up before sending it")
	fs.BoolVar(&o.lookUpFirst, "look-up-first", false, lookUpFirstHelp+"; one scan of the window for the whole batch")
	fs.StringVar(&o.since, "since", "", "with --recover: when the batch (or the ledger) was first used: the look-ups search from then (default: the damaged journal's own, when it can be read); with --look-up-first: how far back it looks")
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
	case o.recover && o.dryRun:
		return usagef("--recover replaces a journal or a ledger: not with --dry-run")
	case o.batchID != "" && !o.recover:
		return usagef("--batch-id goes with --recover")
	case o.since != "" && !o.recover && !o.lookUpFirst:
		return usagef("--since goes with --recover or --look-up-first")
	}
	if o.format, err = enum("format", o.format, "csv", "jsonl"); err != nil {
		return err
	}
	var since, lookFrom time.Time
	if o.since != "" {
		if since, err = a.parseTime("since", o.since, time.Now()); err != nil {
			return err
		}
	}
	if o.lookUpFirst {
		if lookFrom, err = a.lookUpSince(ledgerOpts{lookUpFirst: true, since: o.since}, time.Now()); err != nil {
			return err
		}
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
		// Before the journal makes up ExternalIds for the other lines.
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
		if batch.NeedsBatchID(lines) {
			fmt.Fprintln(a.stderr, "telco: reading standard input without --journal: lines without an ExternalId of their own get ExternalIds made from the input, so an edited input sends them all again; give --journal PATH to keep them across edits")
		}
	case path == "":
		// One file reached by two names has one journal.
		if path, err = batch.DefaultJournalPath(name); err != nil {
			return usagef("%v", err)
		}
	}
	ctx := cmd.Context()
	var j *batch.Journal
	var rec *batch.Recovery
	sum := batch.InputSum(raw)
	if path != "" {
		if j, rec, err = a.openJournal(path, prop, sum, lines, o, since); err != nil {
			return err
		}
		defer j.Close()
	}
	// Every ExternalId the batch makes up is in the journal before a
	// request carries it.
	ids, err := batchIDs(j, batch.BatchIDOf(sum, prop, ""), lines, !o.dryRun)
	if err != nil {
		return journalError(path, err)
	}

	ledgerPath, ledger, recovered, err := a.batchLedger(o, since)
	if err != nil {
		return err
	}
	if ledger != nil {
		defer ledger.Close()
	}
	if o.recover && rec == nil && !recovered {
		return usagef("the journal and the ledger can be read: --recover is only for a journal or a ledger that cannot; run without it")
	}
	var l telco.Ledger
	if ledger != nil {
		l = ledger
	}
	var c *telco.Client
	if !o.dryRun {
		if c, err = a.newClient(telco.WithLedger(l)); err != nil {
			return err
		}
		if err := a.fillBatchLedger(ctx, c, prop, ledgerPath, rec, lookFrom); err != nil {
			return err
		}
	} else if o.lookUpFirst {
		fmt.Fprintln(a.stderr, "telco: dry run: --look-up-first looks the project's messages up when the batch runs, not now: lines it would find show here as sends")
	}
	job, err := batch.Prepare(ctx, prop, lines, ids, l)
	if err != nil {
		return inputError(err)
	}
	complete := job.Complete()
	if complete && o.force {
		if job.MadeUp() == 0 {
			fmt.Fprintln(a.stderr, "telco: --force sends again only lines without an ExternalId of their own; every line here has one, and an ExternalId you give is sent once per ledger")
		} else {
			if j != nil && !o.dryRun {
				if err := j.Restart(sum); err != nil {
					return journalError(path, err)
				}
				ids, err = j.IDs(lines, true)
			} else {
				// A dry run writes nothing: the new batch's IDs as the
				// journal's Restart will take them.
				current := batch.BatchIDOf(sum, prop, "")
				if j != nil {
					current = j.BatchID()
				}
				ids, err = batchIDs(nil, batch.BatchIDOf(sum, prop, current), lines, false)
			}
			if err != nil {
				return journalError(path, err)
			}
			if job, err = batch.Prepare(ctx, prop, lines, ids, l); err != nil {
				return inputError(err)
			}
			complete = false
		}
	}
	if o.dryRun {
		return a.batchDryRun(job, complete)
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
		more := ""
		if job.MadeUp() > 0 {
			more = "; --force sends the lines without an ExternalId of their own again, as a new batch"
		}
		fmt.Fprintf(a.stderr, "telco: every line was sent before (ledger %s): nothing sent%s\n", ledgerPath, more)
	}
	return a.batchStatus(res, batchRerun{args: args, o: o, prop: prop, journal: path, ledger: ledgerPath})
}

// batchIDs gives the lines their ExternalIds: from the journal j, which
// keeps those it makes up (written first, with write), or, without one,
// made up from batchID as a new journal would make them.
func batchIDs(j *batch.Journal, batchID string, lines []batch.Line, write bool) ([]string, error) {
	if j == nil {
		ids, _ := batch.AssignIDs(lines, batchID, nil)
		return ids, nil
	}
	return j.IDs(lines, write)
}

// fillBatchLedger records in the batch's ledger, with one scan of the
// project's messages, what the service shows as sent that the ledger may
// not know of: since lookFrom for --look-up-first (zero: not asked), and
// since the batch began when rec says a journal was recovered (a lost
// journal, or an earlier telco's, may have sent lines without the
// ledger). The lines found are then sent before, not sent again. After a
// recovery it first waits a settle time: the run that wrote the journal
// may have ended moments ago, and the service's search shows a message
// only after a lag.
func (a *app) fillBatchLedger(ctx context.Context, c *telco.Client, prop, ledgerPath string, rec *batch.Recovery, lookFrom time.Time) error {
	from := lookFrom
	if rec != nil {
		if from.IsZero() || rec.Since.Before(from) {
			from = rec.Since
		}
		settle, err := a.settleTime()
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(settle):
		}
	}
	if from.IsZero() {
		return nil
	}
	n, err := c.Messages.FillLedger(ctx, prop, from, time.Now().Add(time.Minute))
	if err != nil {
		return fmt.Errorf("looking up the project's messages since %s, before sending (nothing sent): %w", a.formatTime(from), err)
	}
	fmt.Fprintf(a.stderr, "telco: looked up the project's messages since %s: %s the ledger did not know recorded as sent (ledger %s)\n",
		a.formatTime(from), plural(n, "ExternalId"), ledgerPath)
	return nil
}

// batchLedger opens the send ledger of a batch: --ledger, else the
// account's. A dry run only reads it, and without credentials reads none
// (nil); with --recover and --since, a ledger that cannot be read is
// replaced (recovered).
func (a *app) batchLedger(o batchOpts, since time.Time) (path string, l *boltledger.Ledger, recovered bool, err error) {
	path, err = a.ledgerPath(o.ledger)
	if err != nil {
		if o.dryRun && o.ledger == "" {
			fmt.Fprintf(a.stderr, "telco: dry run: the account's ledger is not read (%v): lines sent before are shown as sends\n", err)
			return "", nil, false, nil
		}
		return "", nil, false, err
	}
	if o.dryRun {
		l, err = readLedger(path)
		return path, l, false, err
	}
	l, recovered, err = a.openLedger(path, o.recover && o.since != "", since)
	return path, l, recovered, err
}

// openJournal opens the journal at path for this batch, or with
// --recover replaces one that cannot be read. A journal that cannot be
// read stops the batch with exit status 3 unless --recover: it may hold
// ExternalIds that lines were sent under.
func (a *app) openJournal(path, prop, sum string, lines []batch.Line, o batchOpts, since time.Time) (*batch.Journal, *batch.Recovery, error) {
	jo := batch.JournalOptions{Input: sum, Property: prop, ReadOnly: o.dryRun}
	j, err := batch.OpenJournal(path, jo)
	var ee *batch.EarlierError
	if err == nil || !o.recover || !(errors.Is(err, boltfile.ErrUnreadable) || errors.As(err, &ee)) {
		if err != nil {
			return nil, nil, journalError(path, err)
		}
		return j, nil, nil
	}
	r := batch.RecoverOptions{Since: since, BatchID: o.batchID, NeedBatchID: batch.NeedsBatchID(lines)}
	j, rec, err := batch.RecoverJournal(path, jo, r)
	if err != nil {
		return nil, nil, journalError(path, err)
	}
	how := "given"
	if rec.Salvaged {
		how = "read from the damaged journal"
	}
	fmt.Fprintf(a.stderr, "telco: journal %s moved aside to %s; a new journal (batch %s, %s) has every line the ledger does not know looked up by its ExternalId, from %s, before it is sent\n",
		path, rec.MovedTo, rec.BatchID, how, a.formatTime(rec.Since))
	return j, rec, nil
}

// journalError says what a journal's failure means for the batch.
func journalError(path string, err error) error {
	var (
		me *batch.MismatchError
		ee *batch.EarlierError
		de *boltfile.DamagedError
	)
	switch {
	case errors.As(err, &me):
		return &usageError{err}
	case errors.Is(err, boltfile.ErrBusy):
		return &exitError{code: exitService, msg: fmt.Sprintf("journal %s: in use by another telco process (is the batch still running?): nothing sent", path)}
	case errors.As(err, &ee):
		return &exitError{code: exitMaybeSent, msg: fmt.Sprintf("journal %s was written by an earlier version of telco: nothing sent; finish the batch with that version, "+
			"or run the same command with --recover to move the journal aside and look every line up by its ExternalId before sending it", path)}
	case errors.As(err, &de):
		return &exitError{code: exitMaybeSent, msg: fmt.Sprintf("journal %s cannot be read (%s): nothing sent, but earlier runs may have sent lines under ExternalIds it made up; "+
			"run the same command with --recover to move it aside and look every line up by its ExternalId before sending it "+
			"(with --since TIME, when the batch was first run, if the journal does not say)", path, strings.TrimPrefix(de.Error(), "journal "+path+" is "))}
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
	Earlier bool           `json:",omitempty"` // sent before (by an earlier run, batch or sms send), as the ledger says
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

// batchRerun is what batchStatus needs to say how to go on: the
// command's input and flags, the journal's path ("" for none) and the
// ledger's.
type batchRerun struct {
	args            []string
	o               batchOpts
	prop            string
	journal, ledger string
}

// batchStatus is the batch's summary on standard error and its exit
// status: 3 when a line may have been sent and is unresolved, whatever
// else happened.
func (a *app) batchStatus(res *batch.Result, rr batchRerun) error {
	summary := res.Summary()
	resume := fmt.Sprintf("; re-run the same command to resume (ledger %s)", rr.ledger)
	if rr.journal != "" {
		resume = fmt.Sprintf("; re-run the same command to resume (journal %s)", rr.journal)
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
		return &exitError{code: code, msg: fmt.Sprintf("writing the results: %v: %s; the ledger holds them%s", res.OutputErr, summary, resume)}
	case res.Uncertain > 0:
		return a.batchDoubt(res, rr)
	case res.Failed != nil:
		return fmt.Errorf("%s: %w%s", summary, res.Failed, resume)
	case res.Refused > 0 && res.Refused == res.LocalRefused && res.LocalRefused == res.Total:
		// Nothing was sent: as with one invalid sms send, a validation error.
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%d of %s refused before sending; none was sent", res.Refused, plural(res.Total, "message"))}
	case res.Refused > 0:
		return &exitError{code: exitService, msg: fmt.Sprintf("%s: %d of %s rejected", summary, res.Refused, plural(res.Total, "message"))}
	}
	fmt.Fprintf(a.stderr, "telco: %s\n", summary)
	return nil
}

// fewInDoubt is how many lines in doubt the end of a batch names, each
// with a flag of the look-up that settles it; past that it names the
// command that lists them.
const fewInDoubt = 5

// batchDoubt is the end of a batch that left lines in doubt (exit 3), in
// a few lines however many: how many, the command to run (the same
// again, which looks them up before anything is resent), and what lists
// them.
func (a *app) batchDoubt(res *batch.Result, rr batchRerun) error {
	msg := res.Summary()
	if res.Failed != nil {
		msg += ": " + firstLine(userText(res.Failed.Error())) // a chunk's failure names its lines, not each ExternalId
	}
	where := "ledger " + rr.ledger
	if rr.journal != "" {
		where = "journal " + rr.journal
	}
	e := &doubtError{msg: msg, rerun: fmt.Sprintf("run the same command again (%s): it looks the %d lines in doubt up by ExternalId and resends only those not found", where, res.Uncertain)}
	since := res.UncertainSince.Add(-time.Minute).In(a.location())
	switch {
	case len(res.UncertainIDs) <= fewInDoubt:
		e.list = findCommand(rr.prop, since, res.UncertainIDs)
	case rr.journal == "" && res.MadeUpUncertain:
		e.list = "the lines marked uncertain on standard output (their ExternalIds were made up for this run only)"
		e.listIsText = true
	default:
		e.list = a.dryRunCommand(rr) + "  # their Action is look-up"
	}
	return e
}

// dryRunCommand is the command line that prints a batch's plan, in which
// lines in doubt are look-ups: the input and the flags that choose the
// journal, the ledger and the project, never a credential.
func (a *app) dryRunCommand(rr batchRerun) string {
	in := "-"
	if len(rr.args) == 1 {
		in = rr.args[0]
	}
	parts := []string{"telco sms batch", shellQuote(in), "--dry-run", "--property", shellQuote(rr.prop)}
	if rr.o.format != "" {
		parts = append(parts, "--format", rr.o.format)
	}
	if rr.o.journal != "" {
		parts = append(parts, "--journal", shellQuote(rr.o.journal))
	}
	if rr.o.ledger != "" {
		parts = append(parts, "--ledger", shellQuote(rr.o.ledger))
	}
	cmd := strings.Join(parts, " ")
	if in == "-" {
		cmd += " < the same input"
	}
	return cmd
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// doubtError ends a batch that left lines in doubt: it matches
// telco.ErrMaybeSent (exit 3), and its Resolve is what lists them.
type doubtError struct {
	msg, rerun, list string
	listIsText       bool
}

func (e *doubtError) Error() string        { return e.msg }
func (e *doubtError) Is(target error) bool { return target == telco.ErrMaybeSent }

// Resolve is the command (or the place) that lists the lines in doubt.
func (e *doubtError) Resolve() string { return e.list }

// Details are the lines said after the message: what to run, and what
// lists the lines.
func (e *doubtError) Details() []string {
	how := "to list them: "
	if e.listIsText {
		how = "they are "
	}
	return []string{e.rerun, how + e.list}
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
	summary := fmt.Sprintf("dry run, nothing sent: %s would be sent", plural(counts["send"], "line"))
	if n := counts["look-up"]; n == 1 {
		summary += ", 1 looked up first (it may have been sent)"
	} else if n > 0 {
		summary += fmt.Sprintf(", %d looked up first (they may have been sent)", n)
	}
	if counts["done"] > 0 {
		summary += fmt.Sprintf(", %d sent before", counts["done"])
	}
	if complete && job.MadeUp() > 0 {
		summary += " (every line was sent before: --force would send the lines without an ExternalId of their own again)"
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
			res += " (sent before)"
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
