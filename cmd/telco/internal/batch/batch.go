// Package batch is the engine of telco sms batch: it reads the input,
// gives every line its ExternalId, sends the lines with the SDK's SendAll
// (chunks through SendBatchOnce over the account's send ledger, up to a
// number of chunks in flight, results in input order), and hands each
// line's row back in input order. The cobra
// command (cmd/telco/smsbatch.go) holds the flags, the choice of ledger
// and the printing.
//
// The protocol that makes every line go out at most once is the SDK's:
// SendBatchOnce records each attempt in the ledger before its request
// (its own resends included), answers lines already sent from it, and
// looks lines in doubt up by ExternalId, after the settle time, before
// sending anything again. The ledger is the account's, shared with sms
// send and every other batch, so a line's own ExternalId goes out once
// whatever the journal, flags or file that carry it. The engine reads the
// ledger to know which lines were sent before, and, after each chunk,
// what became of each line (found by a look-up, in doubt since when). It
// keeps what SendAll does not: the lines it does not send, and stopping
// at a chunk's edge on a failure or a signal. The journal (journal.go) only keeps the
// ExternalIds the batch made up for lines without one of their own.
package batch

import (
	"context"
	"errors"
	"fmt"
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
	Earlier    bool // sent before (by an earlier run, batch or sms send), as the ledger says
	Found      bool // was in doubt, found sent by its ExternalId
	Message    *telco.Message
	Err        *telco.APIError
	// Since is, for an uncertain line, when its first attempt began: a
	// look-up by its ExternalId searches from then.
	Since time.Time
	To    string
}

// settled is what the ledger said of a line when the job was prepared.
type settled int

const (
	open    settled = iota // to send (or to look up first: the SDK decides)
	doubted                // in doubt: looked up before anything is sent
	sentBefore
)

// Job is one run of a batch.
type Job struct {
	prop     string
	lines    []Line
	ledger   telco.Ledger // nil for a dry run that reads none
	ids      []string
	local    map[int]*telco.APIError // lines that break the SDK's rules: refused unsent
	state    []settled
	recs     []telco.LedgerRecord // as the ledger had them
	complete bool
}

// Prepare checks the lines' ExternalIds, ids (their own, or made up:
// AssignIDs, Journal.IDs): an ExternalId with a leading or trailing blank
// (which the service may trim, so the message could not be found again)
// or one shared by two lines is an *InputError naming the lines; a line
// that breaks the SDK's other rules is refused without being sent. It
// then reads what ledger (nil for none) says of each line: sent before,
// in doubt, or to send.
func Prepare(ctx context.Context, prop string, lines []Line, ids []string, ledger telco.Ledger) (*Job, error) {
	job := &Job{prop: prop, lines: lines, ledger: ledger, ids: ids}
	if err := checkIDs(lines, ids); err != nil {
		return nil, err
	}
	job.local = map[int]*telco.APIError{}
	for i := range lines {
		p := job.params(i)
		var ve *telco.ValidationError
		if err := p.Validate(); errors.As(err, &ve) && len(ve.Fields) > 0 {
			job.local[i] = &telco.APIError{Op: "Messages.SendBatch", Code: ve.Fields[0].Code, Message: ve.Fields[0].Message, Fields: ve.Fields}
		}
	}
	job.state = make([]settled, len(lines))
	job.recs = make([]telco.LedgerRecord, len(lines))
	if ledger == nil {
		return job, nil
	}
	recs, err := readRecords(ctx, ledger, prop, ids)
	if err != nil {
		return nil, err
	}
	job.recs = recs
	n := 0
	for i, r := range recs {
		switch {
		case r.State == telco.LedgerSent && r.Message != nil:
			job.state[i] = sentBefore
			n++
		case r.State == telco.LedgerInDoubt || r.State == telco.LedgerSending:
			job.state[i] = doubted
		}
	}
	job.complete = len(lines) > 0 && n == len(lines)
	return job, nil
}

// CheckIDs checks the input's own ExternalIds, before a journal makes up
// the others: none with a blank at either end, none shared by two lines.
// Prepare checks them all.
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

// lineRefused says that r is a refusal of its own line by the service
// inside a batch; a refusal of a whole request (an HTTP status) is one of
// its chunk.
func lineRefused(r telco.LedgerRecord) bool {
	return r.State == telco.LedgerRefused && r.Err != nil && r.Err.StatusCode == 0
}

// Complete says that the ledger holds every line as sent.
func (job *Job) Complete() bool { return job.complete }

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

// ToDo counts the lines this run handles: all but those sent before.
func (job *Job) ToDo() int {
	n := 0
	for _, s := range job.state {
		if s == open || s == doubted {
			n++
		}
	}
	return n
}

// MadeUp counts the lines whose ExternalId the batch made up (those
// --force sends again).
func (job *Job) MadeUp() int {
	n := 0
	for _, l := range job.lines {
		if l.Params.ExternalID == "" {
			n++
		}
	}
	return n
}

// Plan is what a run would do with one line.
type Plan struct {
	Line       int
	ExternalID string `json:"ExternalId"`
	// Action is send, refuse (the line breaks a rule: Err says which),
	// look-up (may have been sent before: looked up first), or done (the
	// ledger holds it as sent).
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
		case sentBefore:
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
