// Package batch is the engine of telco sms batch: it reads the input,
// gives every line its ExternalId, sends the lines in chunks with the
// SDK's SendBatchOnce over a journal (a send ledger in a bbolt file), up
// to a number of chunks in flight, and hands the results back in input
// order. The cobra command (cmd/telco/smsbatch.go) holds the flags and
// the printing.
//
// The protocol that makes every line go out at most once is the SDK's:
// SendBatchOnce records each attempt in the journal before its request
// (its own resends included), answers lines already sent from it, and
// looks lines in doubt up by ExternalId, after the settle time, before
// sending anything again. The engine only reads the journal to know which
// lines an earlier run settled, and, after each chunk, what became of
// each line.
package batch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/telcosdk/telco"
)

// Line states in the results.
const (
	StateSent      = "sent"
	StateRefused   = "refused"
	StateUncertain = "uncertain" // may have been sent: re-run to look it up
)

// Row is one line's outcome.
type Row struct {
	Index      int // in the input
	Line       int
	ExternalID string
	State      string
	Earlier    bool // settled by an earlier run, as the journal says
	Found      bool // was in doubt, found sent by its ExternalId
	Message    *telco.Message
	Err        *telco.APIError
	// Since is, for an uncertain line, when its first attempt began: a
	// look-up by its ExternalId searches from then.
	Since time.Time
	To    string
}

// settled is what the journal said of a line when the job was prepared.
type settled int

const (
	open    settled = iota // to send (or to look up first: the SDK decides)
	doubted                // in doubt: looked up before anything is sent
	sentBefore
	refusedBefore
)

// Job is one run of a batch.
type Job struct {
	prop     string
	input    string // InputSum of the input
	lines    []Line
	journal  *Journal // nil: no journal
	ledger   telco.Ledger
	batchID  string
	ids      []string
	local    map[int]*telco.APIError // lines that break the SDK's rules: refused unsent
	state    []settled
	recs     []telco.LedgerRecord // as the journal had them
	complete bool
}

// Prepare gives every line its ExternalId (its own, or the batch's ID
// and its line number) and checks them: an ExternalId with a leading or
// trailing blank (which the service may trim, so the message could not be
// found again) or one shared by two lines is an *InputError naming the
// lines; a line that breaks the SDK's other rules is refused without being
// sent. It then reads what the journal (nil for none) says of each line.
// input is the input's InputSum: without a journal, the batch's ID is
// derived from it (BatchIDOf), as a new journal's is.
func Prepare(ctx context.Context, prop, input string, lines []Line, j *Journal) (*Job, error) {
	job := &Job{prop: prop, input: input, lines: lines, journal: j}
	if j != nil {
		job.ledger, job.batchID = j.Ledger, j.BatchID()
	} else {
		job.ledger, job.batchID = telco.NewMemoryLedgerSize(len(lines)+1, 0), BatchIDOf(input, prop, "")
	}
	if err := job.prepare(ctx, j != nil); err != nil {
		return nil, err
	}
	return job, nil
}

// CheckIDs checks the input's own ExternalIds, before a journal is
// opened for it: none with a blank at either end, none shared by two
// lines. Prepare checks the derived ones too.
func CheckIDs(lines []Line) error {
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.Params.ExternalID
	}
	return checkIDs(lines, ids)
}

// checkIDs checks ids, the ExternalIds of lines ("" for one not known
// yet), and names the first few lines at fault.
func checkIDs(lines []Line, ids []string) error {
	first := map[string]int{}
	var blanks, dups []string
	for i, id := range ids {
		switch {
		case id == "":
		case strings.TrimSpace(id) != id:
			if len(blanks) < 5 {
				blanks = append(blanks, fmt.Sprintf("line %d: ExternalId %q", lines[i].Num, id))
			}
		default:
			if k, dup := first[id]; dup {
				if len(dups) < 5 {
					dups = append(dups, fmt.Sprintf("lines %d and %d share ExternalId %q", lines[k].Num, lines[i].Num, id))
				}
			} else {
				first[id] = i
			}
		}
	}
	if len(blanks) > 0 {
		return inputErrorf("an ExternalId must not start or end with a blank, which the service may trim (the message could not be found again by it): %s", strings.Join(blanks, "; "))
	}
	if len(dups) > 0 {
		return inputErrorf("every line needs its own ExternalId (it is how a message that may have been sent is found again): %s", strings.Join(dups, "; "))
	}
	return nil
}

// prepare gives the lines their ExternalIds and, with read, reads the
// journal's records of them.
func (job *Job) prepare(ctx context.Context, read bool) error {
	job.ids = make([]string, len(job.lines))
	job.local = map[int]*telco.APIError{}
	for i, l := range job.lines {
		job.ids[i] = l.Params.ExternalID
		if job.ids[i] == "" {
			job.ids[i] = job.batchID + "-" + strconv.Itoa(l.Num)
		}
	}
	if err := checkIDs(job.lines, job.ids); err != nil {
		return err
	}
	for i := range job.lines {
		p := job.params(i)
		var ve *telco.ValidationError
		if err := p.Validate(); errors.As(err, &ve) && len(ve.Fields) > 0 {
			job.local[i] = &telco.APIError{Op: "Messages.SendBatch", Code: ve.Fields[0].Code, Message: ve.Fields[0].Message, Fields: ve.Fields}
		}
	}
	job.state = make([]settled, len(job.lines))
	job.recs = make([]telco.LedgerRecord, len(job.lines))
	job.complete = false
	if !read {
		return nil
	}
	recs, err := job.journal.Ledger.Records(ctx, job.prop, job.ids)
	if err != nil {
		return err
	}
	job.recs = recs
	n := 0
	for i, r := range recs {
		switch {
		case r.State == telco.LedgerSent:
			job.state[i] = sentBefore
		case lineRefused(r):
			job.state[i] = refusedBefore
		case r.State == telco.LedgerInDoubt || r.State == telco.LedgerSending:
			job.state[i] = doubted
		default:
			continue
		}
		if job.state[i] == sentBefore || job.state[i] == refusedBefore {
			n++
		}
	}
	job.complete = len(job.lines) > 0 && n == len(job.lines)
	return nil
}

// lineRefused says that r is a refusal of its own line (by the service
// inside a batch, or before sending), which settles it; a refusal of a
// whole request (an HTTP status) leaves its lines to send again.
func lineRefused(r telco.LedgerRecord) bool {
	return r.State == telco.LedgerRefused && r.Err != nil && r.Err.StatusCode == 0
}

// Complete says that an earlier run settled every line.
func (job *Job) Complete() bool { return job.complete }

// Restart forgets what the journal says and gives derived ExternalIds a
// new BatchID, for sending a complete batch again (--force): the one the
// journal's Restart takes, so that a dry run (ro, which writes nothing)
// shows the ExternalIds the run will send.
func (job *Job) Restart(ctx context.Context, ro bool) error {
	if ro || job.journal == nil {
		job.batchID = BatchIDOf(job.input, job.prop, job.batchID)
		return job.prepare(ctx, false)
	}
	if err := job.journal.Restart(); err != nil {
		return err
	}
	job.batchID = job.journal.BatchID()
	return job.prepare(ctx, true)
}

// params is line i as it is sent: with its ExternalId.
func (job *Job) params(i int) telco.SendMessageParams {
	p := job.lines[i].Params
	p.ExternalID = job.ids[i]
	return p
}

// NeedsBatchID says whether some line's ExternalId is derived from the
// batch's ID (the input has no ExternalId of its own for it).
func NeedsBatchID(lines []Line) bool {
	for _, l := range lines {
		if l.Params.ExternalID == "" {
			return true
		}
	}
	return false
}

// IDs are the lines' ExternalIds, by index in the input.
func (job *Job) IDs() []string { return job.ids }

// ToDo counts the lines this run sends or looks up.
func (job *Job) ToDo() int {
	n := 0
	for _, s := range job.state {
		if s == open || s == doubted {
			n++
		}
	}
	return n
}

// Ledger is the ledger the client sending the batch must keep
// (telco.WithLedger): the journal's, or one in memory.
func (job *Job) Ledger() telco.Ledger { return job.ledger }

// Plan is what a run would do with one line.
type Plan struct {
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
	Schedule time.Time       `json:"-"`
	Err      *telco.APIError `json:"-"`
}

// Plans says what a run would do with every line, sending nothing.
func (job *Job) Plans() []Plan {
	out := make([]Plan, len(job.lines))
	for i, l := range job.lines {
		p := Plan{Line: l.Num, ExternalID: job.ids[i], From: l.Params.From, To: l.Params.To, Text: l.Params.Text,
			Segments: telco.Segments(l.Params.Text).Segments, Schedule: l.Params.Schedule, Action: "send"}
		switch job.state[i] {
		case sentBefore, refusedBefore:
			p.Action = "done"
		case doubted:
			p.Action = "look-up"
		default:
			if e := job.local[i]; e != nil {
				p.Action, p.Err = "refuse", e
			}
		}
		out[i] = p
	}
	return out
}
