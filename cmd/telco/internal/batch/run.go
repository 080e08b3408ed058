package batch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/telcosdk/telco"
)

// Options govern a run.
type Options struct {
	ChunkSize int // messages per request
	Parallel  int // chunks in flight at once
	// Rows receives the results in input order, a slice at a time; an
	// error (a closed output) stops the batch after the chunks in flight.
	Rows func([]Row) error
	// Stopping reports that a signal came: no more chunks are started.
	Stopping func() bool
}

// Result is how a run went.
type Result struct {
	Total                                                  int
	Sent, Earlier, Found, Refused, LocalRefused, Uncertain int
	// Failed is the first failure in input order: a chunk the service
	// refused as a whole, a look-up that kept failing, the ledger.
	Failed error
	// UncertainIDs are the ExternalIds of the lines left uncertain, in
	// input order; UncertainSince is the earliest of their first
	// attempts, which a look-up searches from; MadeUpUncertain says that
	// some of them were made up by the batch.
	UncertainIDs    []string
	UncertainSince  time.Time
	MadeUpUncertain bool
	// Interrupted says that a signal came, or that OutputErr left chunks
	// unstarted.
	Interrupted bool
	OutputErr   error
}

// Left counts the lines neither sent, refused nor uncertain.
func (r *Result) Left() int {
	return r.Total - r.Sent - r.Earlier - r.Found - r.Refused - r.Uncertain
}

// Summary is the run in one line: "97 of 100 lines sent (...), 2 refused, 1 uncertain".
func (r *Result) Summary() string {
	sent := r.Sent + r.Earlier + r.Found
	noun := "lines"
	if r.Total == 1 {
		noun = "line"
	}
	s := fmt.Sprintf("%d of %d %s sent", sent, r.Total, noun)
	if r.Earlier > 0 {
		s += fmt.Sprintf(" (%d sent before)", r.Earlier)
	}
	if r.Found > 0 {
		s += fmt.Sprintf(" (%d found by ExternalId)", r.Found)
	}
	if r.Refused > 0 {
		s += fmt.Sprintf(", %d refused", r.Refused)
	}
	if r.Uncertain > 0 {
		s += fmt.Sprintf(", %d uncertain", r.Uncertain)
	}
	if left := r.Left(); left > 0 {
		s += fmt.Sprintf(", %d not sent yet", left)
	}
	return s
}

// chunk is one request of a batch: its lines, what came back, and what
// the ledger says of each line after it.
type chunk struct {
	k     int   // its place among the chunks
	part  []int // indexes in the input
	start time.Time
	msgs  []telco.SendMessageParams
	at    map[int]int // index in msgs of each line sent
	res   []telco.BatchResult
	err   error // SendBatchOnce's, or the ledger's before it
	recs  []telco.LedgerRecord
	rerr  error // reading the ledger after it
	done  bool

	rows   []Row
	unsure []string
	since  time.Time // the earliest first attempt of the unsure lines
}

// Run sends the lines the ledger does not hold as sent with c (made with
// telco.WithLedger of the ledger given to Prepare), in chunks of
// o.ChunkSize, up to o.Parallel in flight. Chunks start in input order
// and their results are handed to o.Rows in input order, after the rows
// of lines sent before, whatever the order the answers come in. At most o.Parallel
// chunks are started but not yet handed out, so a slow chunk holds back
// new ones rather than letting finished ones pile up. A failed chunk, a
// signal or an output failure starts nothing more; the chunks in flight
// are finished first.
func (job *Job) Run(ctx context.Context, c *telco.Client, o Options) *Result {
	res := &Result{Total: len(job.lines)}
	out := &orderer{emit: o.Rows, held: map[int]Row{}, none: map[int]bool{}}
	var todo []int
	var earlier []Row
	for i, l := range job.lines {
		switch job.state[i] {
		case sentBefore:
			r := job.recs[i]
			m := *r.Message
			m.Text = l.Params.Text // a ledger on disk keeps no text
			earlier = append(earlier, Row{Index: i, Line: l.Num, ExternalID: job.ids[i], State: StateSent, Earlier: true,
				Found: r.Found, Message: &m, To: l.Params.To})
			res.Earlier++
		default:
			todo = append(todo, i)
		}
	}
	out.put(earlier...)

	var parts [][]int
	size := max(o.ChunkSize, 1)
	for s := 0; s < len(todo); s += size {
		parts = append(parts, todo[s:min(s+size, len(todo))])
	}
	par := max(o.Parallel, 1)
	runs := make([]*chunk, len(parts))
	finished := make(chan int, len(parts)) // room for every chunk: a request never waits to report
	next, flushed := 0, 0                  // chunks started; chunks handed out
	halt := false
	stopping := func() bool { return o.Stopping != nil && o.Stopping() }
	for {
		for ; flushed < next && runs[flushed].done; flushed++ {
			r := runs[flushed]
			job.settle(r, res)
			if err := job.report(r, runs[next-1], next == len(parts), out); err != nil && res.Failed == nil {
				res.Failed = err
			}
		}
		if !halt && next < len(parts) && (stopping() || out.err != nil) {
			halt, res.Interrupted = true, true
		}
		for ; !halt && next < len(parts) && next-flushed < par; next++ {
			r := job.start(parts[next])
			r.k = next
			runs[next] = r
			go func() {
				job.send(ctx, c, r)
				finished <- r.k
			}()
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
	if stopping() {
		res.Interrupted = true // the signal's exit status, even if nothing was left
	}
	out.drain()
	res.OutputErr = out.err
	return res
}

// start prepares the lines part for their request. Lines that break the
// SDK's rules are not sent.
func (job *Job) start(part []int) *chunk {
	r := &chunk{part: part, start: time.Now(), at: make(map[int]int, len(part))}
	for _, i := range part {
		if job.local[i] != nil {
			continue
		}
		r.at[i] = len(r.msgs)
		r.msgs = append(r.msgs, job.params(i))
	}
	return r
}

// send sends the chunk's valid lines with SendBatchOnce (lines the
// service refused before go again, corrected or not: the SDK lets a
// refused ExternalId carry another message), and reads what the ledger
// then says of every line. Lines that break the SDK's rules are not sent,
// nor recorded: they never reached the service.
func (job *Job) send(ctx context.Context, c *telco.Client, r *chunk) {
	if len(r.msgs) > 0 {
		r.res, r.err = c.Messages.SendBatchOnce(ctx, job.prop, r.msgs)
	}
	r.recs, r.rerr = readRecords(context.WithoutCancel(ctx), job.ledger, job.prop, job.idsOf(r.part))
}

func (job *Job) idsOf(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = job.ids[i]
	}
	return out
}

// settle turns what came back for chunk r, and what the journal says
// after it, into each line's row, and counts them.
func (job *Job) settle(r *chunk, res *Result) {
	var unresolved map[string]bool
	var ue *telco.UnresolvedError
	if errors.As(r.err, &ue) {
		unresolved = map[string]bool{}
		for _, id := range ue.ExternalIDs {
			unresolved[id] = true
		}
	}
	for k, i := range r.part {
		l := job.lines[i]
		row := Row{Index: i, Line: l.Num, ExternalID: job.ids[i], To: l.Params.To}
		var rec telco.LedgerRecord
		if r.rerr == nil && k < len(r.recs) {
			rec = r.recs[k]
		}
		var br telco.BatchResult
		if n, ok := r.at[i]; ok && n < len(r.res) {
			br = r.res[n]
		}
		switch {
		case job.local[i] != nil:
			row.State, row.Err = StateRefused, job.local[i]
			res.Refused++
			res.LocalRefused++
		case br.Message != nil:
			row.State, row.Message, row.Found = StateSent, br.Message, rec.Found && rec.State == telco.LedgerSent
		case br.Err != nil:
			row.State, row.Err = StateRefused, br.Err
			res.Refused++
		case rec.State == telco.LedgerSent && rec.Message != nil:
			m := *rec.Message
			m.Text = l.Params.Text
			row.State, row.Message, row.Found = StateSent, &m, rec.Found
		case lineRefused(rec):
			row.State, row.Err = StateRefused, rec.Err
			res.Refused++
		case unresolved[row.ExternalID], rec.State == telco.LedgerInDoubt, rec.State == telco.LedgerSending,
			r.rerr != nil && r.err != nil && errors.Is(r.err, telco.ErrMaybeSent):
			row.State, row.Since = StateUncertain, r.start
			if !rec.First.IsZero() {
				row.Since = rec.First
			}
			res.Uncertain++
			res.UncertainIDs = append(res.UncertainIDs, row.ExternalID)
			res.MadeUpUncertain = res.MadeUpUncertain || l.Params.ExternalID == ""
			if res.UncertainSince.IsZero() || row.Since.Before(res.UncertainSince) {
				res.UncertainSince = row.Since
			}
			r.unsure = append(r.unsure, row.ExternalID)
			if r.since.IsZero() || row.Since.Before(r.since) {
				r.since = row.Since
			}
		default:
			continue // not sent: the request failed before reaching a decision
		}
		if row.State == StateSent {
			if row.Found {
				res.Found++
			} else {
				res.Sent++
			}
		}
		r.rows = append(r.rows, row)
	}
}

// report hands out the rows of the settled chunk r and says what failed.
// final is the last chunk started and all says whether every chunk was:
// together they say which later lines a failure of r left unsent.
func (job *Job) report(r *chunk, final *chunk, all bool, out *orderer) error {
	shown := map[int]bool{}
	for _, row := range r.rows {
		shown[row.Index] = true
	}
	for _, i := range r.part {
		if !shown[i] {
			out.pass(i)
		}
	}
	out.put(r.rows...)
	if r.err == nil {
		return nil
	}
	first, end := job.lines[r.part[0]].Num, job.lines[r.part[len(r.part)-1]].Num
	// Chunks already in flight when r failed were finished, and their
	// lines handed out: only the lines of chunks never started are unsent.
	later, and := "; later lines were not sent", " and later"
	switch {
	case r == final && all:
		later, and = "", "" // no line comes after it
	case r != final:
		finalEnd := job.lines[final.part[len(final.part)-1]].Num
		later, and = fmt.Sprintf("; lines after %d were not sent", finalEnd), fmt.Sprintf(", and the lines after %d,", finalEnd)
		if all {
			later, and = "", ""
		}
	}
	if len(r.unsure) > 0 {
		return &ChunkError{First: first, End: end, Unsure: r.unsure, Since: r.since, Later: later, Err: r.err}
	}
	return &ChunkError{First: first, End: end, Later: and, Err: r.err}
}

// ChunkError is the failure of one chunk.
type ChunkError struct {
	First, End int       // its first and last line
	Unsure     []string  // the ExternalIds that may have been sent
	Since      time.Time // the earliest first attempt of those
	Later      string    // what it left unsent after it
	Err        error
}

// LookupSince is when a look-up of the lines it left in doubt must
// search from.
func (e *ChunkError) LookupSince() time.Time { return e.Since }

// Error names the lines, not each ExternalId: an unresolved send's own
// text lists them all, and a chunk may hold hundreds.
func (e *ChunkError) Error() string {
	lines, verb := fmt.Sprintf("lines %d to %d", e.First, e.End), "were"
	if e.First == e.End {
		lines = fmt.Sprintf("line %d", e.First)
		if e.Later == "" {
			verb = "was"
		}
	}
	if len(e.Unsure) > 0 {
		cause := e.Err
		var ue *telco.UnresolvedError
		if errors.As(cause, &ue) && ue.Err != nil {
			cause = ue.Err
		}
		them := "them"
		if len(e.Unsure) == 1 {
			them = "it"
		}
		return fmt.Sprintf("%s: %d may have been sent (re-run the same command to look %s up)%s: %v",
			lines, len(e.Unsure), them, e.Later, cause)
	}
	return fmt.Sprintf("%s%s %s not sent: %v", lines, e.Later, verb, e.Err)
}

func (e *ChunkError) Unwrap() error { return e.Err }

// orderer hands rows out in input order: a row waits until every line
// before it is handed out or known to have none in this run (put, pass),
// so a resumed run, whose settled, found and newly sent lines come at
// different times, still gives one ordered record. A failed emit is kept
// in err.
type orderer struct {
	emit func([]Row) error
	err  error
	next int          // the first line not yet handed out or passed
	held map[int]Row  // rows waiting for the lines before them
	none map[int]bool // lines after next that have no row in this run
}

// put queues rows and hands out those whose predecessors are all settled.
func (o *orderer) put(rows ...Row) {
	for _, r := range rows {
		o.held[r.Index] = r
	}
	o.advance()
}

// pass says that line i has no row in this run (it was not sent).
func (o *orderer) pass(i int) {
	o.none[i] = true
	o.advance()
}

func (o *orderer) advance() {
	var ready []Row
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
	o.hand(ready)
}

// drain hands out every row still held, in input order, past the lines
// that got none (those not sent when the batch stopped).
func (o *orderer) drain() {
	idx := make([]int, 0, len(o.held))
	for i := range o.held {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	rows := make([]Row, len(idx))
	for k, i := range idx {
		rows[k] = o.held[i]
	}
	clear(o.held)
	o.hand(rows)
}

func (o *orderer) hand(rows []Row) {
	if len(rows) == 0 || o.err != nil || o.emit == nil {
		return
	}
	o.err = o.emit(rows)
}
