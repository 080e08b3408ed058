package telco

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	addressesCreatePath = "/v2/Accounts/" + testSid + "/Addresses"
	addressTestSid      = "ADKQZMNRTWPLXHFGBJCVYESUDOAIQWER"
	addressDeletePath   = "/v2/Addresses/" + addressTestSid
)

// addressFastRetries retries quickly so the retry tests stay fast.
var addressFastRetries = RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}

var addressSydney = Address{
	AddressSid:  addressTestSid,
	AccountSid:  testSid,
	Friendly:    "Sydney office",
	Reference:   "SYD-01",
	Line1:       "Level 12, 1 Example Street",
	Line2:       "Suite 4",
	City:        "Sydney",
	Region:      "NSW",
	CountryCode: "AU",
	PostalCode:  "2000",
	Status:      "Approved",
}

func addressValidParams() CreateAddressParams {
	return CreateAddressParams{Line1: "Level 12, 1 Example Street", City: "Sydney", CountryCode: "AU"}
}

// addressStatusSequence answers each request with the next status of
// statuses (the last one repeating), with body for a 2xx and a service
// error otherwise, and counts the requests.
func addressStatusSequence(mt *httpmock.MockTransport, method, path string, body string, statuses ...int) *atomic.Int32 {
	var n atomic.Int32
	mt.RegisterResponder(method, testBase+path, func(r *http.Request) (*http.Response, error) {
		i := int(n.Add(1)) - 1
		st := statuses[min(i, len(statuses)-1)]
		if st >= 200 && st < 300 {
			return httpmock.NewStringResponse(st, body), nil
		}
		return httpmock.NewStringResponse(st, `{"ResponseStatus":{"ErrorCode":"SERVICE_UNAVAILABLE","Message":"try later"}}`), nil
	})
	return &n
}

func TestAddressCreateWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", addressesCreatePath, 200, fixture(t, "create_address.json"))
	p := &CreateAddressParams{
		Line1: "Level 12, 1 Example Street", Line2: "Suite 4", City: "Sydney", Region: "NSW",
		CountryCode: "au", PostalCode: "2000", Friendly: "Sydney office", Reference: "SYD-01",
	}
	a, err := c.Addresses.Create(bg, testSid, p)
	require.NoError(t, err)

	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Equal(t, "POST", got.Method)
	assert.Equal(t, addressesCreatePath, got.Path)
	assert.Empty(t, got.Query, "the parameters travel in the body")
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{
		"Line1":       "Level 12, 1 Example Street",
		"Line2":       "Suite 4",
		"City":        "Sydney",
		"Region":      "NSW",
		"CountryCode": "AU",
		"PostalCode":  "2000",
		"Friendly":    "Sydney office",
		"Reference":   "SYD-01",
	}, got.bodyMap(t), "CountryCode is sent upper-cased")
	assert.Equal(t, "au", p.CountryCode, "the caller's params are not changed")
	assert.Equal(t, &addressSydney, a)
}

func TestAddressCreateOptionalFieldsAbsent(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", addressesCreatePath, 200, fixture(t, "create_address.json"))
	p := addressValidParams()
	_, err := c.Addresses.Create(bg, testSid, &p)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"Line1": "Level 12, 1 Example Street", "City": "Sydney", "CountryCode": "AU",
	}, got.bodyMap(t), "empty optional fields are left out")
}

func TestAddressCreateBareResponse(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", addressesCreatePath, 200, []byte(`{
		"AddressSid": "`+addressTestSid+`", "AccountSid": "`+testSid+`",
		"Line1": "Level 12, 1 Example Street", "City": "Sydney", "CountryCode": "AU", "Status": "Pending"}`))
	p := addressValidParams()
	a, err := c.Addresses.Create(bg, testSid, &p)
	require.NoError(t, err)
	assert.Equal(t, &Address{
		AddressSid: addressTestSid, AccountSid: testSid, Line1: "Level 12, 1 Example Street",
		City: "Sydney", CountryCode: "AU", Status: "Pending",
	}, a)
}

func TestAddressCreateResponseWithoutAddress(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", addressesCreatePath, 200, []byte(`{"Result":"ok"}`))
	p := addressValidParams()
	a, err := c.Addresses.Create(bg, testSid, &p)
	assert.Nil(t, a)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "Addresses.Create", ae.Op)
}

func TestAddressCreateServiceError(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", addressesCreatePath, 400,
		[]byte(`{"ResponseStatus":{"ErrorCode":"COUNTRY_NOT_FOUND","Message":"The country ZZ was not found."}}`))
	p := addressValidParams()
	p.CountryCode = "zz"
	_, err := c.Addresses.Create(bg, testSid, &p)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeCountryNotFound, ErrorCode(err))
	assert.NotErrorIs(t, err, ErrMaybeSent, "a 400 did not take effect")
}

func TestAddressCreateNotRetried(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(addressFastRetries))
	n := addressStatusSequence(mt, "POST", addressesCreatePath, string(fixture(t, "create_address.json")), 503, 200)
	p := addressValidParams()
	_, err := c.Addresses.Create(bg, testSid, &p)
	require.Error(t, err)
	assert.Equal(t, int32(1), n.Load(), "a create is not idempotent")
	assert.ErrorIs(t, err, ErrMaybeSent)
}

func TestAddressCreateValidation(t *testing.T) {
	cases := []struct {
		why   string
		edit  func(p *CreateAddressParams)
		field string
		code  string
	}{
		{"Line1 is required", func(p *CreateAddressParams) { p.Line1 = "" }, "Line1", CodeParameterRequired},
		{"Line1 of spaces is missing", func(p *CreateAddressParams) { p.Line1 = "   " }, "Line1", CodeParameterRequired},
		{"City is required", func(p *CreateAddressParams) { p.City = "" }, "City", CodeParameterRequired},
		{"CountryCode is required", func(p *CreateAddressParams) { p.CountryCode = "" }, "CountryCode", CodeParameterRequired},
		{"CountryCode of four letters", func(p *CreateAddressParams) { p.CountryCode = "AUST" }, "CountryCode", CodeParameterInvalid},
		{"CountryCode with a digit", func(p *CreateAddressParams) { p.CountryCode = "A1" }, "CountryCode", CodeParameterInvalid},
		{"CountryCode of one letter", func(p *CreateAddressParams) { p.CountryCode = "A" }, "CountryCode", CodeParameterInvalid},
		{"CountryCode with a space", func(p *CreateAddressParams) { p.CountryCode = "A " }, "CountryCode", CodeParameterInvalid},
		{"CountryCode numeric", func(p *CreateAddressParams) { p.CountryCode = "36" }, "CountryCode", CodeParameterInvalid},
		{"CountryCode with a non-ASCII letter", func(p *CreateAddressParams) { p.CountryCode = "ÅU" }, "CountryCode", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := addressValidParams()
			tc.edit(&p)
			a, err := c.Addresses.Create(bg, testSid, &p)
			assert.Nil(t, a)
			requireValidation(t, mt, err, "Addresses.Create", tc.field, tc.code)
			assert.Equal(t, tc.code, ErrorCode(err))
			require.ErrorAs(t, p.Validate(), new(*ValidationError), "Validate agrees")
		})
	}
}

func TestAddressCreateValidationBoundariesPass(t *testing.T) {
	// The document gives two-letter codes only as an example: three-letter
	// ones pass too.
	for _, cc := range []string{"au", "AU", "Au", "nZ", "us", "AUS", "nzl"} {
		t.Run(cc, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "POST", addressesCreatePath, 200, fixture(t, "create_address.json"))
			p := addressValidParams()
			p.CountryCode = cc
			require.NoError(t, p.Validate())
			_, err := c.Addresses.Create(bg, testSid, &p)
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
			want := map[string]string{"au": "AU", "AU": "AU", "Au": "AU", "nZ": "NZ", "us": "US", "AUS": "AUS", "nzl": "NZL"}[cc]
			assert.Equal(t, want, got.bodyMap(t)["CountryCode"])
		})
	}
}

func TestAddressCreateValidationOffSendsBadCountry(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "POST", addressesCreatePath, 200, fixture(t, "create_address.json"))
	_, err := c.Addresses.Create(bg, testSid, &CreateAddressParams{Line1: "1 Example St", City: "Perth", CountryCode: "aus"})
	require.NoError(t, err)
	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Equal(t, "AUS", got.bodyMap(t)["CountryCode"])
}

func TestAddressDeleteWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "DELETE", addressDeletePath, 200, fixture(t, "delete_address.json"))
	err := c.Addresses.Delete(bg, addressTestSid)
	require.NoError(t, err)
	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Equal(t, "DELETE", got.Method)
	assert.Equal(t, addressDeletePath, got.Path)
	assert.Empty(t, got.Query)
	assert.Empty(t, got.Body, "a DELETE carries no body")
	assert.Empty(t, got.Header.Get("Content-Type"))
	assertCommonHeaders(t, got.Header)
}

func TestAddressDeleteEmptyBody(t *testing.T) {
	for _, st := range []int{200, 204} {
		t.Run(fmt.Sprint(st), func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "DELETE", addressDeletePath, st, nil)
			require.NoError(t, c.Addresses.Delete(bg, addressTestSid))
			assert.Equal(t, 1, mt.GetTotalCallCount())
		})
	}
}

func TestAddressDeleteGarbledBody(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "DELETE", addressDeletePath, 200, []byte(`<html>ok</html>`))
	err := c.Addresses.Delete(bg, addressTestSid)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 200, ae.StatusCode)
	assert.Equal(t, []byte(`<html>ok</html>`), ae.Body)
}

func TestAddressDeleteInUse(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "DELETE", addressDeletePath, 400, fixture(t, "delete_address_in_use.json"))
	err := c.Addresses.Delete(bg, addressTestSid)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeAddressCannotBeDeleted, ae.Code)
	assert.Equal(t, "ADDRESS_CANNOT_BE_DELETED", ErrorCode(err))
	assert.Equal(t, "Addresses.Delete", ae.Op)
	assert.Equal(t, "The address cannot be deleted while numbers rely on it for registration.", ae.Message)
	assert.Contains(t, err.Error(), "ADDRESS_CANNOT_BE_DELETED")
	assert.NotErrorIs(t, err, ErrMaybeSent)
	assert.False(t, errors.As(err, new(*ValidationError)))
	assert.Equal(t, 1, mt.GetTotalCallCount(), "a 400 is not retried")
}

func TestAddressDeleteRetriedOn503(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(addressFastRetries))
	n := addressStatusSequence(mt, "DELETE", addressDeletePath, string(fixture(t, "delete_address.json")), 503, 200)
	require.NoError(t, c.Addresses.Delete(bg, addressTestSid))
	assert.Equal(t, int32(2), n.Load(), "an idempotent DELETE is retried")

	c, mt = newMockClient(t, WithRetryPolicy(addressFastRetries))
	n = addressStatusSequence(mt, "DELETE", addressDeletePath, "", 503)
	err := c.Addresses.Delete(bg, addressTestSid)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 503, ae.StatusCode)
	assert.Equal(t, int32(3), n.Load(), "one attempt and MaxRetries retries")
	assert.NotErrorIs(t, err, ErrMaybeSent, "an idempotent call is never in doubt")
}

func TestAddressDeleteEscapesSid(t *testing.T) {
	c, mt := newMockClient(t)
	var path string
	mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		path = r.URL.EscapedPath()
		return httpmock.NewStringResponse(200, `{"AddressSid":"x"}`), nil
	})
	require.NoError(t, c.Addresses.Delete(bg, "AD/1 2"))
	assert.Equal(t, "/v2/Addresses/AD%2F1%202", path)
}

// TestAddressDeleteGoneAfterARetry: a retried Addresses.Delete whose
// earlier attempt may have removed the address succeeds when the service
// then says ADDRESS_NOT_FOUND, with the documented 400 or with a 404. Any
// other error, or a not-found on the first attempt, stays an error.
func TestAddressDeleteGoneAfterARetry(t *testing.T) {
	t.Parallel()
	notFound := `{"ResponseStatus":{"ErrorCode":"ADDRESS_NOT_FOUND","Message":"no such address"}}`
	other := `{"ResponseStatus":{"ErrorCode":"ACCOUNT_NOT_FOUND","Message":"no such account"}}`
	for _, tc := range []struct {
		name     string
		first    int // 0: the not-found is the first answer
		status   int
		body     string
		wantCode string // "" for success
	}{
		{"400 ADDRESS_NOT_FOUND after a 503", 503, 400, notFound, ""},
		{"404 ADDRESS_NOT_FOUND after a 503", 503, 404, notFound, ""},
		{"400 ADDRESS_NOT_FOUND first", 0, 400, notFound, CodeAddressNotFound},
		{"404 ADDRESS_NOT_FOUND first", 0, 404, notFound, CodeAddressNotFound},
		{"404 with another code after a 503", 503, 404, other, CodeAccountNotFound},
		{"400 with another code after a 503", 503, 400, other, CodeAccountNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, WithRetryPolicy(addressFastRetries))
			var n atomic.Int32
			mt.RegisterResponder("DELETE", testBase+addressDeletePath, func(*http.Request) (*http.Response, error) {
				if n.Add(1) == 1 && tc.first != 0 {
					return httpmock.NewStringResponse(tc.first, `{"ResponseStatus":{"ErrorCode":"X","Message":"busy"}}`), nil
				}
				return httpmock.NewStringResponse(tc.status, tc.body), nil
			})
			err := c.Addresses.Delete(bg, addressTestSid)
			if tc.wantCode == "" {
				require.NoError(t, err, "the earlier attempt removed the address")
				assert.EqualValues(t, 2, n.Load())
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.wantCode, ErrorCode(err), fmt.Sprint(err))
		})
	}
}

func TestAddressesListWire(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	path := "/v2/Accounts/" + testSid + "/Addresses"
	got := reply(mt, "GET", path, 200, fixture(t, "list_addresses.json"))
	page, err := c.Addresses.List(bg, testSid, &ListAddressesParams{
		Friendly: "Head office", Reference: "HO-1", City: "Sydney", Region: "NSW", CountryCode: "au",
		PostalCode: "2000", ListParams: ListParams{Count: 50, Skip: 50},
	})
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, path, got.Path)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, url.Values{
		"Friendly": {"Head office"}, "Reference": {"HO-1"}, "City": {"Sydney"}, "Region": {"NSW"},
		"CountryCode": {"AU"}, "PostalCode": {"2000"}, "Results_Count": {"50"}, "Results_Skip": {"50"},
	}, got.Query, "exact-match filters by their documented names; the country upper-cased as Create stores it")
	assert.Equal(t, 2, page.TotalCount)
	require.Len(t, page.Items, 2)
	assert.Equal(t, Address{AddressSid: "ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA", AccountSid: testSid, Friendly: "Head office",
		Reference: "HO-1", Line1: "1 Example St", Line2: "Level 3", City: "Sydney", Region: "NSW", CountryCode: "AU",
		PostalCode: "2000", Status: "Approved"}, page.Items[0])
}

func TestAddressesListSendsOnlySetFilters(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Accounts/"+testSid+"/Addresses", 200, []byte(`[]`))
	page, err := c.Addresses.List(bg, testSid, &ListAddressesParams{City: "Sydney"})
	require.NoError(t, err)
	assert.Equal(t, url.Values{"City": {"Sydney"}}, got.Query)
	assert.Empty(t, page.Items)
}

func TestAddressesListAllStopsAtTheTotal(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", "/v2/Accounts/"+testSid+"/Addresses",
		`{"Addresses":[{"AddressSid":"A1"},{"AddressSid":"A2"}],"TotalCount":3}`,
		`{"Addresses":[{"AddressSid":"A3"}],"TotalCount":3}`)
	var sids []string
	for a, err := range c.Addresses.ListAll(bg, testSid, &ListAddressesParams{Region: "NSW", ListParams: ListParams{Count: 2}}) {
		require.NoError(t, err)
		sids = append(sids, a.AddressSid)
	}
	assert.Equal(t, []string{"A1", "A2", "A3"}, sids)
	require.Len(t, got.Querys, 2)
	assert.Equal(t, "NSW", got.Querys[1].Get("Region"), "the filters go with every page")
	assert.Equal(t, "2", got.Querys[1].Get("Results_Skip"))
}

func TestAddressesGetWrappedOrBare(t *testing.T) {
	t.Parallel()
	for name, body := range map[string][]byte{
		"wrapped": fixture(t, "get_address.json"),
		"bare":    []byte(`{"AddressSid":"ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA","City":"Sydney"}`),
	} {
		t.Run(name, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "GET", "/v2/Addresses/ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA", 200, body)
			a, err := c.Addresses.Get(bg, "ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA")
			require.NoError(t, err)
			assert.Equal(t, "GET", got.Method)
			assertCommonHeaders(t, got.Header)
			assert.Equal(t, "ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA", a.AddressSid)
			assert.Equal(t, "Sydney", a.City)
		})
	}
}

func TestAddressesGetNotFound(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Addresses/AD404", 400,
		[]byte(`{"ResponseStatus":{"ErrorCode":"ADDRESS_NOT_FOUND","Message":"The address was not found."}}`))
	_, err := c.Addresses.Get(bg, "AD404")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, CodeAddressNotFound, ae.Code)
	assert.Equal(t, 400, ae.StatusCode)
}
