package main

import (
	"iter"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

// portingCmd is "telco porting", over the SDK's Porting service.
func (a *app) portingCmd() *cobra.Command {
	return a.group("porting", "Submit porting requests and read their status", a.portingSubmitCmd(), a.portingStatusCmd())
}

func (a *app) portingSubmitCmd() *cobra.Command {
	var p telco.PortingRequestParams
	var prop, schedule, date string
	var numbers []string
	var num telco.PortingNumberParams
	c := &cobra.Command{
		Use:         "submit --property SID --contact-name ... --number E164 ...",
		Annotations: ops("Porting.Submit"),
		Short:       "Submit a porting request",
		Example: `  telco porting submit --property PR... --contact-name "Jo Citizen" --contact-email jo@example.com \
    --contact-number +61299999999 --carrier Telstra --carrier-account 12345 --schedule asap \
    --number +61299999999 --port-address "1 Example St, Sydney NSW 2000"`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			switch schedule, err = enum("schedule", schedule, "asap", "date"); {
			case err != nil:
				return err
			case schedule == "asap":
				p.PreferredPortSchedule = telco.PortASAP
			case schedule == "date":
				p.PreferredPortSchedule = telco.PortOnDate
			}
			if num.IncomingActionType, err = enum("incoming-action", num.IncomingActionType, telco.IncomingAnsweringPoint, telco.IncomingFlow); err != nil {
				return err
			}
			if date != "" {
				d, err := time.Parse(time.DateOnly, date)
				if err != nil {
					return usagef("--date must be YYYY-MM-DD, not %q", date)
				}
				p.PreferredPortDate = d
			}
			for _, n := range numbers {
				pn := num
				pn.Number = n
				p.PortingNumbers = append(p.PortingNumbers, pn)
			}
			return runCall(a, func(c *telco.Client) (*telco.PortingRequest, error) {
				return c.Porting.Submit(cmd.Context(), prop, &p)
			}, showOne(a, portingCols))
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&p.AuthorisedContactName, "contact-name", "", "authorised contact name (required)")
	fs.StringVar(&p.AuthorisedContactEmail, "contact-email", "", "authorised contact e-mail (required)")
	fs.StringVar(&p.DaytimeContactNumber, "contact-number", "", "daytime contact number (required)")
	fs.StringVar(&p.CurrentCarrier, "carrier", "", "current carrier (required)")
	fs.StringVar(&p.CurrentCarrierAccountNo, "carrier-account", "", "account number at the current carrier (required)")
	fs.StringVar(&schedule, "schedule", "", "asap or date (required)")
	fs.StringVar(&date, "date", "", "preferred port date YYYY-MM-DD, with --schedule date")
	fs.StringVar(&p.CustomerDescription, "description", "", "description")
	fs.StringVar(&p.WebhookURL, "webhook-url", "", "URL called on each status change")
	fs.StringSliceVar(&numbers, "number", nil, "E.164 number to port (repeatable)")
	fs.StringVar(&num.PortType, "port-type", telco.PortTypeCatA, "port type of the numbers")
	fs.StringVar(&num.PortAddress, "port-address", "", "service address of the numbers")
	fs.StringVar(&num.IncomingActionType, "incoming-action", "", `"Answering Point" or "Flow"`)
	fs.StringVar(&num.IncomingActionID, "incoming-action-id", "", "flow ID, with --incoming-action Flow")
	fs.StringVar(&num.IncomingAnswerPoint, "incoming-answer-point", "", `answering point, with --incoming-action "Answering Point"`)
	completeEnum(c, "schedule", "asap", "date")
	completeEnum(c, "incoming-action", telco.IncomingAnsweringPoint, telco.IncomingFlow)
	fieldFlags(c, "AuthorisedContactName", "contact-name", "AuthorisedContactEmail", "contact-email",
		"DaytimeContactNumber", "contact-number", "CurrentCarrier", "carrier", "CurrentCarrierAccountNo", "carrier-account",
		"PreferredPortSchedule", "schedule", "PreferredPortDate", "date", "WebHookURL", "webhook-url",
		"CustomerDescription", "description", "PortingNumbers", "number", "PortingNumbers[].Number", "number",
		"PortingNumbers[].PortType", "port-type", "PortingNumbers[].PortAddress", "port-address",
		"PortingNumbers[].IncomingActionType", "incoming-action", "PortingNumbers[].IncomingActionId", "incoming-action-id",
		"PortingNumbers[].IncomingAnswerPoint", "incoming-answer-point")
	return c
}

func (a *app) portingStatusCmd() *cobra.Command {
	var lf listFlags
	var prop, acct, since, until string
	var numbers []string
	c := &cobra.Command{
		Use:         "status [--property SID | --account SID] [--since T] [--until T]",
		Annotations: ops("Porting.StatusByProperty", "Porting.StatusByAccount"),
		Short:       "List porting requests and their status, by project or else by account",
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			from, err := a.parseTime("since", since, now)
			if err != nil {
				return err
			}
			to, err := a.parseTime("until", until, now)
			if err != nil {
				return err
			}
			p := telco.PortingStatusParams{From: from, To: to, PortingRequestNumbers: numbers, ListParams: lf.params()}
			ctx := cmd.Context()
			return a.withClient(func(c *telco.Client) error {
				// The scope after the client, as sip-trunks get: missing
				// credentials are the error reported first.
				prop, acct, err := a.scope(prop, acct)
				if err != nil {
					return err
				}
				if prop != "" {
					return printListing(a, lf.all, portingCols, nil,
						func() (any, []telco.PortingRequest, error) { return pageOf(c.Porting.StatusByProperty(ctx, prop, &p)) },
						func() iter.Seq2[telco.PortingRequest, error] { return c.Porting.StatusByPropertyAll(ctx, prop, &p) })
				}
				return printListing(a, lf.all, portingCols, nil,
					func() (any, []telco.PortingRequest, error) { return pageOf(c.Porting.StatusByAccount(ctx, acct, &p)) },
					func() iter.Seq2[telco.PortingRequest, error] { return c.Porting.StatusByAccountAll(ctx, acct, &p) })
			})
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&acct, "account", "", "account SID (default your own when no project is given by --property, $TELCO_PROPERTY_SID or the profile); not with --property")
	fs.StringVar(&since, "since", "-720h", "from this time: "+timeHelp)
	fs.StringVar(&until, "until", "+1h", "to this time")
	fs.StringSliceVar(&numbers, "porting-no", nil, "only these porting request numbers (repeatable)")
	lf.add(fs)
	fieldFlags(c, "From", "since", "To", "until")
	return c
}

// portingCols are a porting request's columns.
var portingCols = []column[telco.PortingRequest]{
	{name: "PORTING NO", get: func(p *telco.PortingRequest) string { return p.PortingNo }},
	{name: "STATUS", get: func(p *telco.PortingRequest) string { return p.Status }},
	{name: "SCHEDULE", get: func(p *telco.PortingRequest) string { return string(p.PreferredPortSchedule) }},
	{name: "CARRIER", get: func(p *telco.PortingRequest) string { return p.CurrentCarrier }},
	{name: "CONTACT", get: func(p *telco.PortingRequest) string { return p.AuthorisedContactName }},
	{name: "NUMBERS", get: func(p *telco.PortingRequest) string {
		out := make([]string, 0, len(p.PortingNumbers))
		for _, n := range p.PortingNumbers {
			out = append(out, n.Number)
		}
		return strings.Join(out, " ")
	}},
	{name: "CREATED", at: func(p *telco.PortingRequest) time.Time { return timeOf(p.Created) }},
}
