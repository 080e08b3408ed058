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
			if p.Schedule, err = parseTime("schedule", schedule, time.Now()); err != nil {
				return err
			}
			if noReceipt {
				p.DeliveryReceipt = telco.Ptr(false)
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
	fs.StringVar(&schedule, "schedule", "", "send later: RFC 3339, Unix seconds or +2h (at most 14 days ahead)")
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
	return c
}

func (a *app) smsGetCmd() *cobra.Command {
	return getCmd(a, "get MESSAGE_SID", "Show one message", "MESSAGE_SID", messageFields,
		func(ctx context.Context, c *telco.Client, sid string) (*telco.Message, error) {
			return c.Messages.Get(ctx, sid)
		})
}

func (a *app) smsFindCmd() *cobra.Command {
	var lf listFlags
	var prop, since, until, status, direction string
	c := &cobra.Command{
		Use:     "find [--since T] [--until T] [--status S] [--direction D] [--all]",
		Short:   "Find a project's sent and received messages in a time window",
		Example: `  telco sms find --property PR... --since 2026-11-01 --until 2026-11-08 --direction Receive --all -o json`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			now := time.Now()
			p := telco.FindMessagesParams{Status: telco.MessageStatus(status), Direction: telco.Direction(direction), ListParams: lf.params()}
			if p.DateFrom, err = parseTime("since", since, now); err != nil {
				return err
			}
			if p.DateTo, err = parseTime("until", until, now); err != nil {
				return err
			}
			var bar *progress
			if lf.all && !(a.jsonOut() && isTerminal(a.stdout)) { // streamed JSON would share the screen with it
				bar = a.newProgress("messages", 0)
			}
			return runList(a, lf.all, messageCols, bar,
				func(c *telco.Client) (any, []telco.Message, error) {
					return pageOf(c.Messages.Find(cmd.Context(), prop, &p))
				},
				func(c *telco.Client) iter.Seq2[telco.Message, error] {
					return c.Messages.FindAll(cmd.Context(), prop, &p)
				})
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&since, "since", "-24h", "from this time, inclusive (RFC 3339, YYYY-MM-DD, Unix seconds, now, or -24h)")
	fs.StringVar(&until, "until", "+1m", "to this time, exclusive")
	fs.StringVar(&status, "status", "", "Processing, Submitted, Delivered, Failed or Received")
	fs.StringVar(&direction, "direction", "", "Transmit or Receive")
	lf.add(fs)
	_ = c.RegisterFlagCompletionFunc("status", cobra.FixedCompletions([]string{"Processing", "Submitted", "Delivered", "Failed", "Received"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("direction", cobra.FixedCompletions([]string{"Transmit", "Receive"}, cobra.ShellCompDirectiveNoFileComp))
	return c
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
