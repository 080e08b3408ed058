package telco_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// These examples run against telcotest, the SDK's in-memory fake of the
// service, so that their output is checked by go test. Real code creates
// its client with telco.NewClient instead of srv.Client().

func ExampleAPIError() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()

	_, err := client.Properties.Create(context.Background(), &telco.CreatePropertyParams{
		Name:       "Sydney office",
		MainDomain: "sydney.example.com",
		TimeZone:   "Australia/Sydney", // an IANA name: the service wants a Windows ID
	})
	var apiErr *telco.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code)
		for _, f := range apiErr.Fields {
			fmt.Println(f.FieldName, f.Code)
		}
	}
	// ErrorCode finds the code without a type assertion.
	fmt.Println(telco.ErrorCode(err) == telco.CodeUnknownTimeZone)
	// Output:
	// 400 UNKNOWN_TIME_ZONE
	// TimeZone UNKNOWN_TIME_ZONE
	// true
}

func ExampleValidationError() {
	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token")
	if err != nil {
		log.Fatal(err)
	}
	// Client-side validation refuses these before any request is sent.
	_, err = client.Properties.Create(context.Background(), &telco.CreatePropertyParams{Name: "Sydney office"})
	var verr *telco.ValidationError
	if errors.As(err, &verr) {
		fmt.Println(verr.Op)
		for _, f := range verr.Fields {
			fmt.Println(f.FieldName, f.Code)
		}
	}
	// Output:
	// Properties.Create
	// MainDomain PARAMETER_REQUIRED
	// TimeZone PARAMETER_REQUIRED
}

func ExamplePropertiesService_Create() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()

	// The service names time zones by Windows ID; WindowsZone converts
	// the IANA name Go uses.
	tz, ok := telco.WindowsZone("Australia/Sydney")
	if !ok {
		log.Fatal("no Windows time zone for Australia/Sydney")
	}
	prop, err := client.Properties.Create(context.Background(), &telco.CreatePropertyParams{
		Name:       "Sydney office",
		MainDomain: "sydney.example.com",
		TimeZone:   tz,
		SmsEnabled: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	loc, err := telco.LoadWindowsZone(prop.TimeZone)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(prop.Name, "|", prop.TimeZone, "|", loc)
	// Output: Sydney office | AUS Eastern Standard Time | Australia/Sydney
}

func ExampleSipTrunksService_Create() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	p := &telco.CreateSipTrunkParams{
		Name:            "Head office PBX",
		DefaultCallerID: "+61299999999",
		Type:            telco.SipTrunkIPToIP,
		IPAddresses:     []string{"10.1.2.0/24"}, // private: refused before sending
	}
	_, err := client.SipTrunks.Create(ctx, srv.PropertySid, p)
	fmt.Println(telco.ErrorCode(err))

	p.IPAddresses = []string{"20.53.1.0/28", "20.53.2.7"} // a bare address is a /32
	sid, err := client.SipTrunks.Create(ctx, srv.PropertySid, p)
	if err != nil {
		log.Fatal(err)
	}
	trunk, err := client.SipTrunks.GetByProperty(ctx, srv.PropertySid, sid)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(trunk.Name, "|", trunk.Type, "|", trunk.ChannelLimit)
	for _, a := range trunk.SipTrunkIPAddresses {
		fmt.Println(a.IPAddress)
	}
	// Output:
	// PARAMETER_INVALID
	// Head office PBX | IP to IP | 1
	// 20.53.1.0/28
	// 20.53.2.7/32
}

func ExamplePortingService_Submit() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	req, err := client.Porting.Submit(ctx, srv.PropertySid, &telco.PortingRequestParams{
		AuthorisedContactName:   "Jo Citizen",
		AuthorisedContactEmail:  "jo@example.com",
		DaytimeContactNumber:    "+61299999999",
		CurrentCarrier:          "Telstra",
		CurrentCarrierAccountNo: "1234567",
		PreferredPortSchedule:   telco.PortASAP,
		PortingNumbers: []telco.PortingNumberParams{{
			Number:      "+61299999998",
			PortType:    telco.PortTypeCatA,
			PortAddress: "1 George St, Sydney NSW 2000",
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(req.Status, len(req.PortingNumbers))

	// The carriers report progress later; the fake lets a test move it on.
	srv.SetPortingStatus(req.PortingNo, "Completed")
	now := time.Now()
	for r, err := range client.Porting.StatusByPropertyAll(ctx, srv.PropertySid, &telco.PortingStatusParams{
		From: now.Add(-time.Hour),
		To:   now.Add(time.Hour),
	}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.PortingNo == req.PortingNo, r.Status, r.PortingNumbers[0].Number)
	}
	// Output:
	// Submitted 1
	// true Completed +61299999998
}

func ExampleLookupService_NumberDetails() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()

	// Numbers may be local ("0499...") or E.164; E164 is the digits.
	details, err := client.Lookup.NumberDetails(context.Background(), "+61499999999", "0299999999")
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range details {
		fmt.Println(d.E164, d.NumberingArea, d.CurrentCarrier.Name != "")
	}
	// Output:
	// 61499999999 Mobile true
	// 61299999999 Sydney true
}

func Example_errMaybeSent() {
	// A stand-in for the service that fails every request with 503 after
	// reading it: a send may or may not have happened.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"ErrorCode":"SERVICE_UNAVAILABLE","Message":"Try again later"}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token", telco.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.Messages.Send(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", &telco.SendMessageParams{
		To: "+61499999999", Text: "Your code is 4711", ExternalID: "otp-77",
	})
	if errors.Is(err, telco.ErrMaybeSent) {
		// Not retried, so the text is not sent twice. Look for ExternalID
		// otp-77 with Messages.Find before sending again.
		fmt.Println("may have been sent:", telco.ErrorCode(err))
	}
	// Output: may have been sent: SERVICE_UNAVAILABLE
}

func ExampleWindowsZone() {
	for _, iana := range []string{"Australia/Sydney", "America/Indiana/Vevay", "Asia/Kolkata", "Mars/Olympus_Mons"} {
		id, ok := telco.WindowsZone(iana)
		fmt.Printf("%s: %q %v\n", iana, id, ok)
	}
	// Output:
	// Australia/Sydney: "AUS Eastern Standard Time" true
	// America/Indiana/Vevay: "US Eastern Standard Time" true
	// Asia/Kolkata: "India Standard Time" true
	// Mars/Olympus_Mons: "" false
}

func ExampleIANAZone() {
	iana, ok := telco.IANAZone("AUS Eastern Standard Time")
	fmt.Println(iana, ok)
	// Output: Australia/Sydney true
}

func ExampleWindowsZoneForLocation() {
	loc, err := time.LoadLocation("Europe/London")
	if err != nil {
		log.Fatal(err) // no time zone database: import time/tzdata
	}
	id, ok := telco.WindowsZoneForLocation(loc)
	fmt.Println(id, ok)
	id, ok = telco.WindowsZoneForLocation(time.UTC)
	fmt.Println(id, ok)
	// Output:
	// GMT Standard Time true
	// UTC true
}
