// Quickstart tours the SDK.
//
//	go run ./examples/quickstart
//
// Without credentials it starts telcotest, the in-memory fake of the
// service, and uses every service against it: nothing leaves your machine.
// With TELCO_ACCOUNT_SID and TELCO_TOKEN set it talks to the real service
// and only reads: projects, number blocks, SIP trunks, messages of the last
// day and porting requests of the last month. It sends an SMS there only
// when asked to with -send:
//
//	go run ./examples/quickstart -send +61400000000
//
// telco.NewClientFromEnv builds the client from TELCO_ACCOUNT_SID and
// TELCO_TOKEN, and TELCO_BASE_URL when set: exported by the README's
// `telco mock` recipe, it tours the mock instead of the real service.
// TELCO_ALLOW_INSECURE_HTTP=1 lets that be plain http to a host name other
// than localhost, as in a CI network; never with real credentials.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func main() {
	sendTo := flag.String("send", "", "with credentials, also send one SMS to this E.164 number (without it the tour only reads)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, os.Getenv, *sendTo); err != nil {
		log.Fatal(err)
	}
}

// run tours the fake without credentials and the real service with them,
// at TELCO_BASE_URL when set (`telco mock`, say). sendTo is the -send flag:
// the only way to make the real tour write. getenv tells whether
// credentials are set; the client reads them itself.
func run(ctx context.Context, out io.Writer, getenv func(string) string, sendTo string) error {
	sid := getenv(telco.EnvAccountSid)
	if sid == "" && getenv(telco.EnvToken) == "" {
		// A manual clock lets the tour show a message's whole life at once.
		clock := telcotest.NewClock(time.Time{})
		srv := telcotest.NewServer(telcotest.WithClock(clock))
		defer srv.Close()
		fmt.Fprintf(out, "No TELCO_ACCOUNT_SID/TELCO_TOKEN: touring the embedded fake service at %s\n\n", srv.URL)
		return tourFake(ctx, out, srv, clock, srv.Client())
	}
	client, err := telco.NewClientFromEnv(telco.WithUserAgent("quickstart"))
	if err != nil {
		return err
	}
	return runReal(ctx, out, client, sid, sendTo)
}

// runReal tours account sid on the service client talks to, and sends one
// SMS to sendTo when it is set.
func runReal(ctx context.Context, out io.Writer, client *telco.Client, sid, sendTo string) error {
	if sendTo == "" {
		fmt.Fprintf(out, "Reading account %s at %s (nothing is changed; -send TO sends one SMS)\n\n", sid, client.BaseURL())
	} else {
		fmt.Fprintf(out, "Reading account %s at %s, then sending one SMS to %s\n\n", sid, client.BaseURL(), sendTo)
	}
	smsProject, err := tourReal(ctx, out, client, sid)
	if err != nil || sendTo == "" {
		return err
	}
	if smsProject == "" {
		return errors.New("-send: no project of the account is enabled for SMS")
	}
	msg, err := client.Messages.Send(ctx, smsProject, &telco.SendMessageParams{To: sendTo, Text: "Hello from the telco-go quickstart"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sent %s from %s to %s: %s\n", msg.MessageSid, msg.From, msg.To, msg.Status)
	return nil
}

// tourFake uses every service, writes included, against the fake.
func tourFake(ctx context.Context, out io.Writer, srv *telcotest.Server, clock *telcotest.Clock, c *telco.Client) error {
	step := func(name string) { fmt.Fprintf(out, "== %s\n", name) }

	step("Properties: create, update, list")
	prop, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{
		Name: "Quickstart", MainDomain: "quickstart.example.com", TimeZone: "AUS Eastern Standard Time",
	})
	if err != nil {
		return err
	}
	if err := c.Properties.Update(ctx, prop.PropertySid, &telco.UpdatePropertyParams{SmsEnabled: telco.Ptr(true)}); err != nil {
		return err
	}
	for p, err := range c.Properties.ListAll(ctx, nil) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "project %s %q sms=%v\n", p.PropertySid, p.Name, p.SmsEnabled)
	}

	step("Messages: send, batch, read back, find")
	text := "Your order #4711 has shipped 📦"
	seg := telco.Segments(text)
	fmt.Fprintf(out, "%q is %d %s unit(s) in %d segment(s)\n", text, seg.Units, seg.Encoding, seg.Segments)
	msg, err := c.Messages.Send(ctx, prop.PropertySid, &telco.SendMessageParams{
		From: "Acme", To: "+61499999999", Text: text, ExternalID: "order-4711",
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sent %s from %s: %s\n", msg.MessageSid, msg.From, msg.Status)
	results, err := c.Messages.SendBatch(ctx, prop.PropertySid, []telco.SendMessageParams{
		{To: "+61499999998", Text: "Leased sender: reply YES to confirm"},
		{To: "0499 999 997", Text: "Not E.164: rejected before sending"},
	})
	if err != nil {
		return err
	}
	leased := ""
	for i, r := range results {
		if r.Err != nil {
			fmt.Fprintf(out, "batch %d rejected: %s (%s)\n", i, r.Err.Code, r.Err.Fields[0].FieldName)
			continue
		}
		leased = r.Message.From
		fmt.Fprintf(out, "batch %d accepted: %s from leased %s\n", i, r.Message.MessageSid, leased)
	}
	for _, d := range []time.Duration{telcotest.SubmitDelay, telcotest.DeliverDelay} {
		clock.Advance(d) // on the real service, time passes by itself
		if msg, err = c.Messages.Get(ctx, msg.MessageSid); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s later, message %s is %s\n", d, msg.MessageSid, msg.Status)
	}
	srv.Receive(prop.PropertySid, "+61499999998", leased, "YES") // the recipient answers the lease
	day := &telco.FindMessagesParams{DateFrom: clock.Now().Add(-time.Hour), DateTo: clock.Now().Add(time.Minute)}
	for m, err := range c.Messages.FindAll(ctx, prop.PropertySid, day) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "found %s %s %s %q\n", m.Direction, m.Status, m.To, m.Text)
	}
	// SendOnce settles a send whose answer was lost by looking its ExternalId
	// up before any resend: the message is sent once, whatever the network did.
	once, err := c.Messages.SendOnce(ctx, prop.PropertySid, &telco.SendMessageParams{
		From: "Acme", To: "+61499999999", Text: "Your order #4712 has shipped", ExternalID: "order-4712",
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sent once %s for %s\n", once.MessageSid, once.ExternalID)

	step("NumberBlocks: search")
	srv.AddNumberBlock(prop.PropertySid, telco.NumberBlock{Number: "6129999XXXX", Name: "Sydney sales", BlockSize: 10000,
		Active: true, SupportsVoice: true, SupportsSms: true})
	blocks, err := c.NumberBlocks.Search(ctx, &telco.NumberBlockSearchParams{PropertySid: prop.PropertySid, Text: "sydney"})
	if err != nil {
		return err
	}
	for _, b := range blocks.Data {
		fmt.Fprintf(out, "block %s %q of %d numbers, created %s\n", b.Number, b.Name, b.BlockSize, b.Created.Format(time.RFC3339))
	}

	step("Addresses and Numbers: register and route a number")
	addr, err := c.Addresses.Create(ctx, srv.AccountSid, &telco.CreateAddressParams{
		Line1: "1 Martin Place", City: "Sydney", Region: "NSW", PostalCode: "2000", CountryCode: "AU",
	})
	if err != nil {
		return err
	}
	srv.AddNumber(prop.PropertySid, "+61299999999")
	cfg, err := c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{
		Friendly: "Main line", AddressSid: addr.AddressSid,
		RoutingMethod: telco.RoutingEndpoint, EndpointNumber: "+61400000000", Recording: telco.RecordingCall,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "number %s routes to %s, recording %s\n", cfg.Number, cfg.EndpointNumber, cfg.Recording)
	err = c.Addresses.Delete(ctx, addr.AddressSid)
	fmt.Fprintf(out, "deleting the address while in use: %s\n", telco.ErrorCode(err))

	step("OnlineLogins: create, get, list")
	login, err := c.OnlineLogins.Create(ctx, prop.PropertySid, &telco.CreateOnlineLoginParams{
		Email: "ops@quickstart.example.com", Password: "Quickstart-2026!", FirstName: "Olive", LastName: "Ops",
		Scopes: telco.Scopes{telco.ScopeManageSms, telco.ScopeReporting}, Enabled: true,
	})
	if err != nil {
		return err
	}
	if login, err = c.OnlineLogins.Get(ctx, login.OnlineLoginSid); err != nil {
		return err
	}
	fmt.Fprintf(out, "login %s %s scopes %s\n", login.OnlineLoginSid, login.Email, login.Permissions[0].Scopes)
	logins := 0
	for _, err := range c.OnlineLogins.ListAll(ctx, nil) {
		if err != nil {
			return err
		}
		logins++
	}
	fmt.Fprintf(out, "%d login(s) on the account\n", logins)

	step("SipTrunks: create, list, details")
	trunkSid, err := c.SipTrunks.Create(ctx, prop.PropertySid, &telco.CreateSipTrunkParams{
		Name: "Office PBX", DefaultCallerID: "+61299999999", Type: telco.SipTrunkIPToIP,
		IPAddresses: []string{"8.8.8.0/24"}, ChannelLimit: 10,
	})
	if err != nil {
		return err
	}
	if _, err := c.SipTrunks.List(ctx, prop.PropertySid, nil); err != nil {
		return err
	}
	trunk, err := c.SipTrunks.GetByProperty(ctx, prop.PropertySid, trunkSid)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "trunk %s %q %s, %d channels, allowed %s\n", trunk.SipTrunkSid, trunk.Name,
		trunk.ProvisioningState, trunk.ChannelLimit, trunk.SipTrunkAllowedCountries[0].CountryCode)

	step("Porting: submit, status")
	req, err := c.Porting.Submit(ctx, prop.PropertySid, &telco.PortingRequestParams{
		AuthorisedContactName: "Olive Ops", AuthorisedContactEmail: "ops@quickstart.example.com",
		DaytimeContactNumber: "+61299999999", CurrentCarrier: "Optus", CurrentCarrierAccountNo: "ACC-1",
		PreferredPortSchedule: telco.PortASAP,
		PortingNumbers: []telco.PortingNumberParams{{Number: "+61298765432", PortType: telco.PortTypeCatA,
			PortAddress: "1 Martin Place, Sydney NSW 2000"}},
	})
	if err != nil {
		return err
	}
	srv.SetPortingStatus(req.PortingNo, "Approved")
	status, err := c.Porting.StatusByProperty(ctx, prop.PropertySid, &telco.PortingStatusParams{
		From: clock.Now().Add(-time.Hour), To: clock.Now().Add(time.Minute)})
	if err != nil {
		return err
	}
	for _, r := range status.Items {
		fmt.Fprintf(out, "porting %s is %s (%d status changes)\n", r.PortingNo, r.Status, len(r.PortingNumbers[0].StatusHistory))
	}

	step("Flows, Numbers and Calls: buy a number, route it to a flow, follow its calls")
	bought, err := c.Numbers.Purchase(ctx, prop.PropertySid, &telco.PurchaseNumberParams{Number: "+61299990042"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "bought %s: %s\n", bought.Number, bought.Status)
	flows, err := c.Flows.List(ctx, prop.PropertySid, nil)
	if err != nil {
		return err
	}
	flow := flows.Items[0]
	if _, err := c.Numbers.Configure(ctx, bought.Number, &telco.NumberConfigParams{
		RoutingMethod: telco.RoutingFlow, Flow: flow.ConfigID}); err != nil {
		return err
	}
	fmt.Fprintf(out, "number %s routes to flow %q (%s)\n", bought.Number, flow.Name, flow.ConfigID)
	srv.AddCall(prop.PropertySid, telco.Call{From: "+61412345678", To: "61299990042"}) // a call arrives
	feed := telco.NewCallFeed(c.Calls.ListByProperty, prop.PropertySid, nil)
	for call, err := range feed.All(ctx) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "call %s from %s: %s\n", call.CallSid, call.From, call.Disposition)
	}

	step("Lookup: number details")
	details, err := c.Lookup.NumberDetails(ctx, "0412345678", "+61299999999")
	if err != nil {
		return err
	}
	for _, d := range details {
		fmt.Fprintf(out, "+%d: %s (assigned to %s)\n", d.E164, d.CurrentCarrier.Name, d.AssignedCarrier.Name)
	}

	step("Errors: bad input never leaves the client")
	_, err = c.Messages.Send(ctx, prop.PropertySid, &telco.SendMessageParams{From: "Acme Pty Ltd", To: "0499", Text: ""})
	var verr *telco.ValidationError
	if !errors.As(err, &verr) {
		return fmt.Errorf("expected a validation error, got %v", err)
	}
	for _, f := range verr.Fields {
		fmt.Fprintf(out, "%s: %s (%s)\n", f.FieldName, f.Message, f.Code)
	}
	fmt.Fprintln(out, "\nDone: every service answered.")
	return nil
}

// tourReal only reads, so that running it against a live account changes
// nothing and sends nothing. It returns the first project enabled for SMS
// (among the first 10), for -send.
func tourReal(ctx context.Context, out io.Writer, c *telco.Client, accountSid string) (string, error) {
	var first, sms string
	n := 0
	for p, err := range c.Properties.ListAll(ctx, nil) {
		if err != nil {
			return "", err
		}
		if first == "" {
			first = p.PropertySid
		}
		if sms == "" && p.SmsEnabled {
			sms = p.PropertySid
		}
		fmt.Fprintf(out, "project %s %q sms=%v\n", p.PropertySid, p.Name, p.SmsEnabled)
		if n++; n == 10 {
			break
		}
	}
	blocks, err := c.NumberBlocks.ListByAccount(ctx, accountSid, &telco.NumberBlockListParams{PageSize: 5})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(out, "%d number block(s) on the account\n", blocks.TotalCount)
	if first != "" {
		trunks, err := c.SipTrunks.List(ctx, first, &telco.ListSipTrunksParams{ListParams: telco.ListParams{Count: 5}})
		if err != nil {
			return "", err
		}
		fmt.Fprintf(out, "%d SIP trunk(s) on %s\n", trunks.TotalCount, first)
		msgs, err := c.Messages.Find(ctx, first, &telco.FindMessagesParams{
			DateFrom: time.Now().Add(-24 * time.Hour), DateTo: time.Now(), ListParams: telco.ListParams{Count: 20}})
		if err != nil {
			return "", err
		}
		fmt.Fprintf(out, "%d message(s) on %s in the last day (first page)\n", len(msgs.Items), first)
	}
	ports, err := c.Porting.StatusByAccount(ctx, accountSid, &telco.PortingStatusParams{
		From: time.Now().Add(-30 * 24 * time.Hour), To: time.Now()})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(out, "%d porting request(s) updated in the last 30 days\n", ports.TotalCount)
	return sms, nil
}
