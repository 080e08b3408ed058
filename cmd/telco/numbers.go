package main

import (
	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// numbersCmd is "telco numbers", over the SDK's Numbers service.
func (a *app) numbersCmd() *cobra.Command {
	return a.group("numbers", "Read, list, purchase and configure phone numbers",
		a.numberGetCmd(), a.numberListCmd(), a.numberPurchaseCmd(), a.numberConfigureCmd())
}

func (a *app) numberConfigureCmd() *cobra.Command {
	var p telco.NumberConfigParams
	var routing, recording string
	c := &cobra.Command{
		Use:     "configure NUMBER [flags]",
		Short:   "Configure a number (E.164, + optional): only the flags given are sent",
		Example: `  telco numbers configure +61299999999 --friendly Reception --sms-webhook-url https://example.com/sms`,
		Args:    exactArgs(1, "one NUMBER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.RoutingMethod = telco.RoutingMethod(routing)
			p.Recording = telco.Recording(recording)
			return runCall(a, func(c *telco.Client) (*telco.NumberConfig, error) {
				return c.Numbers.Configure(cmd.Context(), args[0], &p)
			}, showOne(a, numberConfigCols))
		},
	}
	fs := c.Flags()
	fs.StringVar(&p.Friendly, "friendly", "", "friendly name")
	fs.StringVar(&p.AddressSid, "address", "", "address SID")
	fs.StringVar(&p.AttributionSource, "attribution-source", "", "Attribution_Source")
	fs.StringVar(&p.AttributionMedium, "attribution-medium", "", "Attribution_Medium")
	fs.StringVar(&p.AttributionCampaign, "attribution-campaign", "", "Attribution_Campaign")
	fs.StringVar(&p.AttributionContent, "attribution-content", "", "Attribution_Content")
	fs.StringVar(&routing, "routing", "", "routing method: Endpoint or Flow")
	fs.StringVar(&p.EndpointNumber, "endpoint", "", "endpoint number (E.164), with --routing Endpoint")
	fs.StringVar(&p.Flow, "flow", "", "flow ConfigID, with --routing Flow (see telco flows list)")
	fs.StringVar(&recording, "recording", "", "call recording: Off or Call")
	fs.StringVar(&p.SendSmsFrom, "forward-sms-from", "", "forward received SMS from this number")
	fs.StringVar(&p.SendSmsTo, "forward-sms-to", "", "forward received SMS to this number")
	fs.StringVar(&p.SendEmailFrom, "forward-email-from", "", "forward received SMS by e-mail from this address")
	fs.StringVar(&p.SendEmailTo, "forward-email-to", "", "forward received SMS by e-mail to this address")
	fs.StringVar(&p.WebhookURL, "sms-webhook-url", "", "URL called on a received SMS (WebHookUrl)")
	fs.StringVar(&p.WebhookMethod, "sms-webhook-method", "", "GET or POST")
	fs.StringVar(&p.DeliveryReceiptWebhookURL, "receipt-webhook-url", "", "URL called on a delivery receipt (DeliveryReceiptWebHookUrl)")
	fs.StringVar(&p.DeliveryReceiptWebhookMethod, "receipt-webhook-method", "", "GET or POST")
	_ = c.RegisterFlagCompletionFunc("routing", cobra.FixedCompletions([]string{"Endpoint", "Flow"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("recording", cobra.FixedCompletions([]string{"Off", "Call"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// numberConfigCols are a number's configuration, one field per line.
var numberConfigCols = []column[telco.NumberConfig]{
	{"NUMBER", func(n *telco.NumberConfig) string { return n.Number }},
	{"PROPERTY SID", func(n *telco.NumberConfig) string { return n.PropertySid }},
	{"FRIENDLY", func(n *telco.NumberConfig) string { return n.Friendly }},
	{"ADDRESS SID", func(n *telco.NumberConfig) string { return n.AddressSid }},
	{"ATTRIBUTION SOURCE", func(n *telco.NumberConfig) string { return n.AttributionSource }},
	{"ATTRIBUTION MEDIUM", func(n *telco.NumberConfig) string { return n.AttributionMedium }},
	{"ATTRIBUTION CAMPAIGN", func(n *telco.NumberConfig) string { return n.AttributionCampaign }},
	{"ATTRIBUTION CONTENT", func(n *telco.NumberConfig) string { return n.AttributionContent }},
	{"ROUTING", func(n *telco.NumberConfig) string { return string(n.RoutingMethod) }},
	{"ENDPOINT", func(n *telco.NumberConfig) string { return n.EndpointNumber }},
	{"FLOW", func(n *telco.NumberConfig) string { return n.Flow }},
	{"RECORDING", func(n *telco.NumberConfig) string { return string(n.Recording) }},
	{"FORWARD SMS FROM", func(n *telco.NumberConfig) string { return n.SendSmsFrom }},
	{"FORWARD SMS TO", func(n *telco.NumberConfig) string { return n.SendSmsTo }},
	{"FORWARD EMAIL FROM", func(n *telco.NumberConfig) string { return n.SendEmailFrom }},
	{"FORWARD EMAIL TO", func(n *telco.NumberConfig) string { return n.SendEmailTo }},
	{"SMS WEBHOOK URL", func(n *telco.NumberConfig) string { return n.WebhookURL }},
	{"SMS WEBHOOK METHOD", func(n *telco.NumberConfig) string { return n.WebhookMethod }},
	{"RECEIPT WEBHOOK URL", func(n *telco.NumberConfig) string { return n.DeliveryReceiptWebhookURL }},
	{"RECEIPT WEBHOOK METHOD", func(n *telco.NumberConfig) string { return n.DeliveryReceiptWebhookMethod }},
}
