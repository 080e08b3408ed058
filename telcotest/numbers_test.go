package telcotest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

func TestNumbers_ConfigureUnknownNumber400(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	_, err := srv.Client().Numbers.Configure(testCtx(t), "+61299999999", &telco.NumberConfigParams{Friendly: "x"})
	requireAPIError(t, err, http.StatusBadRequest, "NUMBER_NOT_FOUND")
}

func TestNumbers_ConfigureMergesAndReturnsConfig(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	srv.AddNumber(srv.PropertySid, "+61299999999")
	addr := createAddress(t, srv, c, "1 Martin Place")

	cfg, err := c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{
		Friendly: "Main line", AddressSid: addr.AddressSid, AttributionSource: "google",
		RoutingMethod: telco.RoutingEndpoint, EndpointNumber: "+61400000000", Recording: telco.RecordingCall,
		WebhookURL: "https://hooks.example/sms", WebhookMethod: "post",
	})
	require.NoError(t, err)
	assert.Equal(t, "61299999999", cfg.Number, "digits without +")
	assert.Equal(t, srv.AccountSid, cfg.AccountSid)
	assert.Equal(t, srv.PropertySid, cfg.PropertySid)
	assert.Equal(t, "Main line", cfg.Friendly)
	assert.Equal(t, addr.AddressSid, cfg.AddressSid)
	assert.Equal(t, "google", cfg.AttributionSource)
	assert.Equal(t, telco.RoutingEndpoint, cfg.RoutingMethod)
	assert.Equal(t, "+61400000000", cfg.EndpointNumber)
	assert.Equal(t, telco.RecordingCall, cfg.Recording)
	assert.Equal(t, "https://hooks.example/sms", cfg.WebhookURL)
	assert.Equal(t, "POST", cfg.WebhookMethod, "sent in upper case")

	// Without the +, later fields join the earlier ones.
	srv.AddFlow(srv.PropertySid, telco.Flow{ConfigID: "FLOW-1", Name: "Reception"}) // a flow of the number's project
	cfg2, err := c.Numbers.Configure(ctx, "61299999999", &telco.NumberConfigParams{
		AttributionMedium: "cpc", RoutingMethod: telco.RoutingFlow, Flow: "FLOW-1", SendSmsTo: "+61400000001"})
	require.NoError(t, err)
	want := *cfg
	want.AttributionMedium, want.RoutingMethod, want.Flow, want.SendSmsTo = "cpc", telco.RoutingFlow, "FLOW-1", "+61400000001"
	assert.Equal(t, want, *cfg2)

	// No change reads the configuration back.
	cfg3, err := c.Numbers.Configure(ctx, "+61299999999", nil)
	require.NoError(t, err)
	assert.Equal(t, want, *cfg3)
}

func TestNumbers_AddNumberDefaults(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.AddNumber(srv.PropertySid, "61298765432") // without +
	cfg, err := srv.Client().Numbers.Configure(testCtx(t), "+61298765432", nil)
	require.NoError(t, err)
	assert.Equal(t, "61298765432", cfg.Number)
	assert.Equal(t, telco.RoutingEndpoint, cfg.RoutingMethod)
	assert.Equal(t, telco.RecordingOff, cfg.Recording)
	assert.Empty(t, cfg.AddressSid)
}

func TestNumbers_ConfigureUnknownAddress400(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	srv.AddNumber(srv.PropertySid, "+61299999999")
	_, err := c.Numbers.Configure(testCtx(t), "+61299999999", &telco.NumberConfigParams{Friendly: "x", AddressSid: "AD" + strings.Repeat("0", 30)})
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeAddressNotFound)
	assert.Equal(t, []string{"AddressSid"}, fieldNames(ae.Fields))

	cfg, err := c.Numbers.Configure(testCtx(t), "+61299999999", nil)
	require.NoError(t, err)
	assert.Empty(t, cfg.Friendly, "a refused configuration changes nothing")
}

func TestNumbers_ServiceRejectsBadConfigs(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	srv.AddNumber(srv.PropertySid, "+61299999999")
	for _, tc := range []struct {
		name, number string
		p            telco.NumberConfigParams
		code, field  string
	}{
		{"number in local form", "0299999999", telco.NumberConfigParams{}, telco.CodeInvalidPhoneNumberFormat, "Number"},
		{"number with letters", "6129999abcd", telco.NumberConfigParams{}, telco.CodeInvalidPhoneNumberFormat, "Number"},
		{"endpoint routing without endpoint", "61299999999", telco.NumberConfigParams{RoutingMethod: telco.RoutingEndpoint}, telco.CodeParameterRequired, "EndpointNumber"},
		{"unknown recording", "61299999999", telco.NumberConfigParams{Recording: "Sometimes"}, telco.CodeParameterInvalid, "Recording"},
		{"endpoint not E.164", "61299999999", telco.NumberConfigParams{EndpointNumber: "0400000000"}, telco.CodeInvalidPhoneNumberFormat, "EndpointNumber"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Numbers.Configure(testCtx(t), tc.number, &tc.p)
			ae := requireAPIError(t, err, http.StatusBadRequest, tc.code)
			assert.Contains(t, fieldNames(ae.Fields), tc.field)
		})
	}
}

func TestLookup_StableAndInOrder(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	numbers := []string{"+61299999999", "0412345678", "+61398765432", "+61400000001", "0299999999"}
	first, err := c.Lookup.NumberDetails(ctx, numbers...)
	require.NoError(t, err)
	require.Len(t, first, len(numbers))
	assert.Equal(t, int64(61299999999), first[0].E164)
	assert.Equal(t, int64(61412345678), first[1].E164, "local 04... is the mobile 614...")
	assert.Equal(t, int64(61398765432), first[2].E164)
	assert.Equal(t, int64(61400000001), first[3].E164)
	assert.Equal(t, int64(61299999999), first[4].E164, "local 02... is 612...")
	assert.Equal(t, first[0], first[4], "the same number in both forms gets the same answer")
	for _, d := range first {
		assert.NotEmpty(t, d.AssignedCarrier.Name)
		assert.NotEmpty(t, d.CurrentCarrier.Name)
		assert.NotEqual(t, -1, d.AssignedCarrier.CAC)
		assert.NotEmpty(t, d.NumberingArea)
	}

	// A second call, in another order, on another server, says the same.
	again, err := newServer(t).Client().Lookup.NumberDetails(ctx, numbers[3], numbers[2], numbers[1], numbers[0])
	require.NoError(t, err)
	require.Len(t, again, 4)
	assert.Equal(t, first[3], again[0])
	assert.Equal(t, first[2], again[1])
	assert.Equal(t, first[1], again[2])
	assert.Equal(t, first[0], again[3])
}

func TestLookup_150NumbersInTwoRequests(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ct := newCountingTransport(t)
	c := srv.Client(telco.WithHTTPClient(&http.Client{Transport: ct}))
	numbers := make([]string, 150)
	for i := range numbers {
		numbers[i] = "+614000" + fmt.Sprintf("%05d", i)
	}
	details, err := c.Lookup.NumberDetails(testCtx(t), numbers...)
	require.NoError(t, err)
	require.Len(t, details, 150)
	for i, d := range details {
		want, _ := strconv.ParseInt(strings.TrimPrefix(numbers[i], "+"), 10, 64)
		assert.Equal(t, want, d.E164, "result %d", i)
	}
	assert.Equal(t, 2, ct.count())
}

func TestLookup_ServiceRejectsBadNumbers(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	_, err := c.Lookup.NumberDetails(testCtx(t), "abc")
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeInvalidPhoneNumberFormat)
	assert.Equal(t, []string{"Numbers[0]"}, fieldNames(ae.Fields))

	_, err = c.Lookup.NumberDetails(testCtx(t), "+61299999999", "+0")
	ae = requireAPIError(t, err, http.StatusBadRequest, telco.CodeInvalidPhoneNumberFormat)
	assert.Equal(t, []string{"Numbers[1]"}, fieldNames(ae.Fields))

	r := raw(t, srv, http.MethodGet, "/v2/Numbers/Details", "")
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, telco.CodeParameterRequired, errorBody(t, r).ResponseStatus.ErrorCode)
}

// "+61..., 0299..." with spaces after the commas is a list a person
// writes; each number is trimmed.
func TestLookup_SpacesAfterCommas(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := raw(t, srv, http.MethodGet, "/v2/Numbers/Details?Numbers="+url.QueryEscape("+61299999999, 0412345678 ,+61400000001"), "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var body struct{ Numbers []telco.NumberDetail }
	require.NoError(t, json.Unmarshal(r.Body, &body))
	require.Len(t, body.Numbers, 3)
	assert.Equal(t, int64(61412345678), body.Numbers[1].E164)
}

func TestNumbers_ConfigureClearEmptiesFields(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	srv.AddNumber(srv.PropertySid, "+61299999999")
	addr := createAddress(t, srv, c, "1 Martin Place")
	_, err := c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{
		Friendly: "Main line", AddressSid: addr.AddressSid, SendSmsTo: "+61400000001",
		WebhookURL: "https://hooks.example/sms", WebhookMethod: "POST"})
	require.NoError(t, err)
	require.Error(t, c.Addresses.Delete(ctx, addr.AddressSid), "the number holds the address")

	cfg, err := c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{Clear: []telco.NumberField{
		telco.NumberFieldAddressSid, telco.NumberFieldSendSmsTo, telco.NumberFieldWebhookURL, telco.NumberFieldWebhookMethod}})
	require.NoError(t, err)
	assert.Empty(t, cfg.AddressSid)
	assert.Empty(t, cfg.SendSmsTo)
	assert.Empty(t, cfg.WebhookURL)
	assert.Empty(t, cfg.WebhookMethod)
	assert.Equal(t, "Main line", cfg.Friendly, "what is not cleared stays")
	assert.Equal(t, telco.RoutingEndpoint, cfg.RoutingMethod)
	require.NoError(t, c.Addresses.Delete(ctx, addr.AddressSid), "a detached address can be deleted")
}

// A purchase is Active when an address registers the number (given, or
// the account's first in the number's country) and Pending otherwise; the
// number is then listed and read like any other.
func TestNumbers_PurchaseActiveOrPendingByAddress(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)

	pending, err := c.Numbers.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberParams{Number: "+61299990001"})
	require.NoError(t, err)
	assert.Equal(t, &telco.NumberPurchase{Number: "+61299990001", Status: telco.NumberPending}, pending,
		"no address on the account")

	nz, err := c.Addresses.Create(ctx, srv.AccountSid, &telco.CreateAddressParams{Line1: "1 Queen St", City: "Auckland", CountryCode: "NZ"})
	require.NoError(t, err)
	still, err := c.Numbers.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberParams{Number: "61299990002"})
	require.NoError(t, err)
	assert.Equal(t, telco.NumberPending, still.Status, "an NZ address does not suit an AU number")

	au, err := c.Addresses.Create(ctx, srv.AccountSid, &telco.CreateAddressParams{Line1: "1 Martin Pl", City: "Sydney", CountryCode: "AU"})
	require.NoError(t, err)
	auto, err := c.Numbers.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberParams{Number: "+61299990003"})
	require.NoError(t, err)
	assert.Equal(t, telco.NumberActive, auto.Status, "the account's AU address was assigned")
	n, err := c.Numbers.Get(ctx, "+61299990003")
	require.NoError(t, err)
	assert.Equal(t, au.AddressSid, n.AddressSid)
	assert.Equal(t, telco.NumberLocal, n.Type)
	assert.Equal(t, "AU", n.CountryCode)
	assert.Equal(t, srv.PropertySid, n.PropertySid)
	assert.Empty(t, n.Extra, "the fake sends only the typed fields")

	given, err := c.Numbers.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberParams{Number: "+611800990004", AddressSid: nz.AddressSid})
	require.NoError(t, err)
	assert.Equal(t, telco.NumberActive, given.Status)

	// The address now registers numbers, so it cannot be deleted.
	err = c.Addresses.Delete(ctx, au.AddressSid)
	assert.Equal(t, telco.CodeAddressCannotBeDeleted, telco.ErrorCode(err))

	_, err = c.Numbers.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberParams{Number: "+61299990005", AddressSid: "ADNOPE"})
	assert.Equal(t, telco.CodeAddressNotFound, telco.ErrorCode(err))
	_, err = c.Numbers.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberParams{Number: "+61299990001"})
	assert.Equal(t, telco.CodeNumberAlreadyPurchased, telco.ErrorCode(err))
	other, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "B", MainDomain: "b.example", TimeZone: "UTC"})
	require.NoError(t, err)
	_, err = c.Numbers.Purchase(ctx, other.PropertySid, &telco.PurchaseNumberParams{Number: "+61299990001"})
	assert.Equal(t, telco.CodeNumberBelongsToDifferentProperty, telco.ErrorCode(err))

	// Validation off: the fake applies the same rule.
	_, err = srv.Client(telco.WithClientValidation(false)).Numbers.Purchase(ctx, srv.PropertySid,
		&telco.PurchaseNumberParams{Number: "0299990006"})
	assert.Equal(t, telco.CodeInvalidPhoneNumberFormat, telco.ErrorCode(err))
}

func TestNumbers_ListFiltersByTypeAndCapability(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	srv.AddNumber(srv.PropertySid, "+61299990001")  // Local: Voice, SMS
	srv.AddNumber(srv.PropertySid, "+611800990002") // Toll-Free: Voice
	srv.AddNumber(srv.PropertySid, "+61412345678")  // National: Voice, SMS
	other, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "B", MainDomain: "b.example", TimeZone: "UTC"})
	require.NoError(t, err)
	srv.AddNumber(other.PropertySid, "+61299990009")

	numbers := func(p *telco.Page[telco.Number], err error) []string {
		t.Helper()
		require.NoError(t, err)
		var out []string
		for _, n := range p.Items {
			out = append(out, n.Number)
		}
		return out
	}
	assert.Equal(t, []string{"611800990002", "61299990001", "61412345678"},
		numbers(c.Numbers.ListByProperty(ctx, srv.PropertySid, nil)))
	assert.Equal(t, []string{"611800990002", "61299990001", "61299990009", "61412345678"},
		numbers(c.Numbers.ListByAccount(ctx, srv.AccountSid, nil)))
	assert.Equal(t, []string{"611800990002", "61299990001"}, numbers(c.Numbers.ListByProperty(ctx, srv.PropertySid,
		&telco.ListNumbersParams{Types: []telco.NumberType{telco.NumberLocal, telco.NumberTollFree}})))
	assert.Equal(t, []string{"61299990001", "61299990009", "61412345678"}, numbers(c.Numbers.ListByAccount(ctx, srv.AccountSid,
		&telco.ListNumbersParams{Capabilities: []telco.NumberCapability{telco.CapabilityVoice, telco.CapabilitySMS}})))
	assert.Empty(t, numbers(c.Numbers.ListByAccount(ctx, srv.AccountSid,
		&telco.ListNumbersParams{Capabilities: []telco.NumberCapability{telco.CapabilityMMS}})))

	var all []string
	for n, err := range c.Numbers.ListByAccountAll(ctx, srv.AccountSid, &telco.ListNumbersParams{ListParams: telco.ListParams{Count: 3}}) {
		require.NoError(t, err)
		all = append(all, n.Number)
	}
	assert.Len(t, all, 4)

	// The fake applies the rules the client does, with validation off.
	raw := srv.Client(telco.WithClientValidation(false))
	_, err = raw.Numbers.ListByProperty(ctx, srv.PropertySid, &telco.ListNumbersParams{Types: []telco.NumberType{"Mobile"}})
	assert.Equal(t, telco.CodeParameterInvalid, telco.ErrorCode(err))
	_, err = raw.Numbers.ListByProperty(ctx, srv.PropertySid, &telco.ListNumbersParams{ListParams: telco.ListParams{Count: 500}})
	assert.Equal(t, telco.CodeParameterInvalid, telco.ErrorCode(err))

	_, err = c.Numbers.Get(ctx, "+61299990999")
	assert.Equal(t, "NUMBER_NOT_FOUND", telco.ErrorCode(err))
	stranger := srv.AddAccount("", "")
	_, err = srv.ClientFor(stranger.AccountSid).Numbers.Get(ctx, "+61299990001")
	assert.Equal(t, telco.CodeForbidden, telco.ErrorCode(err))
}

// Australia's toll-free numbers start 1800 or 1802: the fake's numbering
// plan types both as toll-free, voice only.
func TestNumbers_1800And1802AreTollFree(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	for _, n := range []string{"+611800990002", "+611802990003"} {
		srv.AddNumber(srv.PropertySid, n)
		got, err := c.Numbers.Get(testCtx(t), n)
		require.NoError(t, err)
		assert.Equal(t, telco.NumberTollFree, got.Type, n)
		assert.Equal(t, telco.NumberCapabilities{telco.CapabilityVoice}, got.Capabilities, n)
	}
}

// The fake reads Numbers.Configure by the interface document's names, not
// by the SDK's: Attribution_Source is the wire's name, AttributionSource
// only the Go field's, which the service would not know, so a client
// that sent it would see its attribution left unset. Names are taken in
// any case, as the fake reads every body.
func TestNumbers_ConfigureReadsTheWiresNames(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.AddNumber(srv.PropertySid, "+61255550002")
	path := "/v2/Numbers/61255550002"
	r := raw(t, srv, http.MethodPost, path, `{"AttributionSource":"google","AttributionMedium":"cpc","Friendly":"Desk"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var n telco.NumberConfig
	require.NoError(t, json.Unmarshal(r.Body, &n))
	assert.Equal(t, "Desk", n.Friendly)
	assert.Empty(t, n.AttributionSource, "AttributionSource is no wire name")
	assert.Empty(t, n.AttributionMedium, "AttributionMedium is no wire name")

	r = raw(t, srv, http.MethodPost, path, `{"Attribution_Source":"google","attribution_medium":"cpc","webhookurl":"https://h.example/in","WEBHOOKMETHOD":"get"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.NoError(t, json.Unmarshal(r.Body, &n))
	assert.Equal(t, "google", n.AttributionSource)
	assert.Equal(t, "cpc", n.AttributionMedium)
	assert.Equal(t, "https://h.example/in", n.WebhookURL)
	assert.Equal(t, "GET", n.WebhookMethod)
	assert.Equal(t, "Desk", n.Friendly, "a field not given is left as it was")

	r = raw(t, srv, http.MethodPost, path, `{"Friendly":7}`)
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, "SerializationException", errorBody(t, r).ResponseStatus.ErrorCode, "a number is no name")
}
