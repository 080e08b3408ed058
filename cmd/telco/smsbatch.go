package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// batchOpts are the flags of sms batch.
type batchOpts struct {
	prop, format, journal    string
	chunk, parallel          int
	noJournal, force, dryRun bool
}

// journalSuffix names the default journal, beside the input.
const journalSuffix = ".telco-journal"

// maxParallel bounds --parallel: past a handful of requests in flight a
// batch gains little (the service, not the client, sets the pace), and
// every chunk in flight is one a kill leaves to be looked up on resume.
const maxParallel = 16

func (a *app) smsBatchCmd() *cobra.Command {
	var o batchOpts
	c := &cobra.Command{
		Use:   "batch [FILE|-]",
		Short: "Send many SMS from a CSV or JSON-lines file, resumably",
		Long: `Send many SMS in batches. The input is CSV with a header row naming the
columns, or JSON lines (one object per line) or a JSON array of objects,
with the same names (string values; Schedule may be a number and
DeliveryReceipt a boolean):

  From, To, Text, ExternalId, Schedule (Unix seconds, RFC 3339, or a date
  and time without a zone, read in the local zone), DeliveryReceipt
  (true/false), DeliveryReceiptWebhookUri, DeliveryReceiptWebhookMethod,
  ForwardToSms, ForwardFromSms, ForwardToEmail, ForwardFromEmail,
  WebhookUri, WebhookMethod

The format is taken from --format, else the file's extension, else the
first character (a '{' means JSON lines, a '[' a JSON array). FILE - or no
FILE reads standard input.

Every message is sent at most once. Each line has an ExternalId: its own
column, else one made from the batch and the line number. A journal
(FILE` + journalSuffix + `, or --journal PATH; none for standard input unless
--journal is given) records each line before and after its request. Run
the same command again after an interruption: sent lines are skipped,
lines that may have been sent are looked up by ExternalId before anything
is resent, the rest is sent. A finished batch sends nothing again unless
--force. --dry-run checks every line and prints what would be sent.

Messages go in chunks of --chunk-size, up to --parallel chunks in flight
at once (default 1, at most 16). Results are printed chunk by chunk in the
order of the input (table rows, or one JSON object per line with -o json),
a chunk that finishes early waiting for those before it, with the lines
settled by an earlier run marked so. SIGHUP, SIGINT and SIGTERM finish the
chunks in flight, write the journal and the output, and exit 129, 130 or
143; a second signal stops at once (the journal still says which lines may
have been sent). A progress bar is drawn on standard error when it is a
terminal.

Exit status: 0 every line sent; 1 some line refused by the service, or
left uncertain, or a failure; 2 every line refused before sending (nothing
was sent), or a usage error.`,
		Example: `  printf 'To,Text,ExternalId\n+61499999999,Hello,c-1\n' | telco sms batch --property PR... -`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("sms batch takes at most one FILE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			prop, err := a.property(o.prop)
			if err != nil {
				return err
			}
			if o.chunk < 1 {
				return usagef("--chunk-size must be at least 1")
			}
			if o.parallel < 1 || o.parallel > maxParallel {
				return usagef("--parallel must be from 1 to %d (not %d)", maxParallel, o.parallel)
			}
			if o.noJournal && o.journal != "" {
				return usagef("give --journal or --no-journal, not both")
			}
			if o.format, err = enum("format", o.format, "csv", "jsonl"); err != nil {
				return err
			}
			name := "-"
			var raw []byte
			if len(args) == 1 && args[0] != "-" {
				name = args[0]
				raw, err = os.ReadFile(name)
				if err != nil {
					return usagef("%v", err)
				}
			} else if raw, err = io.ReadAll(a.stdin); err != nil {
				return fmt.Errorf("reading standard input: %w", err)
			}
			lines, err := readBatch(bytes.NewReader(raw), o.format, name)
			if err != nil {
				return err
			}
			b := &batch{a: a, cmd: cmd, o: o, prop: prop, name: name, sum: inputSum(raw), lines: lines}
			return b.run()
		},
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
	completeEnum(c, "format", "csv", "jsonl")
	return c
}

// batchLine is one message of a batch file and where it came from.
type batchLine struct {
	line int
	p    telco.SendMessageParams
}

// batch is one run of sms batch.
type batch struct {
	a     *app
	cmd   *cobra.Command
	o     batchOpts
	prop  string
	name  string // the input's name, "-" for standard input
	sum   string // the input's SHA-256
	lines []batchLine

	j     *journal
	recs  map[int]lineRecord // each line's state, by index in lines
	ids   []string           // each line's ExternalId
	local map[int]*telco.APIError
	out   *batchOutput
	stats batchStats
}

type batchStats struct {
	sent, earlier, refused, localRefused, uncertain, found int
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
	idx     int // index in the input
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

func (b *batch) run() error {
	a := b.a
	path := b.o.journal
	if path == "" && !b.o.noJournal {
		if b.name == "-" {
			fmt.Fprintln(a.stderr, "telco: reading standard input: no journal; give --journal PATH to make this batch resumable")
		} else {
			path = b.name + journalSuffix
		}
	}
	if b.o.noJournal {
		path = ""
	}
	b.recs = map[int]lineRecord{}
	batchID := newBatchID()
	if path != "" {
		j, err := openJournal(path, b.sum, b.prop, b.o.dryRun)
		if err != nil {
			return err
		}
		defer j.close()
		if j != nil {
			if b.recs, err = j.records(); err != nil {
				return fmt.Errorf("journal %s: %w", path, err)
			}
			batchID = j.meta.BatchID
			b.j = j
		}
	}
	complete := len(b.lines) > 0 && b.settled() == len(b.lines)
	if complete && b.o.force {
		if !b.o.dryRun {
			if err := b.j.restart(); err != nil {
				return fmt.Errorf("journal %s: %w", path, err)
			}
			batchID = b.j.meta.BatchID
		} else {
			batchID = newBatchID()
		}
		b.recs = map[int]lineRecord{}
		complete = false
	}
	if err := b.prepare(batchID); err != nil {
		return err
	}
	if b.o.dryRun {
		return b.dryRun(complete)
	}
	return a.withClient(func(c *telco.Client) error { return b.send(c, complete) })
}

// settled counts the lines the journal has sent or refused.
func (b *batch) settled() int {
	n := 0
	for i := range b.lines {
		if s := b.recs[i].State; s == stateSent || s == stateRefused {
			n++
		}
	}
	return n
}

// prepare gives each line its ExternalId and checks every line: distinct
// ExternalIds (a usage error otherwise), and the SDK's rules (a line that
// fails them is refused without being sent).
func (b *batch) prepare(batchID string) error {
	b.ids = make([]string, len(b.lines))
	b.local = map[int]*telco.APIError{}
	first := map[string]int{}
	var dups []string
	for i := range b.lines {
		l := &b.lines[i]
		id := l.p.ExternalID
		if r, ok := b.recs[i]; ok && r.ExternalID != "" {
			id = r.ExternalID
		} else if id == "" {
			id = batchID + "-" + strconv.Itoa(l.line)
		}
		if j, dup := first[id]; dup {
			if len(dups) < 5 {
				dups = append(dups, fmt.Sprintf("lines %d and %d share ExternalId %q", b.lines[j].line, l.line, id))
			}
			continue
		}
		first[id] = i
		b.ids[i] = id
		l.p.ExternalID = id
		var ve *telco.ValidationError
		if err := l.p.Validate(); errors.As(err, &ve) && len(ve.Fields) > 0 {
			b.local[i] = &telco.APIError{Op: "Messages.SendBatch", Code: ve.Fields[0].Code, Message: ve.Fields[0].Message, Fields: ve.Fields}
		}
	}
	if len(dups) > 0 {
		return usagef("every line needs its own ExternalId (it is how a message that may have been sent is found again): %s", strings.Join(dups, "; "))
	}
	return nil
}

// send runs the batch: the journal's record first, then the lines refused
// before sending, then a look-up of the lines that may have been sent,
// then the rest in chunks until done or interrupted.
func (b *batch) send(c *telco.Client, complete bool) error {
	a := b.a
	ctx := b.cmd.Context()
	a.intr.finishInFlight()
	annotate(b.cmd, annResolve, b.prop)

	var settledRows []batchRow
	var doubt, pending []int
	for i, l := range b.lines {
		r := b.recs[i]
		switch r.State {
		case stateSent, stateRefused:
			settledRows = append(settledRows, batchRow{idx: i, Line: l.line, ExternalID: b.ids[i], State: r.State, Earlier: true,
				Message: r.Message, Err: rowErr(r.Err), to: l.p.To})
			if r.State == stateSent {
				b.stats.earlier++
			} else {
				b.stats.refused++
			}
		case stateSending, stateUncertain:
			doubt = append(doubt, i)
		default:
			pending = append(pending, i)
		}
	}

	b.out = newBatchOutput(a, b.lines, b.ids)
	if n := len(doubt) + len(pending); n > 0 && !complete {
		b.out.bar = a.newProgress("sending", n)
	}
	b.out.header()
	b.out.put(settledRows...)

	if complete {
		b.out.finish()
		fmt.Fprintf(a.stderr, "telco: batch already complete (journal %s): nothing sent; --force sends every line again\n", b.j.path)
		return b.status(nil, false)
	}

	if len(doubt) > 0 {
		found, err := b.reconcile(c, doubt)
		if err != nil {
			b.out.finish()
			return err
		}
		pending = append(found, pending...)
		sort.Ints(pending)
	}

	failed, interrupted := b.sendChunks(ctx, c, pending)
	b.out.finish()
	if b.out.err != nil && failed == nil {
		failed = fmt.Errorf("writing the results: %w; the journal holds them: re-run the same command to print them", b.out.err)
	}
	return b.status(failed, interrupted)
}

// chunkRun is one chunk of a batch: its lines, what the journal was told
// before its request, what came back, and what is printed of it.
type chunkRun struct {
	k      int   // its place among the chunks
	part   []int // indexes in b.lines
	now    time.Time
	before map[int]lineRecord
	msgs   []telco.SendMessageParams
	at     map[int]int // index in msgs of each line sent
	res    []telco.BatchResult
	err    error // the request's
	jerr   error // writing the journal before the request failed: nothing sent
	done   bool  // the request is over (set by sendChunks only)

	rows   []batchRow // its results, once settled
	unsure []string   // ExternalIds that may have been sent
}

// sendChunks sends pending in chunks of --chunk-size, up to --parallel
// requests in flight. Requests start in input order, each once the
// journal holds its lines as "sending"; a finished chunk waits until the
// chunks before it are finished too, so the journal's results, the
// output and the progress bar advance in input order whatever the order
// the answers come in. The window of chunks started but not yet written
// out is at most --parallel, so a slow chunk holds back new ones rather
// than letting finished ones pile up, and a kill leaves at most that many
// chunks in doubt. Each step writes the journal once: the results of the
// chunks just finished with the "sending" records of those about to
// start, half the synced commits of one before and one after each
// request, which on a slow disk would set the batch's pace. A failed
// chunk, a signal or an output failure starts nothing more; the chunks
// in flight are finished and written first. It returns the first failure
// in input order and whether the batch was cut short.
func (b *batch) sendChunks(ctx context.Context, c *telco.Client, pending []int) (failed error, interrupted bool) {
	var chunks [][]int
	for start := 0; start < len(pending); start += b.o.chunk {
		chunks = append(chunks, pending[start:min(start+b.o.chunk, len(pending))])
	}
	par := max(b.o.parallel, 1)
	runs := make([]*chunkRun, len(chunks))
	finished := make(chan int, len(chunks)) // room for every chunk: a request never waits to report
	next, flushed := 0, 0                   // chunks started; chunks settled
	halt := false
	for {
		recs := map[int]lineRecord{}
		var ready []*chunkRun
		for ; flushed < next && runs[flushed].done; flushed++ {
			r := runs[flushed]
			ready = append(ready, r)
			if r.jerr == nil {
				b.settleChunk(r, recs)
			}
		}
		if !halt && next < len(chunks) && (b.a.intr.stopping() || b.out.err != nil) {
			halt, interrupted = true, true
		}
		var started []*chunkRun
		for ; !halt && next < len(chunks) && next-flushed < par; next++ {
			r := b.startChunk(chunks[next])
			r.k = next
			runs[next] = r
			started = append(started, r)
			for i, rec := range r.before {
				recs[i] = rec
			}
		}
		jerr := b.j.put(recs)
		for _, r := range ready {
			if err := b.reportChunk(r, jerr, runs[next-1], next == len(chunks)); err != nil && failed == nil {
				failed = err
			}
		}
		for _, r := range started {
			switch {
			case jerr != nil:
				r.jerr, r.done, halt = jerr, true, true
			case len(r.msgs) == 0: // every line refused before sending
				r.done = true
			default:
				go func() {
					r.res, r.err = c.Messages.SendBatchOnce(ctx, b.prop, r.msgs)
					finished <- r.k
				}()
			}
		}
		if flushed < next && runs[flushed].done {
			continue
		}
		if flushed == next {
			break
		}
		k := <-finished
		runs[k].done = true
		if runs[k].err != nil {
			halt = true
		}
	}
	if b.a.intr.stopping() {
		interrupted = true
	}
	return failed, interrupted
}

// startChunk prepares the lines part for their request: the records that
// say they are being sent. Lines that break the SDK's rules are not sent.
func (b *batch) startChunk(part []int) *chunkRun {
	r := &chunkRun{part: part, now: time.Now(), before: make(map[int]lineRecord, len(part)), at: make(map[int]int, len(part))}
	for _, i := range part {
		if b.local[i] != nil {
			continue
		}
		r.before[i] = lineRecord{State: stateSending, Line: b.lines[i].line, ExternalID: b.ids[i], Attempt: r.now.UnixMilli()}
		r.at[i] = len(r.msgs)
		r.msgs = append(r.msgs, b.lines[i].p)
	}
	return r
}

// settleChunk turns the answer to the chunk r into each line's record
// (added to recs, for the journal) and row, and counts them.
func (b *batch) settleChunk(r *chunkRun, recs map[int]lineRecord) {
	r.rows = make([]batchRow, 0, len(r.part))
	for _, i := range r.part {
		row := batchRow{idx: i, Line: b.lines[i].line, ExternalID: b.ids[i], to: b.lines[i].p.To}
		if e := b.local[i]; e != nil {
			recs[i] = lineRecord{State: stateRefused, Line: row.Line, ExternalID: row.ExternalID, Err: e}
			row.State, row.Err = stateRefused, rowErr(e)
			r.rows = append(r.rows, row)
			b.stats.refused++
			b.stats.localRefused++
			b.out.bar.refuse(1)
			continue
		}
		var br telco.BatchResult
		if k := r.at[i]; k < len(r.res) {
			br = r.res[k]
		}
		rec := r.before[i]
		switch {
		case br.Message != nil:
			rec.State, rec.Message = stateSent, br.Message
			b.stats.sent++
		case br.Err != nil:
			rec.State, rec.Err = stateRefused, br.Err
			b.stats.refused++
			b.out.bar.refuse(1)
		case r.err != nil && errors.Is(r.err, telco.ErrMaybeSent):
			rec.State = stateUncertain
			b.stats.uncertain++
			r.unsure = append(r.unsure, rec.ExternalID)
		default:
			rec.State = statePending // not sent: the request failed before reaching a decision
		}
		recs[i] = rec
		if rec.State != statePending {
			row.State, row.Message, row.Err = rec.State, rec.Message, rowErr(rec.Err)
			r.rows = append(r.rows, row)
		}
	}
}

// reportChunk prints the rows of the settled chunk r, once the journal
// has been written (jerr is how that went), and says what failed. final
// is the last chunk started and all says whether every chunk was:
// together they say which later lines a failure of r left unsent.
func (b *batch) reportChunk(r *chunkRun, jerr error, final *chunkRun, all bool) error {
	first, end := b.lines[r.part[0]].line, b.lines[r.part[len(r.part)-1]].line
	if r.jerr != nil {
		return fmt.Errorf("journal %s: %w (lines %d to %d not sent)", b.j.path, r.jerr, first, end)
	}
	if len(r.unsure) > 0 {
		hint := findCommand(b.prop, r.now.Add(-time.Minute), r.unsure)
		for k := range r.rows {
			if r.rows[k].State == stateUncertain {
				r.rows[k].Resolve = hint
			}
		}
	}
	shown := map[int]bool{}
	for _, row := range r.rows {
		shown[row.idx] = true
	}
	for _, i := range r.part {
		if !shown[i] {
			b.out.pass(i)
		}
	}
	b.out.put(r.rows...)
	b.out.bar.add(len(r.rows))
	if jerr != nil {
		return fmt.Errorf("journal %s: %w (lines %d to %d may have been sent: re-run the same command to look them up)",
			b.j.path, jerr, first, end)
	}
	err := r.err
	if err == nil {
		return nil
	}
	// Chunks already in flight when r failed were finished, and their lines
	// are in the output: only the lines of chunks never started are unsent.
	later, and := "; later lines were not sent", " and later"
	if r != final {
		finalEnd := b.lines[final.part[len(final.part)-1]].line
		later, and = fmt.Sprintf("; lines after %d were not sent", finalEnd), fmt.Sprintf(", and the lines after %d,", finalEnd)
		if all {
			later, and = "", ""
		}
	}
	if len(r.unsure) > 0 {
		return fmt.Errorf("lines %d to %d: %d may have been sent (re-run the same command to look them up, or: %s)%s: %w",
			first, end, len(r.unsure), findCommand(b.prop, r.now.Add(-time.Minute), r.unsure), later, err)
	}
	return fmt.Errorf("lines %d to %d%s were not sent: %w", first, end, and, err)
}

// reconcile looks up the lines the journal says may have been sent, by
// ExternalId, after the settle time has passed since their request. It
// returns the lines not found, which are to be sent; the found ones are
// journalled as sent and printed.
func (b *batch) reconcile(c *telco.Client, doubt []int) ([]int, error) {
	var since, last time.Time
	ids := make([]string, len(doubt))
	for k, i := range doubt {
		r := b.recs[i]
		t := time.UnixMilli(r.Attempt)
		if r.Attempt == 0 {
			t = b.j.meta.Created
		}
		if since.IsZero() || t.Before(since) {
			since = t
		}
		if t.After(last) {
			last = t
		}
		ids[k] = b.ids[i]
	}
	// A request still being processed when the process died is stored
	// within the settle time; looking earlier could miss it.
	settle, err := b.a.settleTime()
	if err != nil {
		return nil, err
	}
	if wait := settle - time.Since(last); wait > 0 {
		select {
		case <-time.After(wait):
		case <-b.cmd.Context().Done():
			return nil, b.cmd.Context().Err()
		}
	}
	found, err := c.Messages.FindByExternalID(b.cmd.Context(), b.prop, since, ids...)
	if err != nil {
		return nil, fmt.Errorf("looking up %d lines that may have been sent: %w; nothing was sent: re-run the same command to try again (or: %s)",
			len(doubt), err, findCommand(b.prop, since, ids))
	}
	var left []int
	recs := map[int]lineRecord{}
	var rows []batchRow
	for k, i := range doubt {
		m, ok := found[ids[k]]
		if !ok {
			left = append(left, i)
			continue
		}
		r := b.recs[i]
		r.State, r.Message = stateSent, &m
		recs[i] = r
		rows = append(rows, batchRow{idx: i, Line: r.Line, ExternalID: r.ExternalID, State: stateSent, Found: true, Message: &m, to: b.lines[i].p.To})
		b.stats.found++
	}
	if err := b.j.put(recs); err != nil {
		return nil, fmt.Errorf("journal %s: %w", b.j.path, err)
	}
	b.out.put(rows...)
	b.out.bar.add(len(rows))
	return left, nil
}

// status is the batch's summary on standard error and its exit status.
func (b *batch) status(failed error, interrupted bool) error {
	s := b.stats
	total := len(b.lines)
	sent := s.sent + s.earlier + s.found
	summary := fmt.Sprintf("%d of %d lines sent", sent, total)
	if s.earlier > 0 {
		summary += fmt.Sprintf(" (%d by an earlier run)", s.earlier)
	}
	if s.found > 0 {
		summary += fmt.Sprintf(" (%d found by ExternalId)", s.found)
	}
	if s.refused > 0 {
		summary += fmt.Sprintf(", %d refused", s.refused)
	}
	if s.uncertain > 0 {
		summary += fmt.Sprintf(", %d uncertain", s.uncertain)
	}
	if left := total - sent - s.refused - s.uncertain; left > 0 {
		summary += fmt.Sprintf(", %d not sent yet", left)
	}
	resume := ""
	if b.j != nil {
		resume = fmt.Sprintf("; re-run the same command to resume (journal %s)", b.j.path)
	}
	switch {
	case interrupted:
		sig := b.a.intr.signal()
		code, name := exitService, "an output failure"
		if sig != nil {
			code, name = exitCode(sig), signalName(sig)
		}
		return &exitError{code: code, msg: fmt.Sprintf("interrupted by %s: %s%s", name, summary, resume)}
	case failed != nil:
		return fmt.Errorf("%s: %w%s", summary, failed, resume)
	case s.uncertain > 0:
		return &exitError{code: exitService, msg: summary + resume}
	case s.refused > 0 && s.refused == s.localRefused && s.localRefused == total:
		// Nothing was sent: as with one invalid sms send, a validation error.
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%d of %d messages refused before sending; none was sent", s.refused, total)}
	case s.refused > 0:
		return &exitError{code: exitService, msg: fmt.Sprintf("%s: %d of %d messages rejected", summary, s.refused, total)}
	}
	fmt.Fprintf(b.a.stderr, "telco: %s\n", summary)
	return nil
}

// dryRun prints what a run would do with every line, and sends nothing.
func (b *batch) dryRun(complete bool) error {
	a := b.a
	type plan struct {
		Line       int
		ExternalID string `json:"ExternalId"`
		// Action is send, refuse (the line breaks a rule: Err says which),
		// look-up (may have been sent by an earlier run: looked up first),
		// or done (sent or refused by an earlier run).
		Action   string
		From     string `json:",omitempty"`
		To       string
		Text     string
		Segments int
		Schedule string    `json:",omitempty"` // RFC 3339, in the local zone
		Err      *rowError `json:",omitempty"`
	}
	var plans []plan
	counts := map[string]int{}
	for i, l := range b.lines {
		p := plan{Line: l.line, ExternalID: b.ids[i], From: l.p.From, To: l.p.To, Text: l.p.Text,
			Segments: telco.Segments(l.p.Text).Segments, Action: "send"}
		if !l.p.Schedule.IsZero() {
			p.Schedule = l.p.Schedule.In(a.location()).Format(time.RFC3339)
		}
		switch b.recs[i].State {
		case stateSent, stateRefused:
			p.Action = "done"
		case stateSending, stateUncertain:
			p.Action = "look-up"
		default:
			if e := b.local[i]; e != nil {
				p.Action, p.Err = "refuse", rowErr(e)
			}
		}
		counts[p.Action]++
		plans = append(plans, p)
	}
	if a.jsonOut() {
		for _, p := range plans {
			if err := printJSONLine(a.stdout, p); err != nil {
				return err
			}
		}
	} else {
		rows := [][]string{{"LINE", "ACTION", "EXTERNAL ID", "FROM", "TO", "SCHEDULED (LOCAL)", "SEGMENTS", "TEXT"}}
		for _, p := range plans {
			sched := ""
			if p.Schedule != "" {
				t, _ := time.Parse(time.RFC3339, p.Schedule)
				sched = t.In(a.location()).Format("2006-01-02 15:04:05 MST")
			}
			act := p.Action
			if p.Err != nil {
				act += ": " + refusal(p.Err)
			}
			rows = append(rows, []string{itoa(p.Line), act, p.ExternalID, p.From, p.To, sched, itoa(p.Segments), clean(p.Text)})
		}
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

// batchOutput prints a batch's rows as they come: a table whose columns
// are sized up front from the input (so that rows printed chunk by chunk
// stay aligned), or one JSON object per line. Rows are printed in input
// order: a row waits until every line before it is printed or known to
// have none in this run (put, pass), so a resumed run, whose settled,
// found and newly sent lines come at different times, still prints one
// ordered record. It clears the progress bar before writing and redraws
// it after. A failed write is kept in err: the batch then stops after the
// chunks in flight.
type batchOutput struct {
	a      *app
	bar    *progress
	widths []int
	err    error

	next int              // the first line not yet printed or passed
	held map[int]batchRow // rows waiting for the lines before them
	none map[int]bool     // lines after next that have no row in this run
}

var batchHeader = []string{"LINE", "TO", "MESSAGE SID", "EXTERNAL ID", "RESULT"}

func newBatchOutput(a *app, lines []batchLine, ids []string) *batchOutput {
	w := make([]int, len(batchHeader)-1)
	for i, h := range batchHeader[:len(w)] {
		w[i] = len(h)
	}
	w[2] = max(w[2], 32) // a MessageSid
	for i, l := range lines {
		w[0] = max(w[0], len(itoa(l.line)))
		w[1] = max(w[1], len([]rune(clean(l.p.To))))
		w[3] = max(w[3], len([]rune(clean(ids[i]))))
	}
	if a.width > 0 && a.output == "table" {
		all := append(w, len("RESULT")+20) // room for the start of a refusal
		fitWidths(all, a.width)
		w = all[:len(w)]
	}
	return &batchOutput{a: a, widths: w, held: map[int]batchRow{}, none: map[int]bool{}}
}

// put queues rows and prints those whose predecessors are all settled.
func (o *batchOutput) put(rows ...batchRow) {
	for _, r := range rows {
		o.held[r.idx] = r
	}
	o.advance()
}

// pass says that line i has no row in this run (it was not sent).
func (o *batchOutput) pass(i int) {
	o.none[i] = true
	o.advance()
}

// advance prints the held rows that come next in input order.
func (o *batchOutput) advance() {
	var ready []batchRow
	for {
		if r, ok := o.held[o.next]; ok {
			ready = append(ready, r)
			delete(o.held, o.next)
		} else if o.none[o.next] {
			delete(o.none, o.next)
		} else {
			break
		}
		o.next++
	}
	o.rows(ready)
}

// drain prints every row still held, in input order, past the lines that
// got none (those not sent when the batch stopped).
func (o *batchOutput) drain() {
	idx := make([]int, 0, len(o.held))
	for i := range o.held {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	rows := make([]batchRow, len(idx))
	for k, i := range idx {
		rows[k] = o.held[i]
	}
	clear(o.held)
	o.rows(rows)
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

func (o *batchOutput) rows(rows []batchRow) {
	if len(rows) == 0 {
		return
	}
	var s strings.Builder
	for _, r := range rows {
		if o.a.jsonOut() {
			b, err := encodeJSON(r)
			if err != nil {
				o.err = err
				return
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
		case r.State == stateUncertain:
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

// finish prints the rows still held and ends the progress bar.
func (o *batchOutput) finish() {
	o.drain()
	o.bar.finish()
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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

// readBatch reads a batch file in the format given, or detected from the
// file name, or else from its first character.
func readBatch(r io.Reader, format, name string) ([]batchLine, error) {
	br := bufio.NewReaderSize(r, 64<<10) // room for firstByte to look ahead
	switch strings.ToLower(format) {
	case "csv", "jsonl":
	case "":
		switch strings.ToLower(filepath.Ext(name)) {
		case ".csv":
			format = "csv"
		case ".jsonl", ".ndjson", ".json":
			format = "jsonl"
		default:
			format = "csv"
			if c := firstByte(br); c == '{' || c == '[' {
				format = "jsonl"
			}
		}
	default:
		return nil, usagef("--format must be csv or jsonl, not %q", format)
	}
	var lines []batchLine
	var err error
	if strings.EqualFold(format, "jsonl") {
		lines, err = readJSONL(br)
	} else {
		lines, err = readCSV(br)
	}
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, usagef("sms batch: no messages in %s", name)
	}
	return lines, nil
}

// batchFields are the columns a batch file may have, by lower-case name.
var batchFields = map[string]func(p *telco.SendMessageParams, v string) error{
	"from":                         func(p *telco.SendMessageParams, v string) error { p.From = v; return nil },
	"to":                           func(p *telco.SendMessageParams, v string) error { p.To = v; return nil },
	"text":                         func(p *telco.SendMessageParams, v string) error { p.Text = v; return nil },
	"externalid":                   func(p *telco.SendMessageParams, v string) error { p.ExternalID = v; return nil },
	"deliveryreceiptwebhookuri":    func(p *telco.SendMessageParams, v string) error { p.DeliveryReceiptWebhookURI = v; return nil },
	"deliveryreceiptwebhookmethod": func(p *telco.SendMessageParams, v string) error { p.DeliveryReceiptWebhookMethod = v; return nil },
	"forwardtosms":                 func(p *telco.SendMessageParams, v string) error { p.ForwardToSms = v; return nil },
	"forwardfromsms":               func(p *telco.SendMessageParams, v string) error { p.ForwardFromSms = v; return nil },
	"forwardtoemail":               func(p *telco.SendMessageParams, v string) error { p.ForwardToEmail = v; return nil },
	"forwardfromemail":             func(p *telco.SendMessageParams, v string) error { p.ForwardFromEmail = v; return nil },
	"webhookuri":                   func(p *telco.SendMessageParams, v string) error { p.WebhookURI = v; return nil },
	"webhookmethod":                func(p *telco.SendMessageParams, v string) error { p.WebhookMethod = v; return nil },
	"schedule": func(p *telco.SendMessageParams, v string) error {
		if v = strings.TrimSpace(v); v == "" {
			return nil
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			p.Schedule = time.Unix(n, 0)
			return nil
		}
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			p.Schedule = t
			return nil
		}
		// Without a zone: the user's, as on the command line.
		for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
			if t, err := time.ParseInLocation(layout, v, time.Local); err == nil {
				p.Schedule = t
				return nil
			}
		}
		return fmt.Errorf("the Schedule value %q is not Unix seconds, RFC 3339, or YYYY-MM-DD HH:MM[:SS] in the local zone", v)
	},
	"deliveryreceipt": func(p *telco.SendMessageParams, v string) error {
		if v = strings.TrimSpace(v); v == "" {
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("DeliveryReceipt %q is not true or false", v)
		}
		p.DeliveryReceipt = &b
		return nil
	},
}

func readCSV(r io.Reader) ([]batchLine, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0 // every row as wide as the header
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, usagef("batch CSV: %v", err)
	}
	setters := make([]func(*telco.SendMessageParams, string) error, len(header))
	for i, h := range header {
		h = strings.TrimPrefix(h, "\uFEFF")
		f, ok := batchFields[strings.ToLower(strings.TrimSpace(h))]
		if !ok {
			return nil, usagef("batch CSV: unknown column %q (known: From, To, Text, ExternalId, Schedule, DeliveryReceipt, ...)", h)
		}
		setters[i] = f
	}
	var out []batchLine
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, usagef("batch CSV: %v", err)
		}
		line, _ := cr.FieldPos(0)
		bl := batchLine{line: line}
		for i, v := range rec {
			if err := setters[i](&bl.p, v); err != nil {
				return nil, usagef("batch CSV line %d: %v", line, err)
			}
		}
		out = append(out, bl)
	}
}

// readJSONL reads JSON lines, one object per line, or a JSON array of
// objects (what jq -s and many tools write), detected by its leading '['.
func readJSONL(r *bufio.Reader) ([]batchLine, error) {
	if firstByte(r) == '[' {
		if b, _ := r.Peek(3); string(b) == "\uFEFF" {
			_, _ = r.Discard(3)
		}
		return readJSONArray(r)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []batchLine
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			text = bytes.TrimPrefix(text, []byte("\uFEFF"))
		}
		if len(text) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil || obj == nil {
			return nil, usagef("batch JSON line %d: not a JSON object", n)
		}
		bl := batchLine{line: n}
		if err := setJSONFields(&bl.p, obj); err != nil {
			return nil, usagef("batch JSON line %d: %v", n, err)
		}
		out = append(out, bl)
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("batch JSON: %v", err)
	}
	return out, nil
}

// firstByte is the first byte of r after blank space and a UTF-8
// byte-order mark, looked at without reading it (so that line numbers
// still count from the start), or 0 when there is none in the first 64 KiB.
func firstByte(r *bufio.Reader) byte {
	b, _ := r.Peek(64 << 10)
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 {
		return t[0]
	}
	return 0
}

// readJSONArray reads one JSON array of message objects; a message's line
// number is its position in the array, from 1.
func readJSONArray(r io.Reader) ([]batchLine, error) {
	var items []json.RawMessage
	dec := json.NewDecoder(r)
	if err := dec.Decode(&items); err != nil {
		return nil, usagef("batch JSON array: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, usagef("batch JSON array: more input after the array")
	}
	out := make([]batchLine, 0, len(items))
	for i, raw := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return nil, usagef("batch JSON array element %d: not a JSON object", i+1)
		}
		bl := batchLine{line: i + 1}
		if err := setJSONFields(&bl.p, obj); err != nil {
			return nil, usagef("batch JSON array element %d: %v", i+1, err)
		}
		out = append(out, bl)
	}
	return out, nil
}

// setJSONFields sets p from one JSON object. Every field is a JSON string,
// except that Schedule may also be a number (Unix seconds) and
// DeliveryReceipt a boolean; null leaves a field unset. A number where
// text is expected is an error rather than its digits, so that {"To": 61400000001}
// does not quietly become a recipient without its +.
func setJSONFields(p *telco.SendMessageParams, obj map[string]json.RawMessage) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error found is the same on every run
	for _, k := range keys {
		raw := obj[k]
		f, ok := batchFields[strings.ToLower(k)]
		if !ok {
			return fmt.Errorf("unknown field %q", k)
		}
		if string(raw) == "null" {
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			var num json.Number
			var b bool
			switch lk := strings.ToLower(k); {
			case lk == "schedule" && json.Unmarshal(raw, &num) == nil:
				v = num.String()
			case lk == "deliveryreceipt" && json.Unmarshal(raw, &b) == nil:
				v = strconv.FormatBool(b)
			default:
				return fmt.Errorf("field %q must be a JSON string, not %s", k, raw)
			}
		}
		if err := f(p, v); err != nil {
			return err
		}
	}
	return nil
}
