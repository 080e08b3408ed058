package telcotest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func createAddress(t *testing.T, srv *telcotest.Server, c *telco.Client, line1 string) *telco.Address {
	t.Helper()
	a, err := c.Addresses.Create(testCtx(t), srv.AccountSid, &telco.CreateAddressParams{
		Line1: line1, City: "Sydney", Region: "NSW", PostalCode: "2000", CountryCode: "au", Friendly: "HQ", Reference: "ref-1"})
	require.NoError(t, err)
	return a
}

func TestAddresses_CreateAndDeleteWhileInUse(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	first := createAddress(t, srv, c, "1 Martin Place")
	assert.Regexp(t, `^[A-Z0-9]{32}$`, first.AddressSid)
	assert.Equal(t, srv.AccountSid, first.AccountSid)
	assert.Equal(t, "1 Martin Place", first.Line1)
	assert.Equal(t, "Sydney", first.City)
	assert.Equal(t, "NSW", first.Region)
	assert.Equal(t, "2000", first.PostalCode)
	assert.Equal(t, "AU", first.CountryCode)
	assert.Equal(t, "HQ", first.Friendly)
	assert.Equal(t, "ref-1", first.Reference)
	assert.NotEmpty(t, first.Status)
	second := createAddress(t, srv, c, "2 George St")
	assert.NotEqual(t, first.AddressSid, second.AddressSid)

	srv.AddNumber(srv.PropertySid, "+61299999999")
	_, err := c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{AddressSid: first.AddressSid})
	require.NoError(t, err)

	err = c.Addresses.Delete(ctx, first.AddressSid)
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeAddressCannotBeDeleted)
	assert.Contains(t, ae.Message, "61299999999", "the message names the number that relies on it")

	// Moving the number to the other address frees the first one.
	cfg, err := c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{AddressSid: second.AddressSid})
	require.NoError(t, err)
	require.Equal(t, second.AddressSid, cfg.AddressSid)
	require.NoError(t, c.Addresses.Delete(ctx, first.AddressSid))

	// It is gone: deleting it again, or using it, fails.
	err = c.Addresses.Delete(ctx, first.AddressSid)
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAddressNotFound)
	_, err = c.Numbers.Configure(ctx, "+61299999999", &telco.NumberConfigParams{AddressSid: first.AddressSid})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAddressNotFound)

	// The address in use is still refused.
	err = c.Addresses.Delete(ctx, second.AddressSid)
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAddressCannotBeDeleted)
}

func TestAddresses_RawDeleteAnswersAddressSid(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	a := createAddress(t, srv, srv.Client(), "1 Martin Place")
	r := raw(t, srv, http.MethodDelete, "/v2/Addresses/"+a.AddressSid, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var body struct{ AddressSid string }
	require.NoError(t, json.Unmarshal(r.Body, &body))
	assert.Equal(t, a.AddressSid, body.AddressSid)
}

func TestAddresses_DeleteUnknown400(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	err := srv.Client().Addresses.Delete(testCtx(t), "AD"+strings.Repeat("9", 30))
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAddressNotFound)
}

func TestAddresses_ServiceRejectsBadAddresses(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	for _, tc := range []struct {
		name        string
		p           telco.CreateAddressParams
		code, field string
	}{
		{"missing City", telco.CreateAddressParams{Line1: "1 St", CountryCode: "AU"}, telco.CodeParameterRequired, "City"},
		{"missing Line1", telco.CreateAddressParams{City: "Sydney", CountryCode: "AU"}, telco.CodeParameterRequired, "Line1"},
		{"missing CountryCode", telco.CreateAddressParams{Line1: "1 St", City: "Sydney"}, telco.CodeParameterRequired, "CountryCode"},
		{"four-letter CountryCode", telco.CreateAddressParams{Line1: "1 St", City: "Sydney", CountryCode: "AUST"}, telco.CodeParameterInvalid, "CountryCode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Addresses.Create(testCtx(t), srv.AccountSid, &tc.p)
			ae := requireAPIError(t, err, http.StatusBadRequest, tc.code)
			assert.Equal(t, []string{tc.field}, fieldNames(ae.Fields))
		})
	}
}

// A code of the right shape that ISO 3166-1 does not assign is refused as
// the service refuses it, with COUNTRY_NOT_FOUND on CountryCode; assigned
// codes pass in either case, two letters or three.
func TestAddresses_UnknownCountryRefused(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	for _, cc := range []string{"ZZ", "zz", "XK", "AA", "ZZZ", "AUX", "UK"} {
		t.Run(cc, func(t *testing.T) {
			_, err := c.Addresses.Create(testCtx(t), srv.AccountSid, &telco.CreateAddressParams{
				Line1: "1 St", City: "Nowhere", CountryCode: cc})
			ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeCountryNotFound)
			assert.Equal(t, []string{"CountryCode"}, fieldNames(ae.Fields))
		})
	}
	for _, cc := range []string{"AU", "nz", "AUS", "nzl", "GB", "SS", "CW"} {
		a, err := c.Addresses.Create(testCtx(t), srv.AccountSid, &telco.CreateAddressParams{
			Line1: "1 St", City: "Somewhere", CountryCode: cc})
		require.NoError(t, err, cc)
		assert.Equal(t, strings.ToUpper(cc), a.CountryCode)
	}
	all, err := c.Addresses.List(testCtx(t), srv.AccountSid, nil)
	require.NoError(t, err)
	assert.Len(t, all.Items, 7, "only the assigned codes were stored")
}

func TestAddresses_ListFiltersExactlyAndGetReads(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	hq := createAddress(t, srv, c, "1 Martin Place")
	_, err := c.Addresses.Create(ctx, srv.AccountSid, &telco.CreateAddressParams{
		Line1: "9 Queen St", City: "Melbourne", Region: "VIC", PostalCode: "3000", CountryCode: "AU", Friendly: "Depot"})
	require.NoError(t, err)
	other := srv.AddAccount("", "")
	_, err = srv.ClientFor(other.AccountSid).Addresses.Create(ctx, other.AccountSid, &telco.CreateAddressParams{
		Line1: "2 Martin Place", City: "Sydney", CountryCode: "AU"})
	require.NoError(t, err)

	all, err := c.Addresses.List(ctx, srv.AccountSid, nil)
	require.NoError(t, err)
	assert.Len(t, all.Items, 2, "only the caller's addresses")
	assert.Equal(t, 2, all.TotalCount)

	sydney, err := c.Addresses.List(ctx, srv.AccountSid, &telco.ListAddressesParams{City: "Sydney", CountryCode: "au"})
	require.NoError(t, err)
	require.Len(t, sydney.Items, 1)
	assert.Equal(t, hq.AddressSid, sydney.Items[0].AddressSid)

	none, err := c.Addresses.List(ctx, srv.AccountSid, &telco.ListAddressesParams{City: "sydney"})
	require.NoError(t, err)
	assert.Empty(t, none.Items, "filters are exact matches")

	var sids []string
	for a, err := range c.Addresses.ListAll(ctx, srv.AccountSid, &telco.ListAddressesParams{ListParams: telco.ListParams{Count: 1}}) {
		require.NoError(t, err)
		sids = append(sids, a.AddressSid)
	}
	assert.Len(t, sids, 2)

	got, err := c.Addresses.Get(ctx, hq.AddressSid)
	require.NoError(t, err)
	assert.Equal(t, hq, got)

	_, err = c.Addresses.Get(ctx, "ADNOPE")
	assert.Equal(t, telco.CodeAddressNotFound, telco.ErrorCode(err))
	_, err = srv.ClientFor(other.AccountSid).Addresses.Get(ctx, hq.AddressSid)
	assert.Equal(t, telco.CodeForbidden, telco.ErrorCode(err))
	_, err = c.Addresses.List(ctx, other.AccountSid, nil)
	assert.Equal(t, telco.CodeForbidden, telco.ErrorCode(err))
}
