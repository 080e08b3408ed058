package openapi_test

// The conformance test: every method of every service, driven through the
// SDK against telcotest, each request and each answer checked against
// telco.yaml by the checker. Each method's valid call is its fixture in
// internal/optest, run on a fake of its own with the resources
// optest.Setup makes (and again without params where the method allows
// that); steps() adds this test's own: other shapes of a call, and
// refusals (400s, a 401, 403s, a retried 503, requests that break a rule
// of the contract, sent with the SDK's validation off). A step names the
// SDK method it covers and the contract operations its requests may use;
// the coverage test then asks that every fixture, every contract operation
// and every operation the fake serves was met. That every SDK method has a
// fixture is internal/optest's test.

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/optest"
	"github.com/telcosdk/telco/telcotest"
)

// Passwords the steps send; the checker hides them in its messages, and
// those of optest.Secrets.
const (
	sipPassword  = "Tr0nk!Secret9"
	weakPassword = "short"
	// Long enough, yet each breaks one rule of its pattern.
	loginNoSpecial = "NoSpecials12345" // none of !@#$%^&*()_+
	sipNoSpecial   = "Tr0nkSecret9"    // no special character
	sipTriple      = "Tr0nk!Secccret9" // ccc: 3 identical in a row
)

// env is what the steps share: the fake, clients on it, and what it was
// seeded with.
type env struct {
	ctx   context.Context
	srv   *telcotest.Server
	c     *telco.Client // validation on, as users run it
	raw   *telco.Client // validation off, so that the fake does the refusing
	wrong *telco.Client // a wrong token: 401
	other *telco.Client // another account: 403 on this account's resources

	prop, number, flow string
	// ids are optest.Setup's resources, newProp a second project; newEnv
	// makes them, newEnvWith does not.
	ids     optest.IDs
	newProp string
}

// step drives one SDK method once.
type step struct {
	// method is the SDK method covered, "Service.Method".
	method string
	// about tells the step from others of its method in failures.
	about string
	// ops are the contract operations its requests may use; default method.
	ops []string
	// status is the status one of its answers must have; default 200.
	status int
	// code is the service error code the call must fail with; "" for none.
	code string
	// badRequest: the request breaks a rule the contract states (sent
	// with client validation off so that the fake refuses it): the
	// checker must flag the request, and the answer must still conform.
	badRequest bool
	// flags, with badRequest, is a text the checker's report on the
	// request must hold: the rule it breaks, and not some other.
	flags string
	run   func(e *env) error
}

// steps are this test's own steps, run in order on one fake.
func steps() []step {
	return []step{
		// Projects.
		{method: "Properties.Create", status: 400, code: telco.CodeUnknownTimeZone, run: func(e *env) error {
			_, err := e.raw.Properties.Create(e.ctx, &telco.CreatePropertyParams{Name: "Mars", MainDomain: "example.com", TimeZone: "Olympus Mons Time"})
			return err
		}},
		{method: "Properties.Get", status: 401, code: "UNAUTHORIZED", run: func(e *env) error {
			_, err := e.wrong.Properties.Get(e.ctx, e.prop)
			return err
		}},
		{method: "Properties.Get", status: 403, code: telco.CodeForbidden, run: func(e *env) error {
			_, err := e.other.Properties.Get(e.ctx, e.prop)
			return err
		}},
		{method: "Properties.Get", status: 503, run: func(e *env) error {
			// A 503, retried: both answers are checked.
			e.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: http.StatusServiceUnavailable, Op: "Properties.Get"})
			_, err := e.c.Properties.Get(e.ctx, e.prop)
			return err
		}},
		{method: "Properties.Update", status: 400, code: telco.CodeUnknownTimeZone, run: func(e *env) error {
			return e.raw.Properties.Update(e.ctx, e.newProp, &telco.UpdatePropertyParams{TimeZone: telco.Ptr("Olympus Mons Time")})
		}},

		// Number blocks.
		{method: "NumberBlocks.Search", status: 400, code: telco.CodeParameterRequired, run: func(e *env) error {
			_, err := e.raw.NumberBlocks.Search(e.ctx, &telco.NumberBlockSearchParams{})
			return err
		}},
		{method: "NumberBlocks.Purchase", status: 400, code: telco.CodeParameterRequired, run: func(e *env) error {
			_, err := e.raw.NumberBlocks.Purchase(e.ctx, e.prop, &telco.PurchaseNumberBlockParams{})
			return err
		}, badRequest: true},
		{method: "NumberBlocks.Configure", run: func(e *env) error {
			_, err := e.c.NumberBlocks.Configure(e.ctx, e.ids.NumberBlockSid, &telco.ConfigureNumberBlockParams{
				RoutingMethod: telco.BlockRoutingFlow, Flow: e.flow})
			return err
		}},
		{method: "NumberBlocks.Configure", status: 400, code: telco.CodeFlowNotFound, run: func(e *env) error {
			_, err := e.c.NumberBlocks.Configure(e.ctx, e.ids.NumberBlockSid, &telco.ConfigureNumberBlockParams{
				RoutingMethod: telco.BlockRoutingFlow, Flow: "cfg-unknown"})
			return err
		}},
		{method: "NumberBlocks.Configure", status: 400, code: telco.CodeParameterRequired, run: func(e *env) error {
			_, err := e.raw.NumberBlocks.Configure(e.ctx, e.ids.NumberBlockSid, &telco.ConfigureNumberBlockParams{RoutingMethod: telco.BlockRoutingApplication})
			return err
		}},

		// Addresses and numbers.
		{method: "Addresses.Create", status: 400, code: telco.CodeParameterRequired, badRequest: true, run: func(e *env) error {
			_, err := e.raw.Addresses.Create(e.ctx, e.srv.AccountSid, &telco.CreateAddressParams{City: "Sydney", CountryCode: "AU"})
			return err
		}},
		{method: "Addresses.Create", status: 400, code: telco.CodeCountryNotFound, run: func(e *env) error {
			_, err := e.c.Addresses.Create(e.ctx, e.srv.AccountSid, &telco.CreateAddressParams{Line1: "1 St", City: "Nowhere", CountryCode: "ZZ"})
			return err
		}},
		{method: "Numbers.Configure", run: func(e *env) error {
			// Emptying fields sends each as "".
			_, err := e.c.Numbers.Configure(e.ctx, e.number, &telco.NumberConfigParams{Recording: telco.RecordingOff,
				Clear: []telco.NumberField{telco.NumberFieldFriendly, telco.NumberFieldWebhookURL, telco.NumberFieldWebhookMethod}})
			return err
		}},
		{method: "Numbers.Configure", status: 400, code: telco.CodeParameterRequired, run: func(e *env) error {
			_, err := e.raw.Numbers.Configure(e.ctx, e.number, &telco.NumberConfigParams{RoutingMethod: telco.RoutingFlow})
			return err
		}},
		{method: "Numbers.Purchase", run: func(e *env) error {
			// With an address, which is then in use: the next step cannot
			// delete it.
			_, err := e.c.Numbers.Purchase(e.ctx, e.prop, &telco.PurchaseNumberParams{Number: "+61299990077", AddressSid: e.ids.AddressSid})
			return err
		}},
		{method: "Addresses.Delete", status: 400, code: telco.CodeAddressCannotBeDeleted, run: func(e *env) error {
			return e.c.Addresses.Delete(e.ctx, e.ids.AddressSid)
		}},
		{method: "Addresses.Get", status: 400, code: telco.CodeAddressNotFound, run: func(e *env) error {
			_, err := e.c.Addresses.Get(e.ctx, "AD0000000000000000000000000NONE")
			return err
		}},
		{method: "Numbers.Configure", run: func(e *env) error {
			// Routing to a flow of the project, by its ConfigId.
			_, err := e.c.Numbers.Configure(e.ctx, e.number, &telco.NumberConfigParams{RoutingMethod: telco.RoutingFlow, Flow: e.flow})
			return err
		}},
		{method: "Numbers.Purchase", run: func(e *env) error {
			_, err := e.c.Numbers.Purchase(e.ctx, e.newProp, &telco.PurchaseNumberParams{Number: "61299990078"})
			return err
		}},
		{method: "Numbers.Purchase", status: 400, code: telco.CodeNumberBelongsToDifferentProperty, run: func(e *env) error {
			_, err := e.c.Numbers.Purchase(e.ctx, e.newProp, &telco.PurchaseNumberParams{Number: "+61299990077"})
			return err
		}},
		{method: "Calls.ListByAccount", run: func(e *env) error {
			page, err := e.c.Calls.ListByAccount(e.ctx, e.srv.AccountSid, nil)
			if err != nil {
				return err
			}
			// The Token cursor: the calls written since.
			_, err = e.c.Calls.ListByAccount(e.ctx, e.srv.AccountSid, &telco.ListCallsParams{Token: page.Token})
			return err
		}},

		// Online logins.
		{method: "OnlineLogins.Create", status: 400, badRequest: true, run: func(e *env) error {
			_, err := e.raw.OnlineLogins.Create(e.ctx, e.prop, &telco.CreateOnlineLoginParams{Email: "joe@example.com",
				Password: weakPassword, FirstName: "Joe", LastName: "Doe", Scopes: telco.Scopes{telco.ScopeReporting}})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a weak password")
			}
			return nil
		}},
		{method: "OnlineLogins.Create", status: 400, badRequest: true, flags: "Password", run: func(e *env) error {
			// 12 characters and more, but none of !@#$%^&*()_+.
			_, err := e.raw.OnlineLogins.Create(e.ctx, e.prop, &telco.CreateOnlineLoginParams{Email: "joe@example.com",
				Password: loginNoSpecial, FirstName: "Joe", LastName: "Doe", Scopes: telco.Scopes{telco.ScopeReporting}})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a password without a special character")
			}
			return nil
		}},
		{method: "OnlineLogins.Update", status: 204, run: func(e *env) error {
			// An empty list removes every permission: sent as [].
			return e.c.OnlineLogins.Update(e.ctx, e.ids.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Permissions: []telco.Permission{}})
		}},
		{method: "OnlineLogins.Update", status: 400, badRequest: true, run: func(e *env) error {
			err := e.raw.OnlineLogins.Update(e.ctx, e.ids.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Password: weakPassword})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a weak password")
			}
			return nil
		}},
		{method: "OnlineLogins.Update", status: 400, badRequest: true, flags: "Password", run: func(e *env) error {
			err := e.raw.OnlineLogins.Update(e.ctx, e.ids.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Password: loginNoSpecial})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a password without a special character")
			}
			return nil
		}},

		// Messages.
		{method: "Messages.Send", status: 400, code: telco.CodeInvalidPhoneNumberFormat, badRequest: true, run: func(e *env) error {
			_, err := e.raw.Messages.Send(e.ctx, e.prop, &telco.SendMessageParams{From: "Acme", To: "0412345678", Text: "hi"})
			return err
		}},
		{method: "Messages.Send", status: 400, code: telco.CodeParameterRequired, badRequest: true, flags: "Text", run: func(e *env) error {
			// Text is required, and an empty one is none.
			_, err := e.raw.Messages.Send(e.ctx, e.prop, &telco.SendMessageParams{From: "Acme", To: "+61499990001"})
			return err
		}},
		{method: "Messages.Send", run: func(e *env) error {
			// A leased sender, with the lease-only parameters.
			_, err := e.c.Messages.Send(e.ctx, e.prop, &telco.SendMessageParams{To: "+61499990002", Text: "Reply YES",
				ForwardToSms: "+61499990003", ForwardFromSms: "Acme", ForwardToEmail: "desk@example.com",
				ForwardFromEmail: "noreply@example.com"})
			return err
		}},
		{method: "Messages.SendBatch", badRequest: true, run: func(e *env) error {
			res, err := e.raw.Messages.SendBatch(e.ctx, e.prop, []telco.SendMessageParams{
				{From: "Acme", To: "+61499990009", Text: "three"},
				{From: "Acme", To: "0412345678", Text: "four"}, // refused by the fake, element by element
			})
			if err == nil && (res[0].Message == nil || res[1].Err == nil) {
				return errors.New("want one accepted and one refused element")
			}
			return err
		}},
		{method: "Messages.SendBatch", badRequest: true, flags: "Text", run: func(e *env) error {
			res, err := e.raw.Messages.SendBatch(e.ctx, e.prop, []telco.SendMessageParams{
				{From: "Acme", To: "+61499990010", Text: "five"},
				{From: "Acme", To: "+61499990011"}, // no Text: refused by the fake, element by element
			})
			if err == nil && (res[0].Message == nil || res[1].Err == nil) {
				return errors.New("want one accepted and one refused element")
			}
			return err
		}},
		{method: "Messages.Find", status: 400, run: func(e *env) error {
			// A window the wrong way round, refused by the fake.
			_, err := e.raw.Messages.Find(e.ctx, e.prop, &telco.FindMessagesParams{DateFrom: time.Now(), DateTo: time.Now().Add(-time.Hour)})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a window the wrong way round")
			}
			return nil
		}},
		{method: "Messages.Get", status: 400, code: "MESSAGE_NOT_FOUND", run: func(e *env) error {
			_, err := e.c.Messages.Get(e.ctx, "MG00000000000000000000000000NONE")
			return err
		}},
		{method: "Messages.SendOnce", ops: []string{"Messages.Send", "Messages.Find"}, run: func(e *env) error {
			// The connection drops after the fake took the message: SendOnce
			// finds it again with Messages.Find.
			e.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultDropAfterRead, Op: "Messages.Send"})
			_, err := e.c.Messages.SendOnce(e.ctx, e.prop, &telco.SendMessageParams{From: "Acme", To: "+61499990005",
				Text: "once", ExternalID: "once-1"})
			return err
		}},

		// SIP trunks.
		{method: "SipTrunks.Create", run: func(e *env) error {
			_, err := e.c.SipTrunks.Create(e.ctx, e.prop, &telco.CreateSipTrunkParams{Name: "Softphones",
				DefaultCallerID: "+61299990000", Type: telco.SipTrunkAuthenticated,
				Credentials: &telco.SipCredentials{Realm: "sip.example.com", Password: sipPassword}})
			return err
		}},
		{method: "SipTrunks.Create", status: 400, run: func(e *env) error {
			_, err := e.raw.SipTrunks.Create(e.ctx, e.prop, &telco.CreateSipTrunkParams{Name: "Bad",
				DefaultCallerID: "+61299990000", Type: telco.SipTrunkIPToIP, IPAddresses: []string{"10.0.0.0/24"}})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a private range")
			}
			return nil
		}},
		{method: "SipTrunks.Create", status: 400, code: telco.CodeParameterRequired, badRequest: true, flags: "SipTrunkIpAddresses", run: func(e *env) error {
			// Type 0 admits by address: SipTrunkIpAddresses is required.
			_, err := e.raw.SipTrunks.Create(e.ctx, e.prop, &telco.CreateSipTrunkParams{Name: "No addresses",
				DefaultCallerID: "+61299990000", Type: telco.SipTrunkIPToIP})
			return err
		}},
		{method: "SipTrunks.Create", status: 400, code: telco.CodeParameterRequired, badRequest: true, flags: "SipTrunkCredentials", run: func(e *env) error {
			// Type 1 authenticates: SipTrunkCredentials is required.
			_, err := e.raw.SipTrunks.Create(e.ctx, e.prop, &telco.CreateSipTrunkParams{Name: "No credentials",
				DefaultCallerID: "+61299990000", Type: telco.SipTrunkAuthenticated})
			return err
		}},
		{method: "SipTrunks.Create", status: 400, badRequest: true, flags: "Password", run: func(e *env) error {
			// Long enough, without a special character.
			_, err := e.raw.SipTrunks.Create(e.ctx, e.prop, &telco.CreateSipTrunkParams{Name: "Weak", DefaultCallerID: "+61299990000",
				Type: telco.SipTrunkAuthenticated, Credentials: &telco.SipCredentials{Realm: "sip.example.com", Password: sipNoSpecial}})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a password without a special character")
			}
			return nil
		}},
		{method: "SipTrunks.Create", status: 400, badRequest: true, flags: "Password", run: func(e *env) error {
			// Every class, but the same character 3 times in a row.
			_, err := e.raw.SipTrunks.Create(e.ctx, e.prop, &telco.CreateSipTrunkParams{Name: "Weak", DefaultCallerID: "+61299990000",
				Type: telco.SipTrunkAuthenticated, Credentials: &telco.SipCredentials{Realm: "sip.example.com", Password: sipTriple}})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a password with 3 identical characters in a row")
			}
			return nil
		}},
		{method: "SipTrunks.Update", status: 400, badRequest: true, flags: "Password", run: func(e *env) error {
			err := e.raw.SipTrunks.Update(e.ctx, e.prop, e.ids.SipTrunkSid, &telco.UpdateSipTrunkParams{
				Credentials: &telco.SipCredentials{Password: sipTriple}})
			var ae *telco.APIError
			if !errors.As(err, &ae) {
				return errors.New("want an *APIError for a password with 3 identical characters in a row")
			}
			return nil
		}},
		{method: "SipTrunks.UpdateByAccount", status: 403, code: telco.CodeForbidden, run: func(e *env) error {
			return e.other.SipTrunks.UpdateByAccount(e.ctx, e.srv.AccountSid, e.ids.SipTrunkSid, &telco.UpdateSipTrunkParams{Name: telco.Ptr("Taken")})
		}},
		{method: "SipTrunks.GetByAccount", status: 403, code: telco.CodeForbidden, run: func(e *env) error {
			_, err := e.other.SipTrunks.GetByAccount(e.ctx, e.srv.AccountSid, e.ids.SipTrunkSid)
			return err
		}},

		// Porting.
		{method: "Porting.Submit", status: 400, code: telco.CodeParameterRequired, badRequest: true, run: func(e *env) error {
			_, err := e.raw.Porting.Submit(e.ctx, e.prop, &telco.PortingRequestParams{AuthorisedContactName: "Jane Doe",
				PreferredPortSchedule: telco.PortASAP})
			return err
		}},
		{method: "Porting.Submit", run: func(e *env) error {
			// ASAP needs no date, and a number without an incoming action
			// type needs neither IncomingActionId nor IncomingAnswerPoint.
			_, err := e.c.Porting.Submit(e.ctx, e.prop, portingParams(telco.PortASAP, time.Time{},
				telco.PortingNumberParams{Number: "+61299998890", PortType: telco.PortTypeCatA, PortAddress: "1 George St Sydney"}))
			return err
		}},
		{method: "Porting.Submit", status: 400, code: telco.CodeParameterRequired, badRequest: true, flags: "PreferredPortDate", run: func(e *env) error {
			// Date needs PreferredPortDate.
			_, err := e.raw.Porting.Submit(e.ctx, e.prop, portingParams(telco.PortOnDate, time.Time{}))
			return err
		}},
		{method: "Porting.Submit", status: 400, code: telco.CodeParameterRequired, badRequest: true, flags: "IncomingActionId", run: func(e *env) error {
			// A number routed to a Flow needs IncomingActionId.
			_, err := e.raw.Porting.Submit(e.ctx, e.prop, portingParams(telco.PortASAP, time.Time{},
				telco.PortingNumberParams{Number: "+61299998891", PortType: telco.PortTypeCatA, PortAddress: "1 George St Sydney",
					IncomingActionType: telco.IncomingFlow}))
			return err
		}},
		{method: "Porting.Submit", status: 400, code: telco.CodeParameterRequired, badRequest: true, flags: "IncomingAnswerPoint", run: func(e *env) error {
			// A number routed to an Answering Point needs IncomingAnswerPoint.
			_, err := e.raw.Porting.Submit(e.ctx, e.prop, portingParams(telco.PortASAP, time.Time{},
				telco.PortingNumberParams{Number: "+61299998892", PortType: telco.PortTypeCatA, PortAddress: "1 George St Sydney",
					IncomingActionType: telco.IncomingAnsweringPoint}))
			return err
		}},
	}
}

// portingParams is a porting request with every required field, the
// schedule and date given, and numbers.
func portingParams(schedule telco.PortSchedule, date time.Time, numbers ...telco.PortingNumberParams) *telco.PortingRequestParams {
	return &telco.PortingRequestParams{AuthorisedContactName: "Jane Doe", AuthorisedContactEmail: "jane@example.com",
		DaytimeContactNumber: "+61299990000", CurrentCarrier: "Telstra", CurrentCarrierAccountNo: "12345",
		PreferredPortSchedule: schedule, PreferredPortDate: date, PortingNumbers: numbers}
}

// newEnv is newEnvWith sending through a transport of its own, with
// optest.Setup's resources and a second project made without a request.
func newEnv(t *testing.T, doc *openapi3.T) (*env, *checker) {
	e, chk := newEnvWith(t, doc, http.DefaultTransport.(*http.Transport).Clone())
	var err error
	e.ids, err = optest.Setup(e.srv)
	require.NoError(t, err, "setup")
	e.newProp = e.srv.SeedProperties(1)[0]
	return e, chk
}

// newEnvWith starts the fake with a second account, seeds what the
// searches find, and builds the clients, all sending through one checker
// of doc, the requests sent through next.
func newEnvWith(t *testing.T, doc *openapi3.T, next http.RoundTripper) (*env, *checker) {
	srv := telcotest.NewTestServer(t)
	other := srv.AddAccount("", "")
	chk := newChecker(t, doc, next, append(optest.Secrets(),
		srv.Token, other.Token, "not-the-token", sipPassword, weakPassword, loginNoSpecial, sipNoSpecial, sipTriple)...)
	hc := &http.Client{Transport: chk}
	t.Cleanup(hc.CloseIdleConnections)

	e := &env{ctx: context.Background(), srv: srv, prop: srv.PropertySid, number: "61299990000"}
	opts := []telco.Option{telco.WithHTTPClient(hc),
		telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: time.Millisecond, MaxRounds: 3})}
	e.c = srv.Client(opts...)
	e.raw = srv.Client(append(opts, telco.WithClientValidation(false))...)
	e.other = srv.ClientFor(other.AccountSid, opts...)
	var err error
	e.wrong, err = telco.NewClient(srv.AccountSid, "not-the-token", append(opts, telco.WithBaseURL(srv.URL))...)
	require.NoError(t, err)

	srv.AddNumber(e.prop, "+"+e.number)
	e.flow = srv.AddFlow(e.prop, telco.Flow{Name: "After hours", Type: "IVR"}).ConfigID
	srv.AddCall(e.prop, telco.Call{Duration: 42, From: "+61499990000", To: "+61299990000", Endpoint: "+61299990001",
		CallerCity: "Sydney", CallerRegion: "NSW", CallerCountryCode: "AU", AttributionSource: "google", AttributionMedium: "cpc",
		AttributionCampaign: "spring", AttributionContent: "ad1", PromptsKeys: "1,2"})
	modified := telco.DateTime{Time: time.Date(2024, 3, 1, 9, 30, 0, 0, time.FixedZone("", 10*3600))}
	srv.AddNumberBlock(e.prop, telco.NumberBlock{NumberPattern: "612999900XX", Name: "Sydney CBD", FriendlyName: "Spring",
		SipTrunkID: telco.Ptr(7), SipTrunkName: "Office PBX", RoutingMethod: "endpoint", TerminationNumber: "+61299990001",
		Active: true, BlockSize: 100, SupportsVoice: true, SupportsSms: true, Modified: &modified, SupplierName: "Carrier",
		AnalyticsDynamicNumbers: []telco.AnalyticsNumber{{ID: 1, PublicNumber: "61299990050", RoutingNumber: "61299990001",
			Active: true, CountryCode: "AU", GeoCountry: "Australia", GeoRegion: "NSW", GeoCity: "Sydney", SupportsVoice: true}}})
	srv.AddNumberBlock(e.prop, telco.NumberBlock{NumberPattern: "613999900XX", Name: "Melbourne", BlockSize: 100, SupportsVoice: true})
	return e, chk
}

// pendingOps are operations telco.yaml describes, from the service's
// documentation pages, whose SDK methods have not landed yet: nothing can
// drive them. The coverage test fails when one of them lands undriven.
// Empty while the SDK has a method for every operation.
var pendingOps = map[string]bool{}

// covered is what the conformance run met, for the coverage test.
type covered struct {
	methods map[string]bool // SDK methods driven
	ops     map[string]bool // contract operations answered 2xx
}

func TestConformance(t *testing.T) {
	cov := runConformance(t)
	require.NotEmpty(t, cov.ops)

	t.Run("every fixture is driven", func(t *testing.T) {
		for _, f := range optest.Fixtures() {
			assert.True(t, cov.methods[f.Name], "%s: its fixture's call was not met", f.Name)
		}
	})
	t.Run("every contract operation is answered 2xx", func(t *testing.T) {
		for _, op := range contractOps(t) {
			if !pendingOps[op] {
				assert.True(t, cov.ops[op], "no step met %s with a 2xx answer", op)
			}
		}
	})
	t.Run("pending operations are not in the SDK yet", func(t *testing.T) {
		// Once a pending operation's method lands, it must be driven:
		// remove it from pendingOps and give it a fixture.
		ops := contractOps(t)
		for _, f := range optest.Fixtures() {
			assert.False(t, pendingOps[f.Name], "%s is in the SDK now: remove it from pendingOps", f.Name)
		}
		for op := range pendingOps {
			assert.Contains(t, ops, op, "pendingOps names %s, which telco.yaml does not describe", op)
		}
	})
	t.Run("every operation of the fake is in the contract", func(t *testing.T) {
		ops := contractOps(t)
		for _, op := range telcotest.Ops() {
			assert.Contains(t, ops, op, "telcotest serves %s, which telco.yaml does not describe", op)
		}
	})
	t.Run("every operation a method uses is in the contract", func(t *testing.T) {
		// A method that is an operation uses itself alone; one composed of
		// others (SendOnce) uses those (internal/optest's test).
		ops := contractOps(t)
		for _, f := range optest.Fixtures() {
			for _, op := range f.Ops {
				assert.Contains(t, ops, op, "%s uses %s, which is no operationId of telco.yaml", f.Name, op)
			}
		}
	})
}

// noContent are the methods whose success the fake answers 204.
var noContent = map[string]bool{"Properties.Update": true, "OnlineLogins.Update": true, "SipTrunks.Update": true,
	"SipTrunks.UpdateByAccount": true}

// runConformance runs each fixture's valid call on a fake of its own
// (again without params where the method allows that), checking what it
// stored, then this test's own steps in order on one fake.
func runConformance(t *testing.T) covered {
	doc := loadContract(t)
	strict(doc)
	cov := covered{methods: map[string]bool{}, ops: map[string]bool{}}
	i := 0
	for _, f := range optest.Fixtures() {
		variants := []bool{false}
		if !f.NilRefused && !f.Paramless {
			variants = append(variants, true)
		}
		for _, nilParams := range variants {
			e, chk := newEnv(t, doc)
			s := step{method: f.Name, ops: f.Ops, run: func(e *env) error { return f.Call(e.ctx, e.c, e.ids, nilParams) }}
			if noContent[f.Name] {
				s.status = http.StatusNoContent
			}
			if nilParams {
				s.about = "without params"
			}
			before := e.srv.Counts()
			runStep(t, e, chk, i, s, cov)
			if !nilParams {
				e.srv.WaitIdle()
				assert.Equal(t, f.Effect, optest.Delta(e.srv.Counts(), before), "step %d %s: what it stored", i, f.Name)
				if f.Check != nil {
					assert.NoError(t, f.Check(e.ctx, e.srv, e.ids), "step %d %s", i, f.Name)
				}
			}
			i++
		}
	}
	e, chk := newEnv(t, doc)
	for _, s := range steps() {
		runStep(t, e, chk, i, s, cov)
		i++
	}
	return cov
}

// runStep runs step i on e and checks what it sent and got, recording in
// cov what it met.
func runStep(t *testing.T, e *env, chk *checker, i int, s step, cov covered) {
	t.Helper()
	want := s.status
	if want == 0 {
		want = http.StatusOK
	}
	ops := s.ops
	if len(ops) == 0 {
		ops = []string{s.method}
	}
	err := s.run(e)
	seen := chk.take()
	name := s.method
	if s.about != "" {
		name += " " + s.about
	}
	if want >= 300 {
		name += " answered " + http.StatusText(want)
	}
	switch {
	case s.code != "":
		if assert.Error(t, err, "step %d %s", i, name) {
			assert.Equal(t, s.code, telco.ErrorCode(err), "step %d %s", i, name)
		}
	case want < 300 || want >= 500:
		assert.NoError(t, err, "step %d %s", i, name)
	}
	if !assert.NotEmpty(t, seen, "step %d %s sent no request", i, name) {
		return
	}
	gotStatus := false
	for _, ex := range seen {
		if s.badRequest {
			assert.NotEmpty(t, ex.request, "step %d %s: %s breaks a rule of the contract, which did not notice", i, name, ex)
			if s.flags != "" {
				assert.Contains(t, strings.Join(ex.request, "\n"), s.flags, "step %d %s: %s breaks the rule on %s", i, name, ex, s.flags)
			}
		} else {
			assert.Empty(t, ex.request, "step %d %s: the request %s breaks the contract", i, name, ex)
		}
		assert.Empty(t, ex.answer, "step %d %s: the answer to %s breaks the contract", i, name, ex)
		assert.Contains(t, ops, ex.op, "step %d %s: %s is not an operation of this method", i, name, ex)
		if ex.status == want {
			gotStatus = true
		}
		if ex.status >= 200 && ex.status < 300 && len(ex.request)+len(ex.answer) == 0 {
			cov.ops[ex.op] = true
		}
	}
	assert.True(t, gotStatus, "step %d %s: no answer with status %d in %v", i, name, want, seen)
	cov.methods[s.method] = true
}

// contractOps lists the contract's operationIds.
func contractOps(t *testing.T) []string {
	var out []string
	for _, item := range loadContract(t).Paths.Map() {
		for _, op := range item.Operations() {
			out = append(out, op.OperationID)
		}
	}
	sort.Strings(out)
	return out
}
