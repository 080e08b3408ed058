package main

import (
	"encoding/json"
	"iter"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// numbersCmd is "telco numbers", over the SDK's Numbers service.
func (a *app) numbersCmd() *cobra.Command {
	return a.group("numbers", "Read, list, purchase and configure phone numbers",
		a.numberGetCmd(), a.numberListCmd(), a.numberPurchaseCmd(), a.numberConfigureCmd())
}

// Enumerations of numbers configure.
var (
	routingMethods = []string{string(telco.RoutingEndpoint), string(telco.RoutingFlow)}
	recordings     = []string{string(telco.RecordingOff), string(telco.RecordingCall)}
	webhookMethods = []string{"GET", "POST"}
)

// numberFlags pairs each flag of numbers configure with the field it sets,
// by wire name: the flag's name is what --clear takes.
var numberFlags = []struct {
	flag  string
	field telco.NumberField
}{
	{"friendly", telco.NumberFieldFriendly},
	{"address", telco.NumberFieldAddressSid},
	{"attribution-source", telco.NumberFieldAttributionSource},
	{"attribution-medium", telco.NumberFieldAttributionMedium},
	{"attribution-campaign", telco.NumberFieldAttributionCampaign},
	{"attribution-content", telco.NumberFieldAttributionContent},
	{"forward-sms-from", telco.NumberFieldSendSmsFrom},
	{"forward-sms-to", telco.NumberFieldSendSmsTo},
	{"forward-email-from", telco.NumberFieldSendEmailFrom},
	{"forward-email-to", telco.NumberFieldSendEmailTo},
	{"sms-webhook-url", telco.NumberFieldWebhookURL},
	{"sms-webhook-method", telco.NumberFieldWebhookMethod},
	{"receipt-webhook-url", telco.NumberFieldDeliveryReceiptWebhookURL},
	{"receipt-webhook-method", telco.NumberFieldDeliveryReceiptWebhookMethod},
}

func (a *app) numberConfigureCmd() *cobra.Command {
	var p telco.NumberConfigParams
	var routing, recording string
	var clear []string
	clearable := make([]string, len(numberFlags))
	for i, f := range numberFlags {
		clearable[i] = f.flag
	}
	c := &cobra.Command{
		Use:         "configure NUMBER [flags]",
		Annotations: ops("Numbers.Configure"),
		Short:       "Configure a number (E.164, + optional): only the flags given are sent",
		Long: `Configure a number. Only the flags given are sent; the others keep their
values. To remove a value (detach an address, stop a forward or a webhook),
name its flag in --clear (repeatable or comma-separated):

  telco numbers configure +61299999999 --clear address,sms-webhook-url,sms-webhook-method

The service then receives each cleared field as an empty string
({"AddressSid": ""}). Routing and recording are changed, never cleared.`,
		Example: `  telco numbers configure +61299999999 --friendly Reception --sms-webhook-url https://example.com/sms`,
		Args:    exactArgs(1, "one NUMBER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if routing, err = enum("routing", routing, routingMethods...); err != nil {
				return err
			}
			if recording, err = enum("recording", recording, recordings...); err != nil {
				return err
			}
			p.RoutingMethod = telco.RoutingMethod(routing)
			p.Recording = telco.Recording(recording)
			fs := cmd.Flags()
			for _, f := range numberFlags {
				// An empty value would be left out of the request and change
				// nothing: say how to clear instead of succeeding silently.
				if v, _ := fs.GetString(f.flag); fs.Changed(f.flag) && strings.TrimSpace(v) == "" {
					return usagef("--%s is empty, which changes nothing: to remove the value, give --clear %s", f.flag, f.flag)
				}
			}
			for _, name := range clear {
				v, err := enum("clear", name, clearable...)
				if err != nil {
					return err
				}
				for _, f := range numberFlags {
					if f.flag == v {
						p.Clear = append(p.Clear, f.field)
					}
				}
			}
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
	fs.StringSliceVar(&clear, "clear", nil, "remove these values (flag names, repeatable): "+strings.Join(clearable, ", "))
	completeEnum(c, "routing", routingMethods...)
	completeEnum(c, "recording", recordings...)
	completeEnum(c, "sms-webhook-method", webhookMethods...)
	completeEnum(c, "receipt-webhook-method", webhookMethods...)
	completeList(c, "clear", clearable...)
	pairs := []string{"RoutingMethod", "routing", "EndpointNumber", "endpoint", "Flow", "flow", "Recording", "recording", "Clear[]", "clear"}
	for _, f := range numberFlags {
		pairs = append(pairs, string(f.field), f.flag)
	}
	fieldFlags(c, pairs...)
	return c
}

// numberConfigCols are a number's configuration, one field per line.
var numberConfigCols = []column[telco.NumberConfig]{
	{name: "NUMBER", get: func(n *telco.NumberConfig) string { return n.Number }},
	{name: "PROPERTY SID", get: func(n *telco.NumberConfig) string { return n.PropertySid }},
	{name: "FRIENDLY", get: func(n *telco.NumberConfig) string { return n.Friendly }},
	{name: "ADDRESS SID", get: func(n *telco.NumberConfig) string { return n.AddressSid }},
	{name: "ATTRIBUTION SOURCE", get: func(n *telco.NumberConfig) string { return n.AttributionSource }},
	{name: "ATTRIBUTION MEDIUM", get: func(n *telco.NumberConfig) string { return n.AttributionMedium }},
	{name: "ATTRIBUTION CAMPAIGN", get: func(n *telco.NumberConfig) string { return n.AttributionCampaign }},
	{name: "ATTRIBUTION CONTENT", get: func(n *telco.NumberConfig) string { return n.AttributionContent }},
	{name: "ROUTING", get: func(n *telco.NumberConfig) string { return string(n.RoutingMethod) }},
	{name: "ENDPOINT", get: func(n *telco.NumberConfig) string { return n.EndpointNumber }},
	{name: "FLOW", get: func(n *telco.NumberConfig) string { return n.Flow }},
	{name: "RECORDING", get: func(n *telco.NumberConfig) string { return string(n.Recording) }},
	{name: "FORWARD SMS FROM", get: func(n *telco.NumberConfig) string { return n.SendSmsFrom }},
	{name: "FORWARD SMS TO", get: func(n *telco.NumberConfig) string { return n.SendSmsTo }},
	{name: "FORWARD EMAIL FROM", get: func(n *telco.NumberConfig) string { return n.SendEmailFrom }},
	{name: "FORWARD EMAIL TO", get: func(n *telco.NumberConfig) string { return n.SendEmailTo }},
	{name: "SMS WEBHOOK URL", get: func(n *telco.NumberConfig) string { return n.WebhookURL }},
	{name: "SMS WEBHOOK METHOD", get: func(n *telco.NumberConfig) string { return n.WebhookMethod }},
	{name: "RECEIPT WEBHOOK URL", get: func(n *telco.NumberConfig) string { return n.DeliveryReceiptWebhookURL }},
	{name: "RECEIPT WEBHOOK METHOD", get: func(n *telco.NumberConfig) string { return n.DeliveryReceiptWebhookMethod }},
}

func (a *app) numberGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "get NUMBER",
		Annotations: ops("Numbers.Get"),
		Short:       "Show a number the account owns (E.164, + optional)",
		Long: `get shows a number with its configuration. The service does not document
this answer's fields: those the SDK does not know are shown under EXTRA
(and, with -o json, beside the others).`,
		Args: exactArgs(1, "one NUMBER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCall(a, func(c *telco.Client) (*telco.Number, error) {
				return c.Numbers.Get(cmd.Context(), args[0])
			}, showOne(a, numberCols()))
		},
	}
}

func (a *app) numberListCmd() *cobra.Command {
	var lf listFlags
	var prop, acct string
	var types, caps []string
	c := &cobra.Command{
		Use:         "list [--property SID | --account SID] [--type T]... [--capability C]...",
		Annotations: ops("Numbers.ListByProperty", "Numbers.ListByAccount"),
		Short:       "List numbers, by project or else by account",
		Example:     `  telco numbers list --type Local --capability SMS`,
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := telco.ListNumbersParams{ListParams: lf.params()}
			for _, t := range types {
				p.Types = append(p.Types, telco.NumberType(t))
			}
			for _, c := range caps {
				p.Capabilities = append(p.Capabilities, telco.NumberCapability(c))
			}
			ctx := cmd.Context()
			return a.withClient(func(c *telco.Client) error {
				prop, acct, err := a.scope(prop, acct)
				if err != nil {
					return err
				}
				if prop != "" {
					return printListing(a, lf.all, numberListCols, nil,
						func() (any, []telco.Number, error) { return pageOf(c.Numbers.ListByProperty(ctx, prop, &p)) },
						func() iter.Seq2[telco.Number, error] { return c.Numbers.ListByPropertyAll(ctx, prop, &p) })
				}
				return printListing(a, lf.all, numberListCols, nil,
					func() (any, []telco.Number, error) { return pageOf(c.Numbers.ListByAccount(ctx, acct, &p)) },
					func() iter.Seq2[telco.Number, error] { return c.Numbers.ListByAccountAll(ctx, acct, &p) })
			})
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&acct, "account", "", "account SID (default your own when no project is given by --property, $TELCO_PROPERTY_SID or the profile); not with --property")
	fs.StringSliceVar(&types, "type", nil, "Local, Toll-Free, Shared-Rate or National (repeatable)")
	fs.StringSliceVar(&caps, "capability", nil, "Voice, SMS or MMS (repeatable)")
	lf.add(fs)
	_ = c.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{"Local", "Toll-Free", "Shared-Rate", "National"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("capability", cobra.FixedCompletions([]string{"Voice", "SMS", "MMS"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func (a *app) numberPurchaseCmd() *cobra.Command {
	var prop string
	var p telco.PurchaseNumberParams
	c := &cobra.Command{
		Use:         "purchase NUMBER [--property SID] [--address ADDRESS_SID]",
		Annotations: ops("Numbers.Purchase"),
		Short:       "Buy a number for a project: Active with an address, else Pending",
		Long: `purchase buys NUMBER (E.164) for the project. Without --address the service
assigns the first suitable address of the project, and reserves the number
(Pending) when there is none. A purchase is never retried once it may have
reached the service: after a network error, check with 'telco numbers get'.`,
		Example: `  telco numbers purchase +61299990001`,
		Args:    exactArgs(1, "one NUMBER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sid, err := a.property(prop)
			if err != nil {
				return err
			}
			p.Number = args[0]
			return runCall(a, func(c *telco.Client) (*telco.NumberPurchase, error) {
				return c.Numbers.Purchase(cmd.Context(), sid, &p)
			}, showOne(a, purchaseCols))
		},
	}
	a.propertyFlag(c.Flags(), &prop)
	c.Flags().StringVar(&p.AddressSid, "address", "", "address SID to register the number with")
	return c
}

// extra shows members the SDK did not decode as k=v, sorted.
func extra(m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + string(m[k])
	}
	return strings.Join(parts, " ")
}

// numberCols are a number's fields, one per line: its configuration, then
// what only the listings show, then what the SDK did not know.
func numberCols() []column[telco.Number] {
	var cols []column[telco.Number]
	for _, c := range numberConfigCols {
		get := c.get
		cols = append(cols, column[telco.Number]{name: c.name, get: func(n *telco.Number) string { return get(&n.NumberConfig) }})
	}
	return append(cols,
		column[telco.Number]{name: "TYPE", get: func(n *telco.Number) string { return string(n.Type) }},
		column[telco.Number]{name: "CAPABILITIES", get: func(n *telco.Number) string { return n.Capabilities.String() }},
		column[telco.Number]{name: "STATUS", get: func(n *telco.Number) string { return string(n.Status) }},
		column[telco.Number]{name: "CITY", get: func(n *telco.Number) string { return n.City }},
		column[telco.Number]{name: "REGION", get: func(n *telco.Number) string { return n.Region }},
		column[telco.Number]{name: "COUNTRY", get: func(n *telco.Number) string { return n.CountryCode }},
		column[telco.Number]{name: "ADDRESS REQUIREMENT", get: func(n *telco.Number) string { return n.AddressRequirement }},
		column[telco.Number]{name: "EXTRA", get: func(n *telco.Number) string { return extra(n.Extra) }},
	)
}

// numberListCols are a number's columns in a list.
var numberListCols = []column[telco.Number]{
	{name: "NUMBER", get: func(n *telco.Number) string { return n.Number }},
	{name: "TYPE", get: func(n *telco.Number) string { return string(n.Type) }},
	{name: "CAPABILITIES", get: func(n *telco.Number) string { return n.Capabilities.String() }},
	{name: "STATUS", get: func(n *telco.Number) string { return string(n.Status) }},
	{name: "ROUTING", get: func(n *telco.Number) string { return string(n.RoutingMethod) }},
	{name: "TO", get: func(n *telco.Number) string { return firstNonEmpty(n.EndpointNumber, n.Flow) }},
	{name: "FRIENDLY", get: func(n *telco.Number) string { return n.Friendly }},
	{name: "PROPERTY SID", get: func(n *telco.Number) string { return n.PropertySid }},
}

// purchaseCols are a purchase's answer.
var purchaseCols = []column[telco.NumberPurchase]{
	{name: "NUMBER", get: func(p *telco.NumberPurchase) string { return p.Number }},
	{name: "STATUS", get: func(p *telco.NumberPurchase) string { return string(p.Status) }},
	{name: "EXTRA", get: func(p *telco.NumberPurchase) string { return extra(p.Extra) }},
}
