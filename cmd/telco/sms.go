package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// smsCmd is "telco sms", over the SDK's Messages service; batch sending
// is in smsbatch.go.
func (a *app) smsCmd() *cobra.Command {
	return a.group("sms", "Send, batch-send, find and read SMS",
		a.smsSendCmd(), a.smsBatchCmd(), a.smsFindCmd(), a.smsGetCmd())
}

func (a *app) smsSendCmd() *cobra.Command {
	var p telco.SendMessageParams
	var prop, schedule string
	var noReceipt bool
	var lo ledgerOpts
	c := &cobra.Command{
		Use:         "send --to E164 --text TEXT [--from SENDER] [--external-id ID]",
		Annotations: ops("Messages.Send", "Messages.Find"),
		Short:       "Send one SMS",
		Long: `Send one SMS from a project. --from is an E.164 number, an alphanumeric sender
ID, or empty for a leased sender (then the --forward-* and --webhook-* flags
apply to responses). --text - reads the text from standard input.

` + wrap("With --external-id the message is sent at most once. "+onceHelp, "", 76) + `

Running the same command again sends nothing and says when and as what the
message was sent; a send that may have reached the service is looked up by
its ExternalId before it is sent again; the same ExternalId with another
message (To, From, Text or Schedule) is refused, nothing sent, unless the
service refused its earlier send (a corrected message may then go). Without
--external-id the message is sent as asked, with no ledger.

A ledger that cannot be read sends nothing (exit 3): --recover --since TIME
moves it aside, and every ExternalId the new one does not know is looked up
from TIME before it is sent.

Exit status: 0 sent (or sent before); 1 refused, or failed before reaching
the service: not sent; 2 a usage or validation error: not sent; 3 may have
been sent and unresolved: run the same command again to look it up.`,
		Example: `  telco sms send --property PR... --from Acme --to +61499999999 --text "Your order has shipped" --external-id order-1042`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			if p.Text == "-" {
				b, err := io.ReadAll(a.stdin)
				if err != nil {
					return fmt.Errorf("reading the text: %w", err)
				}
				p.Text = strings.TrimRight(string(b), "\r\n")
			}
			if p.Schedule, err = a.parseTime("schedule", schedule, time.Now()); err != nil {
				return err
			}
			if noReceipt {
				p.DeliveryReceipt = telco.Ptr(false)
			}
			// Should the send end in doubt, the error names the look-up
			// that settles it.
			annotate(cmd, annResolve, prop)
			annotate(cmd, annExternalID, p.ExternalID)
			if p.ExternalID != "" {
				return a.sendOnce(cmd, prop, &p, lo)
			}
			if lo.path != "" || lo.recover || lo.lookUpFirst || lo.since != "" {
				return usagef("--ledger, --recover, --look-up-first and --since go with --external-id")
			}
			return runCall(a, func(c *telco.Client) (*telco.Message, error) {
				return c.Messages.Send(cmd.Context(), prop, &p)
			}, showOne(a, messageFields))
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&p.From, "from", "", "sender: E.164, alphanumeric ID, or empty for a leased sender")
	fs.StringVar(&p.To, "to", "", "recipient, E.164 (required)")
	fs.StringVar(&p.Text, "text", "", "message text, or - for standard input (required)")
	fs.StringVar(&schedule, "schedule", "", "send later, at most 14 days ahead: "+timeHelp)
	fs.BoolVar(&noReceipt, "no-receipt", false, "ask for no delivery receipt (the service default is a receipt)")
	fs.StringVar(&p.DeliveryReceiptWebhookURI, "receipt-webhook-url", "", "URL called on the delivery receipt")
	fs.StringVar(&p.DeliveryReceiptWebhookMethod, "receipt-webhook-method", "", "POST (default) or GET")
	fs.StringVar(&p.ExternalID, "external-id", "", "your own id, returned on the message: sent at most once per send ledger (see --ledger)")
	fs.StringVar(&lo.path, "ledger", "", "with --external-id: "+ledgerHelp)
	fs.BoolVar(&lo.recover, "recover", false, "with --external-id: move a ledger that cannot be read aside; every ExternalId the new one does not know is looked up from --since before it is sent")
	fs.BoolVar(&lo.lookUpFirst, "look-up-first", false, "with --external-id: "+lookUpFirstHelp)
	fs.StringVar(&lo.since, "since", "", "with --recover: the look-ups search from then (the ledger's first use at the latest); with --look-up-first: how far back it looks")
	fs.StringVar(&p.ForwardToSms, "forward-to-sms", "", "lease: forward responses to this number")
	fs.StringVar(&p.ForwardFromSms, "forward-from-sms", "", "lease: sender of the forward")
	fs.StringVar(&p.ForwardToEmail, "forward-to-email", "", "lease: forward responses to this address")
	fs.StringVar(&p.ForwardFromEmail, "forward-from-email", "", "lease: sender address of the forward")
	fs.StringVar(&p.WebhookURI, "webhook-url", "", "lease: URL called on a response")
	fs.StringVar(&p.WebhookMethod, "webhook-method", "", "lease: POST (default) or GET")
	completeEnum(c, "receipt-webhook-method", "POST", "GET")
	completeEnum(c, "webhook-method", "POST", "GET")
	fieldFlags(c, "From", "from", "To", "to", "Text", "text", "Schedule", "schedule",
		"DeliveryReceiptWebhookUri", "receipt-webhook-url", "DeliveryReceiptWebhookMethod", "receipt-webhook-method",
		"ExternalId", "external-id", "ForwardToSms", "forward-to-sms", "ForwardFromSms", "forward-from-sms",
		"ForwardToEmail", "forward-to-email", "ForwardFromEmail", "forward-from-email",
		"WebhookUri", "webhook-url", "WebhookMethod", "webhook-method")
	return c
}

func (a *app) smsGetCmd() *cobra.Command {
	return getCmd(a, "Messages.Get", "get MESSAGE_SID", "Show one message", "MESSAGE_SID", messageFields,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.Message, error) {
			return c.Messages.Get(ctx, sid)
		})
}

// Enumerations of sms find.
var (
	messageStatusNames = []string{"Processing", "Submitted", "Delivered", "Failed", "Received"}
	directions         = []string{"Transmit", "Receive"}
)

func (a *app) smsFindCmd() *cobra.Command {
	var lf listFlags
	var prop, since, until, status, direction string
	var externalIDs []string
	var parallel int
	c := &cobra.Command{
		Use:         "find [--since T] [--until T] [--status S] [--direction D] [--external-id ID]... [--all [--parallel N]]",
		Annotations: ops("Messages.Find"),
		Short:       "Find a project's sent and received messages in a time window, or by ExternalId",
		Long: `Find a project's messages created from --since (inclusive) to --until
(exclusive). Times: ` + timeHelp + `.

With --external-id (repeatable), list every message sent with those
ExternalIds since --since, in one scan of the window: the way to learn
whether a send that ended in doubt went out, and whether one went out
twice. Messages are listed by ExternalId, in the order given, each one's
in the order found; an ExternalId with more than one message is named on
standard error. IDs not found are named on standard error, and the exit
status is then 1:

  telco sms find --since -1h --external-id order-1042 --external-id order-1043

With --all, or --external-id, --parallel N keeps up to N page requests in
flight (1 to 16; default 1, one page after another): the same messages in
the same order, a long window read in a fraction of the time when the
service is tens of milliseconds away. Past the last page, up to N-1
requests come back empty.`,
		Example: `  telco sms find --property PR... --since 2026-11-01 --until 2026-11-08 --direction receive --all -o json`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			if status, err = enum("status", status, messageStatusNames...); err != nil {
				return err
			}
			if direction, err = enum("direction", direction, directions...); err != nil {
				return err
			}
			now := time.Now()
			p := telco.FindMessagesParams{Status: telco.MessageStatus(status), Direction: telco.Direction(direction), ListParams: lf.params()}
			if p.DateFrom, err = a.parseTime("since", since, now); err != nil {
				return err
			}
			if p.DateTo, err = a.parseTime("until", until, now); err != nil {
				return err
			}
			switch {
			case parallel < 1 || parallel > telco.MaxParallelPages:
				return usagef("--parallel must be from 1 to %d (not %d)", telco.MaxParallelPages, parallel)
			case parallel > 1 && !lf.all && len(externalIDs) == 0:
				return usagef("--parallel goes with --all or --external-id: one page is one request")
			}
			if len(externalIDs) > 0 && (cmd.Flags().Changed("until") || status != "" || direction != "" || lf.all || lf.count != 0 || lf.skip != 0) {
				return usagef("--external-id searches from --since to now: it takes no --until, --status, --direction, --count, --skip or --all")
			}
			c, err := a.newClient(telco.WithParallelPages(parallel))
			if err != nil {
				return err
			}
			if len(externalIDs) > 0 {
				return a.findByExternalID(cmd, c, prop, p.DateFrom, externalIDs)
			}
			var bar *progress
			if lf.all && !(a.jsonOut() && isTerminal(a.stdout)) { // streamed JSON would share the screen with it
				bar = a.newProgress("messages", 0)
			}
			return printListing(a, lf.all, messageCols, bar,
				func() (any, []telco.Message, error) {
					page, items, err := pageOf(c.Messages.Find(cmd.Context(), prop, &p))
					// Message pages carry no total: a full page may have a next.
					if size := firstNonZero(p.Count, defaultFindCount); err == nil && len(items) == size {
						page = pageNote{next: "full"}
					}
					return page, items, err
				},
				func() iter.Seq2[telco.Message, error] {
					return c.Messages.FindAll(cmd.Context(), prop, &p)
				})
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&since, "since", "-24h", "from this time, inclusive")
	fs.StringVar(&until, "until", "+1m", "to this time, exclusive")
	fs.StringVar(&status, "status", "", "only this status: "+strings.Join(messageStatusNames, ", "))
	fs.StringVar(&direction, "direction", "", "only this direction: Transmit or Receive")
	fs.StringArrayVar(&externalIDs, "external-id", nil, "find the messages sent with this ExternalId since --since (repeatable)")
	lf.add(fs)
	fs.IntVar(&parallel, "parallel", 1, fmt.Sprintf("with --all or --external-id: page requests in flight at once, 1 to %d; the same messages in the same order", telco.MaxParallelPages))
	completeEnum(c, "status", messageStatusNames...)
	completeEnum(c, "direction", directions...)
	fieldFlags(c, "Date_From", "since", "Date_To", "until", "Status", "status", "Direction", "direction", "since", "since", "ExternalId", "external-id")
	return c
}

// defaultFindCount is the service's page size for sms find.
const defaultFindCount = 200

func firstNonZero(vs ...int) int {
	for _, v := range vs {
		if v != 0 {
			return v
		}
	}
	return 0
}

// findByExternalID prints every message found with each ExternalId, in
// the order of ids, each ID's in the order found; it names on standard
// error the IDs stored more than once, and the IDs not found (exit status
// 1).
func (a *app) findByExternalID(cmd *cobra.Command, c *telco.Client, prop string, since time.Time, ids []string) error {
	found, err := c.Messages.ListByExternalID(cmd.Context(), prop, since, ids...)
	if err != nil {
		return err
	}
	items := []telco.Message{}
	var missing []string
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		ms := found[id]
		if len(ms) == 0 {
			missing = append(missing, id)
			continue
		}
		items = append(items, ms...)
		if len(ms) > 1 {
			sids := make([]string, len(ms))
			for i, m := range ms {
				sids[i] = m.MessageSid
			}
			fmt.Fprintf(a.stderr, "telco: ExternalId %s has %d messages (sent more than once): %s\n", shellQuote(id), len(ms), strings.Join(sids, ", "))
		}
	}
	if err := printList(a, nil, items, messageCols); err != nil {
		return err
	}
	if len(missing) > 0 {
		return &exitError{code: exitService, msg: fmt.Sprintf("not found since %s: %s",
			a.formatTime(since), strings.Join(missing, ", "))}
	}
	return nil
}

// messageCols are a message's list columns; messageFields add the rest.
var messageCols = []column[telco.Message]{
	{name: "MESSAGE SID", get: func(m *telco.Message) string { return m.MessageSid }},
	{name: "DIRECTION", get: func(m *telco.Message) string { return string(m.Direction) }},
	{name: "FROM", get: func(m *telco.Message) string { return m.From }},
	{name: "TO", get: func(m *telco.Message) string { return m.To }},
	{name: "STATUS", get: func(m *telco.Message) string { return string(m.Status) }},
	{name: "SEGMENTS", get: func(m *telco.Message) string { return itoa(m.NumSegments) }},
	{name: "CREATED", at: func(m *telco.Message) time.Time { return timeOf(m.Created) }},
	{name: "EXTERNAL ID", get: func(m *telco.Message) string { return m.ExternalID }},
	{name: "TEXT", get: func(m *telco.Message) string { return m.Text }},
}

var messageFields = append(append([]column[telco.Message]{}, messageCols...),
	column[telco.Message]{name: "PROPERTY SID", get: func(m *telco.Message) string { return m.PropertySid }},
	column[telco.Message]{name: "DELIVERY RECEIPT", get: func(m *telco.Message) string { return yesNo(m.DeliveryReceipt) }},
	column[telco.Message]{name: "SCHEDULED", at: func(m *telco.Message) time.Time { return timeOf(m.Scheduled) }},
	column[telco.Message]{name: "SUBMITTED", at: func(m *telco.Message) time.Time { return timeOf(m.Submitted) }},
	column[telco.Message]{name: "DELIVERED", at: func(m *telco.Message) time.Time { return timeOf(m.Delivered) }},
	column[telco.Message]{name: "RECEIVED", at: func(m *telco.Message) time.Time { return timeOf(m.Received) }},
	column[telco.Message]{name: "ERROR CODE", get: func(m *telco.Message) string { return m.ErrorCode }},
)

// sendOnce sends p at most once with SendOnce over the account's send
// ledger, which it holds for the send and closes after, so that other
// commands wait only that long.
func (a *app) sendOnce(cmd *cobra.Command, prop string, p *telco.SendMessageParams, o ledgerOpts) error {
	ctx := cmd.Context()
	now := time.Now()
	since, err := a.lookUpSince(o, now)
	if err != nil {
		return err
	}
	path, err := a.ledgerPath(o.path)
	if err != nil {
		return err
	}
	l, recovered, err := a.openLedger(path, o.recover, since)
	if err != nil {
		return err
	}
	defer l.Close()
	if o.recover && !recovered {
		return usagef("ledger %s can be read: --recover is only for one that cannot; run without it", path)
	}
	ids := []string{p.ExternalID}
	before, err := l.Records(ctx, prop, ids)
	if err != nil {
		return ledgerError(path, err)
	}
	var lookBack time.Duration
	if o.lookUpFirst {
		lookBack = now.Sub(since)
	}
	policy, err := a.reconcilePolicy(lookBack)
	if err != nil {
		return err
	}
	c, err := a.newClient(telco.WithLedger(l), telco.WithReconcilePolicy(policy))
	if err != nil {
		return err
	}
	m, err := c.Messages.SendOnce(ctx, prop, p)
	if errors.Is(err, telco.ErrExternalIDReused) {
		return &exitError{code: exitService, msg: fmt.Sprintf("%v (ledger %s; a relative --schedule names another time on each run: give an absolute one)",
			err, path)}
	}
	if err != nil {
		if errors.Is(err, telco.ErrMaybeSent) {
			// The look-up that settles it searches from the first
			// attempt, which may be an earlier run's.
			if after, rerr := l.Records(ctx, prop, ids); rerr == nil && !after[0].First.IsZero() {
				return &sinceError{err: err, since: after[0].First}
			}
		}
		return err
	}
	was := before[0]
	after, _ := l.Records(ctx, prop, ids)
	switch {
	case was.State == telco.LedgerSent && was.Message != nil && was.Message.MessageSid == m.MessageSid:
		at := was.Ended
		if t := was.Message.Created.Time(); !t.IsZero() {
			at = t
		}
		fmt.Fprintf(a.stderr, "telco: already sent as %s at %s (ledger %s): nothing sent\n",
			m.MessageSid, a.formatTime(at), path)
	case len(after) == 1 && after[0].Found && was.State == telco.LedgerNew:
		fmt.Fprintf(a.stderr, "telco: found at the service as %s by its ExternalId (sent before this ledger knew of it): not sent again\n", m.MessageSid)
	case len(after) == 1 && after[0].Found:
		fmt.Fprintf(a.stderr, "telco: an earlier attempt reached the service: found as %s by its ExternalId, not sent again\n", m.MessageSid)
	}
	return printOne(a, m, messageFields)
}
