package batch

import (
	"context"
	"errors"
	"fmt"
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

// chunk is one request of a batch, as SendAll answered it: its lines,
// what came back for each, and the rows settle makes of them.
type chunk struct {
	part []int               // indexes in the input
	res  []telco.BatchResult // by line
	errs []error             // by line: the chunk's error, on the lines it left unsettled
	err  error               // the chunk's error: the first of errs

	rows   []Row
	unsure []string
	since  time.Time // the earliest first attempt of the unsure lines
}

// Run sends the lines the ledger does not hold as sent with c (made with
// telco.WithLedger of the ledger given to Prepare) through the SDK's
// SendAll: chunks of o.ChunkSize, up to o.Parallel in flight, each with
// SendBatchOnce. Rows go to o.Rows in input order, chunk by chunk: each
// chunk's rows with those of the lines before it that this run does not
// send (sent before, or refused unsent), the lines sent before at the
// start of the input at once. A failed chunk, a signal or an output
// failure starts no more chunks: the lines are read to SendAll a whole
// chunk at a time, and stop at a chunk's edge, so SendAll finishes the
// chunks in flight, whose rows are handed out, and ends.
func (job *Job) Run(ctx context.Context, c *telco.Client, o Options) *Result {
	res := &Result{Total: len(job.lines)}
	var send []int // the lines to send, in input order
	for i := range job.lines {
		switch {
		case job.state[i] == sentBefore:
			res.Earlier++
		case job.local[i] == nil:
			send = append(send, i)
		}
	}
	var (
		outErr   error
		next     int // the first line whose row is not handed out yet
		runStart = time.Now()
	)
	emit := func(rows []Row) {
		if len(rows) > 0 && outErr == nil && o.Rows != nil {
			outErr = o.Rows(rows)
		}
	}
	// hand hands out the rows of the lines before end, in input order:
	// rows, of lines sent (in input order), and those of the lines this
	// run does not send.
	hand := func(end int, rows []Row) {
		var out []Row
		pass := func(to int) {
			for ; next < to; next++ {
				if row, ok := job.unsent(next, res); ok {
					out = append(out, row)
				}
			}
		}
		for _, r := range rows {
			pass(r.Index)
			out, next = append(out, r), r.Index+1
		}
		pass(end)
		emit(out)
	}
	if len(send) == 0 {
		hand(len(job.lines), nil)
		res.OutputErr = outErr
		return res
	}
	hand(send[0], nil) // lines sent before, at once

	size := max(o.ChunkSize, 1)
	stopping := func() bool { return o.Stopping != nil && o.Stopping() }
	halt := false     // a chunk failed
	started := 0      // lines read by SendAll
	var failed *chunk // the first chunk that failed
	msgs := func(yield func(telco.SendMessageParams) bool) {
		for k, i := range send {
			// At a chunk's edge only: a chunk goes out whole or not at all.
			if k%size == 0 && (halt || stopping() || outErr != nil) {
				res.Interrupted = !halt
				return
			}
			started = k + 1
			if !yield(job.params(i)) {
				return
			}
		}
	}
	cur := &chunk{}
	settle := func() {
		job.settle(ctx, cur, res, runStart)
		if cur.err != nil {
			halt = true
			if failed == nil {
				failed = cur
			}
		}
		hand(cur.part[len(cur.part)-1]+1, cur.rows)
		cur = &chunk{}
	}
	opts := &telco.SendAllOptions{ChunkSize: size, Parallel: max(o.Parallel, 1)}
	k := 0 // SendAll's pairs are the lines of send, in order
	for br, err := range c.Messages.SendAll(ctx, job.prop, msgs, opts) {
		cur.part = append(cur.part, send[min(k, len(send)-1)])
		cur.res, cur.errs = append(cur.res, br), append(cur.errs, err)
		if err != nil && cur.err == nil {
			cur.err = err
		}
		if k++; len(cur.part) == size {
			settle()
		}
	}
	if len(cur.part) > 0 {
		settle()
	}
	if started == len(send) {
		hand(len(job.lines), nil) // the lines after the last one sent
	} else {
		// Of the lines after the chunks started, only those sent before
		// have rows: the rest is not sent yet.
		var rows []Row
		for i := next; i < len(job.lines); i++ {
			if job.state[i] == sentBefore {
				row, _ := job.unsent(i, res)
				rows = append(rows, row)
			}
		}
		emit(rows)
	}
	if failed != nil {
		res.Failed = job.chunkError(failed, send, started)
	}
	if stopping() {
		res.Interrupted = true // the signal's exit status, even if nothing was left
	}
	res.OutputErr = outErr
	return res
}

// unsent is the row of line i when this run does not send it: sent
// before, or refused for breaking the SDK's rules (counted in res).
func (job *Job) unsent(i int, res *Result) (Row, bool) {
	l := job.lines[i]
	row := Row{Index: i, Line: l.Num, ExternalID: job.ids[i], To: l.Params.To}
	switch {
	case job.state[i] == sentBefore:
		r := job.recs[i]
		m := *r.Message
		m.Text = l.Params.Text // a ledger on disk keeps no text
		row.State, row.Earlier, row.Found, row.Message = StateSent, true, r.Found, &m
	case job.local[i] != nil:
		row.State, row.Err = StateRefused, job.local[i]
		res.Refused++
		res.LocalRefused++
	default:
		return row, false
	}
	return row, true
}

// settle turns what came back for chunk r, and what the ledger says
// after it, into each line's row, and counts them.
func (job *Job) settle(ctx context.Context, r *chunk, res *Result, runStart time.Time) {
	recs, rerr := readRecords(context.WithoutCancel(ctx), job.ledger, job.prop, job.idsOf(r.part))
	unresolved := map[string]bool{}
	for _, err := range r.errs {
		var ue *telco.UnresolvedError
		if errors.As(err, &ue) {
			for _, id := range ue.ExternalIDs {
				unresolved[id] = true
			}
		}
	}
	for k, i := range r.part {
		l := job.lines[i]
		row := Row{Index: i, Line: l.Num, ExternalID: job.ids[i], To: l.Params.To}
		var rec telco.LedgerRecord
		if rerr == nil && k < len(recs) {
			rec = recs[k]
		}
		br, err := r.res[k], r.errs[k]
		switch {
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
			rerr != nil && errors.Is(err, telco.ErrMaybeSent):
			row.State, row.Since = StateUncertain, runStart
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

func (job *Job) idsOf(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = job.ids[i]
	}
	return out
}

// chunkError is the failure of chunk r, saying which later lines it
// left unsent: send are the lines to send, of which SendAll read the
// first started.
func (job *Job) chunkError(r *chunk, send []int, started int) *ChunkError {
	first, end := job.lines[r.part[0]].Num, job.lines[r.part[len(r.part)-1]].Num
	// Chunks already in flight when r failed were finished, and their
	// lines handed out: only the lines of chunks never started are unsent.
	later, and := "", ""
	if started < len(send) {
		lastStarted := job.lines[send[max(started-1, 0)]].Num
		if lastStarted <= end {
			later, and = "; later lines were not sent", " and later"
		} else {
			later, and = fmt.Sprintf("; lines after %d were not sent", lastStarted), fmt.Sprintf(", and the lines after %d,", lastStarted)
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
