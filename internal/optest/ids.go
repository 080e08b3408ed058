package optest

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// IDs are the resources a fixture's calls work on. The path identifiers
// are fields named as the catalogue's paths name them ({PropertySid} is
// PropertySid), so that Get and With can reach one by its wire name.
type IDs struct {
	AccountSid, PropertySid, Text, Number, MessageSid, OnlineLoginSid string
	SipTrunkSid, AddressSid, CallSid, NumberBlockSid                  string

	// PortingNo is a porting request of the project.
	PortingNo string
	// ExternalID is the ExternalId the message MessageSid was sent with.
	ExternalID string
}

// Get returns the identifier of that wire name, and whether IDs has one.
func (ids IDs) Get(name string) (string, bool) {
	f := reflect.ValueOf(ids).FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.String {
		return "", false
	}
	return f.String(), true
}

// With returns ids with the identifier of that wire name set to value, and
// whether IDs has one of that name.
func (ids IDs) With(name, value string) (IDs, bool) {
	f := reflect.ValueOf(&ids).Elem().FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.String {
		return ids, false
	}
	f.SetString(value)
	return ids, true
}

// ValidIDs are identifiers the SDK's rules accept, each distinct, for
// tests whose requests never reach a service (or reach a mock): a path
// built from them shows which argument went where.
func ValidIDs() IDs {
	return IDs{
		AccountSid: "ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", PropertySid: "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS",
		Text: "Spring", Number: "+61299999999", MessageSid: "MG1",
		OnlineLoginSid: "3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c40", SipTrunkSid: "ST1", AddressSid: "AD1",
		CallSid: "CA1", NumberBlockSid: "NB1", PortingNo: "P1", ExternalID: "x1",
	}
}

// The passwords Setup and the fixtures send; Secrets lists them.
const (
	setupPassword  = "Matrix-Passw0rd!"
	loginPassword  = "Str0ng!Passw0rd#"
	loginPassword2 = "An0ther!Passw0rd"
)

// Secrets are the passwords Setup and the fixtures send, for a test that
// must keep them out of what it prints.
func Secrets() []string { return []string{setupPassword, loginPassword, loginPassword2} }

// Setup makes, on srv's seeded account and project, one resource of each
// kind a fixture's call works on, every optional field set so that answers
// about them carry every field, and returns their identifiers: a number, a
// number block and a call of the project (seeded), a message scheduled an
// hour ahead with an ExternalId, an online login, an IP-to-IP SIP trunk,
// an Australian address of the account and a porting request. It talks to
// srv through a client of its own, so a test's client sees none of it.
func Setup(srv *telcotest.Server) (IDs, error) {
	ctx := context.Background()
	c := srv.Client()
	ids := IDs{AccountSid: srv.AccountSid, PropertySid: srv.PropertySid, Text: "Spring", Number: "+61299999999",
		NumberBlockSid: "NBSETUP", ExternalID: "setup-1"}
	srv.AddNumber(ids.PropertySid, ids.Number)
	srv.AddNumberBlock(ids.PropertySid, telco.NumberBlock{Number: "6129997XXXX", NumberBlockSid: ids.NumberBlockSid,
		FriendlyName: ids.Text})
	ids.CallSid = srv.AddCall(ids.PropertySid, telco.Call{Duration: 42, From: "+61499990000", To: "+61299999999",
		Endpoint: "+61299990001", CallerCity: "Sydney", CallerRegion: "NSW", CallerCountryCode: "AU",
		AttributionSource: "google", AttributionMedium: "cpc", AttributionCampaign: "spring", AttributionContent: "ad1",
		PromptsKeys: "1,2"}).CallSid

	m, err := c.Messages.Send(ctx, ids.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000009", Text: "setup",
		DeliveryReceipt: telco.Ptr(true), ExternalID: ids.ExternalID, Schedule: time.Now().Add(time.Hour)})
	if err != nil {
		return ids, fmt.Errorf("setup: %w", err)
	}
	ids.MessageSid = m.MessageSid
	l, err := c.OnlineLogins.Create(ctx, ids.PropertySid, &telco.CreateOnlineLoginParams{Email: "setup@example.com",
		Password: setupPassword, FirstName: "M", LastName: "X", Scopes: telco.Scopes{telco.ScopeManage, telco.ScopeReportingSms},
		Enabled: true})
	if err != nil {
		return ids, fmt.Errorf("setup: %w", err)
	}
	ids.OnlineLoginSid = l.OnlineLoginSid
	trunk := sipTrunk(ids)
	if ids.SipTrunkSid, err = c.SipTrunks.Create(ctx, ids.PropertySid, &trunk); err != nil {
		return ids, fmt.Errorf("setup: %w", err)
	}
	addr := address()
	a, err := c.Addresses.Create(ctx, ids.AccountSid, &addr)
	if err != nil {
		return ids, fmt.Errorf("setup: %w", err)
	}
	ids.AddressSid = a.AddressSid
	porting := portingRequest("+61298765433", "+61298765434")
	p, err := c.Porting.Submit(ctx, ids.PropertySid, &porting)
	if err != nil {
		return ids, fmt.Errorf("setup: %w", err)
	}
	ids.PortingNo = p.PortingNo
	return ids, nil
}

// Delta is what the fake's store gained between before and after
// (negative: lost), field by field, so that a kind added to Counts is
// counted here too.
func Delta(after, before telcotest.Counts) telcotest.Counts {
	var d telcotest.Counts
	dv, av, bv := reflect.ValueOf(&d).Elem(), reflect.ValueOf(after), reflect.ValueOf(before)
	for i := range dv.NumField() {
		dv.Field(i).SetInt(av.Field(i).Int() - bv.Field(i).Int())
	}
	return d
}

// window is an hour either side of now: a search window that finds what
// Setup made.
func window() (from, to time.Time) { return time.Now().Add(-time.Hour), time.Now().Add(time.Hour) }
