package main

import (
	"context"
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
	c := &cobra.Command{
		Use:   "send --to E164 --text TEXT [--from SENDER]",
		Short: "Send one SMS",
		Long: `Send one SMS from a project. --from is an E.164 number, an alphanumeric sender
ID, or empty for a leased sender (then the --forward-* and --webhook-* flags
apply to responses). --text - reads the text from standard input.`,
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
	fs.StringVar(&p.ExternalID, "external-id", "", "your own id, returned on the message")
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
	return getCmd(a, "get MESSAGE_SID", "Show one message", "MESSAGE_SID", messageFields,
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
	c := &cobra.Command{
		Use:   "find [--since T] [--until T] [--status S] [--direction D] [--external-id ID]... [--all]",
		Short: "Find a project's sent and received messages in a time window, or by ExternalId",
		Long: `Find a project's messages created from --since (inclusive) to --until
(exclusive). Times: ` + timeHelp + `.

With --external-id (repeatable), find the messages sent with those
ExternalIds since --since, in one scan of the window: the way to learn
whether a send that ended in doubt went out. IDs not found are named on
standard error, and the exit status is then 1:

  telco sms find --since -1h --external-id order-1042 --external-id order-1043`,
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
			if len(externalIDs) > 0 {
				if cmd.Flags().Changed("until") || status != "" || direction != "" || lf.all || lf.count != 0 || lf.skip != 0 {
					return usagef("--external-id searches from --since to now: it takes no --until, --status, --direction, --count, --skip or --all")
				}
				return a.findByExternalID(cmd, prop, p.DateFrom, externalIDs)
			}
			var bar *progress
			if lf.all && !(a.jsonOut() && isTerminal(a.stdout)) { // streamed JSON would share the screen with it
				bar = a.newProgress("messages", 0)
			}
			return runList(a, lf.all, messageCols, bar,
				func(c *telco.Client) (any, []telco.Message, error) {
					page, items, err := pageOf(c.Messages.Find(cmd.Context(), prop, &p))
					// Message pages carry no total: a full page may have a next.
					if size := firstNonZero(p.Count, defaultFindCount); err == nil && len(items) == size {
						page = pageNote{next: "full"}
					}
					return page, items, err
				},
				func(c *telco.Client) iter.Seq2[telco.Message, error] {
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

// findByExternalID prints the messages found by ExternalId, in the order
// of ids, and names on standard error the IDs not found (exit status 1).
func (a *app) findByExternalID(cmd *cobra.Command, prop string, since time.Time, ids []string) error {
	return a.withClient(func(c *telco.Client) error {
		found, err := c.Messages.FindByExternalID(cmd.Context(), prop, since, ids...)
		if err != nil {
			return err
		}
		items := []telco.Message{}
		var missing []string
		for _, id := range ids {
			if m, ok := found[id]; ok {
				items = append(items, m)
			} else {
				missing = append(missing, id)
			}
		}
		if err := printList(a, nil, items, messageCols); err != nil {
			return err
		}
		if len(missing) > 0 {
			return &exitError{code: exitService, msg: fmt.Sprintf("not found since %s: %s",
				since.In(a.location()).Format(time.RFC3339), strings.Join(missing, ", "))}
		}
		return nil
	})
}

// messageCols are a message's list columns; messageFields add the rest.
var messageCols = []column[telco.Message]{
	{"MESSAGE SID", func(m *telco.Message) string { return m.MessageSid }},
	{"DIRECTION", func(m *telco.Message) string { return string(m.Direction) }},
	{"FROM", func(m *telco.Message) string { return m.From }},
	{"TO", func(m *telco.Message) string { return m.To }},
	{"STATUS", func(m *telco.Message) string { return string(m.Status) }},
	{"SEGMENTS", func(m *telco.Message) string { return itoa(m.NumSegments) }},
	{"CREATED", func(m *telco.Message) string { return ts(m.Created) }},
	{"EXTERNAL ID", func(m *telco.Message) string { return m.ExternalID }},
	{"TEXT", func(m *telco.Message) string { return m.Text }},
}

var messageFields = append(append([]column[telco.Message]{}, messageCols...),
	column[telco.Message]{"PROPERTY SID", func(m *telco.Message) string { return m.PropertySid }},
	column[telco.Message]{"DELIVERY RECEIPT", func(m *telco.Message) string { return yesNo(m.DeliveryReceipt) }},
	column[telco.Message]{"SCHEDULED", func(m *telco.Message) string { return ts(m.Scheduled) }},
	column[telco.Message]{"SUBMITTED", func(m *telco.Message) string { return ts(m.Submitted) }},
	column[telco.Message]{"DELIVERED", func(m *telco.Message) string { return ts(m.Delivered) }},
	column[telco.Message]{"RECEIVED", func(m *telco.Message) string { return ts(m.Received) }},
	column[telco.Message]{"ERROR CODE", func(m *telco.Message) string { return m.ErrorCode }},
)
