package riversend

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/telcosdk/telco"
)

// Kind is the River job kind of SendArgs, a job of one message.
const Kind = "telco_send_sms"

// ChunkKind is the River job kind of SendChunkArgs, the jobs Enqueue
// inserts.
const ChunkKind = "telco_send_sms_chunk"

// Queue is the River queue SendChunkArgs and SendArgs jobs go to. A River
// client that works them must list it in Config.Queues.
const Queue = "telco_sms"

// DefaultChunkSize is the most messages Enqueue puts in one job: the
// telco CLI's default chunk for `sms batch`. A chunk is one SendBatchOnce,
// so one request to the service and two ledger transactions for all of
// its messages.
const DefaultChunkSize = 100

// SendChunkArgs is the River job that sends a chunk of messages, each
// once (see Worker.Work): what Enqueue inserts. Enqueue puts messages of
// one project in a chunk, at most DefaultChunkSize (or
// EnqueueOptions.ChunkSize) of them, each new to telco_sends, which is
// what keeps a message from being enqueued twice; the job itself is not a
// River unique job (see the package documentation).
type SendChunkArgs struct {
	// Messages are the chunk's messages, each with its PropertySid and
	// ExternalID.
	Messages []SendArgs `json:"messages"`
}

// Kind names the job kind for River.
func (SendChunkArgs) Kind() string { return ChunkKind }

// InsertOpts puts the job on Queue. River's other defaults stand: its
// MaxAttempts (25, with its backoff) and priority; the Worker's Timeout
// bounds each attempt.
func (SendChunkArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue}
}

// SendArgs is one message to send: the project to send from and the
// message, with the fields of telco.SendMessageParams. Enqueue takes
// messages as SendArgs and groups them into SendChunkArgs jobs.
//
// It is also a River job of its own kind (Kind), which earlier versions of
// Enqueue inserted and which MessageWorker works: unique by PropertySid
// and ExternalID (River's unique jobs, in every job state), so inserting
// the same message twice with River's Insert keeps one job.
type SendArgs struct {
	PropertySid string `json:"property_sid" river:"unique"`
	// ExternalID is required: it is both the job's unique key and how a
	// retried job finds out whether an earlier attempt was sent.
	ExternalID string `json:"external_id" river:"unique"`

	From string `json:"from,omitempty"`
	To   string `json:"to"`
	Text string `json:"text"`
	// Schedule, when set, has the service send the message later (at most
	// 14 days ahead). It is not when the job runs: use River's
	// InsertOpts.ScheduledAt for that.
	Schedule                     *time.Time `json:"schedule,omitempty"`
	DeliveryReceipt              *bool      `json:"delivery_receipt,omitempty"`
	DeliveryReceiptWebhookURI    string     `json:"delivery_receipt_webhook_uri,omitempty"`
	DeliveryReceiptWebhookMethod string     `json:"delivery_receipt_webhook_method,omitempty"`

	// Lease-only: allowed only when From is "".
	ForwardToSms     string `json:"forward_to_sms,omitempty"`
	ForwardFromSms   string `json:"forward_from_sms,omitempty"`
	ForwardToEmail   string `json:"forward_to_email,omitempty"`
	ForwardFromEmail string `json:"forward_from_email,omitempty"`
	WebhookURI       string `json:"webhook_uri,omitempty"`
	WebhookMethod    string `json:"webhook_method,omitempty"`
}

// Kind names the job kind for River.
func (SendArgs) Kind() string { return Kind }

// InsertOpts puts a job of one message on Queue and makes it unique by its
// `river:"unique"` fields in every state, cancelled and discarded too, so
// that a refused or given-up message is not sent again by a second
// enqueue while River still keeps its row.
func (SendArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue: Queue,
		UniqueOpts: river.UniqueOpts{
			ByArgs: true,
			ByState: []rivertype.JobState{
				rivertype.JobStateAvailable, rivertype.JobStateCancelled,
				rivertype.JobStateCompleted, rivertype.JobStateDiscarded,
				rivertype.JobStatePending, rivertype.JobStateRetryable,
				rivertype.JobStateRunning, rivertype.JobStateScheduled,
			},
		},
	}
}

// Params returns the message as the SDK takes it.
func (a SendArgs) Params() *telco.SendMessageParams {
	p := &telco.SendMessageParams{
		From: a.From, To: a.To, Text: a.Text,
		DeliveryReceipt:              a.DeliveryReceipt,
		DeliveryReceiptWebhookURI:    a.DeliveryReceiptWebhookURI,
		DeliveryReceiptWebhookMethod: a.DeliveryReceiptWebhookMethod,
		ExternalID:                   a.ExternalID,
		ForwardToSms:                 a.ForwardToSms,
		ForwardFromSms:               a.ForwardFromSms,
		ForwardToEmail:               a.ForwardToEmail,
		ForwardFromEmail:             a.ForwardFromEmail,
		WebhookURI:                   a.WebhookURI,
		WebhookMethod:                a.WebhookMethod,
	}
	if a.Schedule != nil {
		p.Schedule = *a.Schedule
	}
	return p
}

// ArgsFor builds the job for one message of a project; the inverse of
// Params. p.ExternalID must be set (Enqueue checks).
func ArgsFor(propertySid string, p *telco.SendMessageParams) SendArgs {
	a := SendArgs{
		PropertySid: propertySid, ExternalID: p.ExternalID,
		From: p.From, To: p.To, Text: p.Text,
		DeliveryReceipt:              p.DeliveryReceipt,
		DeliveryReceiptWebhookURI:    p.DeliveryReceiptWebhookURI,
		DeliveryReceiptWebhookMethod: p.DeliveryReceiptWebhookMethod,
		ForwardToSms:                 p.ForwardToSms,
		ForwardFromSms:               p.ForwardFromSms,
		ForwardToEmail:               p.ForwardToEmail,
		ForwardFromEmail:             p.ForwardFromEmail,
		WebhookURI:                   p.WebhookURI,
		WebhookMethod:                p.WebhookMethod,
	}
	if !p.Schedule.IsZero() {
		s := p.Schedule
		a.Schedule = &s
	}
	return a
}
