package telco

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	sipTrunkCreatePath = "/v2/Properties/" + testProp + "/SipTrunk"
	sipTrunkListPath   = "/v2/Properties/" + testProp + "/SipTrunks"
	sipTrunkDetailsSid = "H5DNSIPZZ5FK2Z9RI19R0WYOJFLJOOA5"
	// sipTrunkFixturePassword is the "Password" planted in the details
	// fixture's SipTrunkCredentials: the service never returns one, and the
	// SDK must drop it if it ever does.
	sipTrunkFixturePassword = "Leak3d!Secret"
)

// sipTrunkIPParams is a valid IP-to-IP trunk; each validation case breaks
// one thing in it.
func sipTrunkIPParams() CreateSipTrunkParams {
	return CreateSipTrunkParams{
		Name:            "Sydney PBX",
		DefaultCallerID: "+61299999999",
		Type:            SipTrunkIPToIP,
		IPAddresses:     []string{"8.8.8.0/24"},
	}
}

// sipTrunkAuthParams is a valid authenticated trunk.
func sipTrunkAuthParams() CreateSipTrunkParams {
	return CreateSipTrunkParams{
		Name:            "Remote agents",
		DefaultCallerID: "+61412345678",
		Type:            SipTrunkAuthenticated,
		Credentials:     &SipCredentials{Realm: "agents.sip.example.com", Password: "Tr0ub4dor&3x"},
	}
}

// sipTrunkDetails is what get_sip_trunk_details.json holds, without the
// planted password.
var sipTrunkDetails = SipTrunk{
	SipTrunkSid:       sipTrunkDetailsSid,
	Created:           1714521600,
	Modified:          1719792000,
	EndDate:           1722470400,
	Name:              "Melbourne contact centre",
	Type:              SipTrunkAuthenticated,
	ChannelLimit:      20,
	CustomerReference: "CUST-0077",
	ExternalReference: "CC-MEL-02",
	DefaultCallerID:   "+61399999999",
	ProvisioningState: ProvisioningDeprovisioning,
	SipTrunkAllowedCountries: []SipTrunkCountry{
		{Created: 1714521600, Modified: 1714521600, CountryCode: "AU"},
		{Created: 1714608000, Modified: 1714694400, CountryCode: "NZ"},
	},
	SipTrunkNumberRanges: []SipTrunkNumberRange{
		{Created: 1714521600, Modified: 1714521600, StartNumber: "+61399990000", Length: 100, RouteOnly: false},
		{Created: 1715126400, Modified: 1715212800, StartNumber: "+61399991000", Length: 10, RouteOnly: true},
	},
	SipTrunkIPAddresses: []SipTrunkIPAddress{
		{Created: 1714521600, Modified: 1714521600, IPAddress: "8.8.8.0/24"},
		{Created: 1714608000, Modified: 1714608000, IPAddress: "1.1.1.1/32"},
	},
	SipTrunkCredentials: &SipTrunkCredentials{Created: 1714521600, Modified: 1716940800, Realm: "mel.sip.example.com"},
}

// ---- Create (operation 13) ----

func TestSipTrunkCreateWireIPToIP(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", sipTrunkCreatePath, 200, fixture(t, "create_sip_trunk.json"))
	p := &CreateSipTrunkParams{
		Name:              "Sydney PBX",
		DefaultCallerID:   "+61299999999",
		Type:              SipTrunkIPToIP,
		IPAddresses:       []string{"8.8.8.0/24", "8.8.8.8"},
		AllowedCountries:  []string{"au", "Nz"},
		ChannelLimit:      30,
		CustomerReference: "CUST-0042",
	}
	sid, err := c.SipTrunks.Create(bg, testProp, p)
	require.NoError(t, err)
	assert.Equal(t, "UJZDE8GXD6NCF10EPF91DHODZDOC9IS0", sid)

	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Equal(t, "POST", got.Method)
	assert.Equal(t, sipTrunkCreatePath, got.Path)
	assert.Empty(t, got.Query)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{
		"Name":            "Sydney PBX",
		"DefaultCallerId": "+61299999999",
		"Type":            float64(0),
		"SipTrunkIpAddresses": []any{
			map[string]any{"IpAddress": "8.8.8.0/24"},
			map[string]any{"IpAddress": "8.8.8.8/32"},
		},
		"SipTrunkAllowedCountries": []any{
			map[string]any{"CountryCode": "AU"},
			map[string]any{"CountryCode": "NZ"},
		},
		"ChannelLimit":      float64(30),
		"CustomerReference": "CUST-0042",
	}, got.bodyMap(t), "Type 0 is sent as a number; a bare address as /32; country codes upper-cased")
	assert.Contains(t, string(got.Body), `"Type":0`, "Type travels as a JSON number, not a string")

	assert.Equal(t, []string{"8.8.8.0/24", "8.8.8.8"}, p.IPAddresses, "the caller's addresses are not rewritten")
	assert.Equal(t, []string{"au", "Nz"}, p.AllowedCountries, "the caller's countries are not rewritten")
}

func TestSipTrunkCreateWireAuthenticated(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", sipTrunkCreatePath, 200, fixture(t, "create_sip_trunk.json"))
	p := sipTrunkAuthParams()
	sid, err := c.SipTrunks.Create(bg, testProp, &p)
	require.NoError(t, err)
	assert.Equal(t, "UJZDE8GXD6NCF10EPF91DHODZDOC9IS0", sid)
	assert.Equal(t, map[string]any{
		"Name":            "Remote agents",
		"DefaultCallerId": "+61412345678",
		"Type":            float64(1),
		"SipTrunkCredentials": map[string]any{
			"Realm":    "agents.sip.example.com",
			"Password": "Tr0ub4dor&3x",
		},
	}, got.bodyMap(t), "ChannelLimit 0, an empty CustomerReference and absent lists are left out")
}

func TestSipTrunkCreateNoSidInAnswer(t *testing.T) {
	for _, body := range []string{`{}`, `{"SipTrunkSid":""}`, `{"SipTrunkSid":null}`, `{"Sid":"UJZDE8GXD6NCF10EPF91DHODZDOC9IS0"}`} {
		t.Run(body, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "POST", sipTrunkCreatePath, 200, []byte(body))
			p := sipTrunkIPParams()
			sid, err := c.SipTrunks.Create(bg, testProp, &p)
			require.Error(t, err)
			assert.Empty(t, sid)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "SipTrunks.Create", ae.Op)
			assert.Equal(t, 200, ae.StatusCode)
			assert.Contains(t, err.Error(), "SipTrunkSid")
			assert.True(t, errors.Is(err, ErrMaybeSent), "the trunk may exist: the service answered 200")
		})
	}
}

func TestSipTrunkCreateIsNotRetried(t *testing.T) {
	fast := RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}
	for _, status := range []int{500, 502, 503, 504} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			c, mt := newMockClient(t, WithRetryPolicy(fast))
			got := reply(mt, "POST", sipTrunkCreatePath, status,
				[]byte(`{"ResponseStatus":{"ErrorCode":"SERVICE_UNAVAILABLE","Message":"try later"}}`))
			p := sipTrunkIPParams()
			sid, err := c.SipTrunks.Create(bg, testProp, &p)
			require.Error(t, err)
			assert.Empty(t, sid)
			assert.Equal(t, 1, mt.GetTotalCallCount(), "a create is not idempotent: one attempt only")
			assert.Equal(t, 1, got.n)
			assert.ErrorIs(t, err, ErrMaybeSent)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, status, ae.StatusCode)
			assert.Equal(t, "SipTrunks.Create", ae.Op)
		})
	}

	// The contrast: with RetryUnsafe the same failure is retried, so the
	// single attempt above is the SDK's choice and not a transport accident.
	unsafe := fast
	unsafe.RetryUnsafe = true
	c, mt := newMockClient(t, WithRetryPolicy(unsafe))
	reply(mt, "POST", sipTrunkCreatePath, 503, []byte(`{"ResponseStatus":{"ErrorCode":"E","Message":"m"}}`))
	p := sipTrunkIPParams()
	_, err := c.SipTrunks.Create(bg, testProp, &p)
	require.Error(t, err)
	assert.Equal(t, 3, mt.GetTotalCallCount())
}

func TestSipTrunkCreateServiceError(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", sipTrunkCreatePath, 400, fixture(t, "error_parameter_required.json"))
	p := sipTrunkIPParams()
	_, err := c.SipTrunks.Create(bg, testProp, &p)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeParameterRequired, ErrorCode(err))
	assert.False(t, errors.Is(err, ErrMaybeSent), "a 400 was refused, not maybe sent")
}

func TestSipTrunkCreateValidation(t *testing.T) {
	type edit = func(p *CreateSipTrunkParams)
	const ipField = "SipTrunkIpAddresses[0].IpAddress"
	const pwField = "SipTrunkCredentials.Password"
	auth := func(pw string) edit {
		return func(p *CreateSipTrunkParams) {
			*p = sipTrunkAuthParams()
			p.Credentials.Password = pw
		}
	}
	cidr := func(s string) edit { return func(p *CreateSipTrunkParams) { p.IPAddresses = []string{s} } }

	cases := []struct {
		why   string
		edit  edit
		field string
		code  string
	}{
		{"Name is required", func(p *CreateSipTrunkParams) { p.Name = "" }, "Name", CodeParameterRequired},
		{"Name of spaces", func(p *CreateSipTrunkParams) { p.Name = "  " }, "Name", CodeParameterRequired},
		{"DefaultCallerId is required", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "" }, "DefaultCallerId", CodeParameterRequired},
		{"DefaultCallerId in local form", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "0299999999" }, "DefaultCallerId", CodeInvalidPhoneNumberFormat},
		{"DefaultCallerId without +", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "61299999999" }, "DefaultCallerId", CodeInvalidPhoneNumberFormat},
		{"DefaultCallerId with spaces", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+61 2 9999 9999" }, "DefaultCallerId", CodeInvalidPhoneNumberFormat},
		{"DefaultCallerId not Australian", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+14155550100" }, "DefaultCallerId", CodeParameterInvalid},
		{"DefaultCallerId in New Zealand", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+6491234567" }, "DefaultCallerId", CodeParameterInvalid},
		{"DefaultCallerId +61 then a trunk 0", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+610299999999" }, "DefaultCallerId", CodeParameterInvalid},
		{"DefaultCallerId shared-rate 13", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+61130000" }, "DefaultCallerId", CodeParameterInvalid},
		{"DefaultCallerId shared-rate 13 14 50", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+61131450" }, "DefaultCallerId", CodeParameterInvalid},
		{"DefaultCallerId shared-rate 1300", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+611300123456" }, "DefaultCallerId", CodeParameterInvalid},
		{"DefaultCallerId toll-free 1800", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+611800123456" }, "DefaultCallerId", CodeParameterInvalid},
		{"DefaultCallerId toll-free 1802", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+611802123456" }, "DefaultCallerId", CodeParameterInvalid},
		{"Type 2", func(p *CreateSipTrunkParams) { p.Type = 2 }, "Type", CodeParameterInvalid},
		{"Type -1", func(p *CreateSipTrunkParams) { p.Type = -1 }, "Type", CodeParameterInvalid},
		{"Type 0 without addresses", func(p *CreateSipTrunkParams) { p.IPAddresses = nil }, "SipTrunkIpAddresses", CodeParameterRequired},
		{"Type 0 with an empty address list", func(p *CreateSipTrunkParams) { p.IPAddresses = []string{} }, "SipTrunkIpAddresses", CodeParameterRequired},
		{"Type 1 without credentials", func(p *CreateSipTrunkParams) { *p = sipTrunkAuthParams(); p.Credentials = nil }, "SipTrunkCredentials", CodeParameterRequired},
		{"Type 1 with an empty password", auth(""), pwField, CodeParameterRequired},
		{"CIDR /23", cidr("8.8.8.0/23"), ipField, CodeParameterInvalid},
		{"CIDR /16", cidr("8.8.0.0/16"), ipField, CodeParameterInvalid},
		{"CIDR /0", cidr("0.0.0.0/0"), ipField, CodeParameterInvalid},
		{"CIDR /33", cidr("8.8.8.8/33"), ipField, CodeParameterInvalid},
		{"IPv6 CIDR", cidr("2001:4860:4860::/64"), ipField, CodeParameterInvalid},
		{"bare IPv6", cidr("2001:4860:4860::8888"), ipField, CodeParameterInvalid},
		{"IPv4-mapped IPv6", cidr("::ffff:8.8.8.8"), ipField, CodeParameterInvalid},
		{"garbage", cidr("not-an-address"), ipField, CodeParameterInvalid},
		{"empty address", cidr(""), ipField, CodeParameterInvalid},
		{"host name", cidr("sip.example.com"), ipField, CodeParameterInvalid},
		{"short dotted quad", cidr("8.8.8/24"), ipField, CodeParameterInvalid},
		{"octet over 255", cidr("8.8.8.256/32"), ipField, CodeParameterInvalid},
		{"a range", cidr("8.8.8.1-8.8.8.9"), ipField, CodeParameterInvalid},
		{"second address bad", func(p *CreateSipTrunkParams) { p.IPAddresses = []string{"8.8.8.0/24", "10.0.0.1"} },
			"SipTrunkIpAddresses[1].IpAddress", CodeParameterInvalid},
		{"password of 9 characters", auth("Aa1!Aa1!b"), pwField, CodeParameterInvalid},
		{"password without a lower-case letter", auth("AB1!CD2@EF"), pwField, CodeParameterInvalid},
		{"password without an upper-case letter", auth("ab1!cd2@ef"), pwField, CodeParameterInvalid},
		{"password without a digit", auth("Ab!Cd@Ef#G"), pwField, CodeParameterInvalid},
		{"password without a special character", auth("Ab1Cd2Ef3G"), pwField, CodeParameterInvalid},
		{"password with a space as its only special", auth("Ab1 Cd2Ef3G"), pwField, CodeParameterInvalid},
		{"password with aaa", auth("Xy1!aaabcd"), pwField, CodeParameterInvalid},
		{"password with 111", auth("Xy!1112bcd"), pwField, CodeParameterInvalid},
		{"password with !!!", auth("Xy1!!!bcdE"), pwField, CodeParameterInvalid},
		{"password with a run of 3 at its end", auth("Xy1!abcdEEE"), pwField, CodeParameterInvalid},
		{"ChannelLimit -1", func(p *CreateSipTrunkParams) { p.ChannelLimit = -1 }, "ChannelLimit", CodeParameterInvalid},
		{"Type 0 with a password", func(p *CreateSipTrunkParams) { p.Credentials = &SipCredentials{Password: "Tr0ub4dor&3x"} },
			"SipTrunkCredentials", CodeConflictingParameters},
		{"Type 0 with a realm alone", func(p *CreateSipTrunkParams) { p.Credentials = &SipCredentials{Realm: "r.example"} },
			"SipTrunkCredentials", CodeConflictingParameters},
		{"country AUST", func(p *CreateSipTrunkParams) { p.AllowedCountries = []string{"AUST"} },
			"SipTrunkAllowedCountries[0].CountryCode", CodeParameterInvalid},
		{"country 1A", func(p *CreateSipTrunkParams) { p.AllowedCountries = []string{"1A"} },
			"SipTrunkAllowedCountries[0].CountryCode", CodeParameterInvalid},
		{"country empty", func(p *CreateSipTrunkParams) { p.AllowedCountries = []string{""} },
			"SipTrunkAllowedCountries[0].CountryCode", CodeParameterInvalid},
		{"second country bad", func(p *CreateSipTrunkParams) { p.AllowedCountries = []string{"AU", "A"} },
			"SipTrunkAllowedCountries[1].CountryCode", CodeParameterInvalid},
	}
	for _, r := range []string{
		"10.1.2.0/24", "172.16.5.0/24", "192.168.1.0/24", "127.0.0.1/32", "169.254.1.0/24",
		"100.64.0.0/24", "100.127.255.0/24", "192.0.2.0/24", "198.51.100.7/32", "203.0.113.0/24",
		"198.18.0.0/24", "198.19.255.255/32", "224.0.0.1/32", "239.1.1.0/24", "240.0.0.1/32",
		"255.255.255.255/32", "0.0.0.0/32", "192.0.0.0/24",
		// more edges of the same ranges, and bare addresses
		"10.255.255.255/32", "172.31.255.0/24", "192.168.255.255", "127.255.255.0/24", "0.255.255.255",
		"192.88.99.1/32", "10.0.0.1",
	} {
		cases = append(cases, struct {
			why   string
			edit  edit
			field string
			code  string
		}{"non-public " + r, cidr(r), ipField, CodeParameterInvalid})
	}

	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := sipTrunkIPParams()
			tc.edit(&p)
			_, err := c.SipTrunks.Create(bg, testProp, &p)
			requireValidation(t, mt, err, "SipTrunks.Create", tc.field, tc.code)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Len(t, ve.Fields, 1, "one reason per case: %+v", ve.Fields)
			assert.Equal(t, tc.code, ErrorCode(err))
			var vve *ValidationError
			require.ErrorAs(t, p.Validate(), &vve, "Validate agrees")
			assert.Equal(t, ve.Fields, vve.Fields)
		})
	}
}

func TestSipTrunkCreateValidationBoundariesPass(t *testing.T) {
	type edit = func(p *CreateSipTrunkParams)
	cidr := func(s string) edit { return func(p *CreateSipTrunkParams) { p.IPAddresses = []string{s} } }
	cases := []struct {
		why  string
		edit edit
		sent string // the IpAddress sent, when the case is about an address
	}{
		{"a /24", cidr("8.8.8.0/24"), "8.8.8.0/24"},
		{"a /32", cidr("8.8.8.8/32"), "8.8.8.8/32"},
		{"a bare address", cidr("1.1.1.1"), "1.1.1.1/32"},
		{"a /28", cidr("8.8.4.0/28"), "8.8.4.0/28"},
		{"just below CGNAT", cidr("100.63.255.0/24"), "100.63.255.0/24"},
		{"just above CGNAT", cidr("100.128.0.0/24"), "100.128.0.0/24"},
		{"just above 172.16/12", cidr("172.32.0.0/24"), "172.32.0.0/24"},
		{"just below 172.16/12", cidr("172.15.255.0/24"), "172.15.255.0/24"},
		{"just above benchmarking", cidr("198.20.0.0/24"), "198.20.0.0/24"},
		{"just below benchmarking", cidr("198.17.255.0/24"), "198.17.255.0/24"},
		{"just above 10/8", cidr("11.0.0.0/24"), "11.0.0.0/24"},
		{"just below 10/8", cidr("9.255.255.0/24"), "9.255.255.0/24"},
		{"just above loopback", cidr("128.0.0.0/24"), "128.0.0.0/24"},
		{"just above 0/8", cidr("1.0.0.0/24"), "1.0.0.0/24"},
		{"next to link-local", cidr("169.255.0.0/24"), "169.255.0.0/24"},
		{"next to 192.168/16", cidr("192.169.0.0/24"), "192.169.0.0/24"},
		{"between 192.0.0/24 and TEST-NET-1", cidr("192.0.1.0/24"), "192.0.1.0/24"},
		{"next to TEST-NET-2", cidr("198.51.101.0/24"), "198.51.101.0/24"},
		{"next to TEST-NET-3", cidr("203.0.114.0/24"), "203.0.114.0/24"},
		{"just below multicast", cidr("223.255.255.255/32"), "223.255.255.255/32"},
		{"a password of exactly 10 with all classes and runs of 2", func(p *CreateSipTrunkParams) {
			*p = sipTrunkAuthParams()
			p.Credentials.Password = "Aa1!Aa1!bb"
		}, ""},
		{"a password whose special is not in the login set", func(p *CreateSipTrunkParams) {
			*p = sipTrunkAuthParams()
			p.Credentials.Password = "Aa1~Bb2-Cc"
		}, ""},
		{"credentials without a realm", func(p *CreateSipTrunkParams) {
			*p = sipTrunkAuthParams()
			p.Credentials.Realm = ""
		}, ""},
		{"a Sydney caller ID", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+61299999999" }, ""},
		{"a mobile caller ID", func(p *CreateSipTrunkParams) { p.DefaultCallerID = "+61412345678" }, ""},
		{"ChannelLimit 1", func(p *CreateSipTrunkParams) { p.ChannelLimit = 1 }, ""},
		{"ChannelLimit 0, the default", func(p *CreateSipTrunkParams) { p.ChannelLimit = 0 }, ""},
		{"lower-case country", func(p *CreateSipTrunkParams) { p.AllowedCountries = []string{"au"} }, ""},
		{"a three-letter country", func(p *CreateSipTrunkParams) { p.AllowedCountries = []string{"AU", "NZL"} }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "POST", sipTrunkCreatePath, 200, fixture(t, "create_sip_trunk.json"))
			p := sipTrunkIPParams()
			tc.edit(&p)
			require.NoError(t, p.Validate())
			sid, err := c.SipTrunks.Create(bg, testProp, &p)
			require.NoError(t, err)
			assert.Equal(t, "UJZDE8GXD6NCF10EPF91DHODZDOC9IS0", sid)
			assert.Equal(t, 1, mt.GetTotalCallCount())
			if tc.sent != "" {
				assert.Equal(t, []any{map[string]any{"IpAddress": tc.sent}}, got.bodyMap(t)["SipTrunkIpAddresses"])
			}
		})
	}
}

func TestSipTrunkCreateWithoutValidationSendsAsGiven(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "POST", sipTrunkCreatePath, 200, fixture(t, "create_sip_trunk.json"))
	_, err := c.SipTrunks.Create(bg, testProp, &CreateSipTrunkParams{
		Name: "x", DefaultCallerID: "0299999999", IPAddresses: []string{"10.0.0.0/8"},
	})
	require.NoError(t, err)
	body := got.bodyMap(t)
	assert.Equal(t, "0299999999", body["DefaultCallerId"])
	assert.Equal(t, []any{map[string]any{"IpAddress": "10.0.0.0/8"}}, body["SipTrunkIpAddresses"])
}

// ---- the SIP password is never printed ----

func TestSipTrunkPasswordNeverPrinted(t *testing.T) {
	const pw = "Sup3r!Secret#42"
	creds := SipCredentials{Realm: "agents.sip.example.com", Password: pw}
	params := CreateSipTrunkParams{
		Name: "Remote agents", DefaultCallerID: "+61412345678", Type: SipTrunkAuthenticated, Credentials: &creds,
	}
	hexPW := hex.EncodeToString([]byte(pw))

	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for name, v := range map[string]any{"SipCredentials": creds, "*SipCredentials": &creds} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, pw, "%s %s: %s", name, verb, out)
			assert.Contains(t, out, "[REDACTED]", "%s %s: %s", name, verb, out)
			assert.Contains(t, out, "agents.sip.example.com", "%s %s still shows the realm: %s", name, verb, out)
		}
		for name, v := range map[string]any{"CreateSipTrunkParams": params, "*CreateSipTrunkParams": &params} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, pw, "%s %s: %s", name, verb, out)
		}
	}
	for _, verb := range []string{"%q", "%x", "%X", "%d"} {
		for _, v := range []any{creds, &creds, params, &params} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, pw, verb)
			assert.NotContains(t, strings.ToLower(out), hexPW, verb)
		}
	}
	// nested by value, as a caller's own struct might hold it
	nested := fmt.Sprintf("%+v", struct{ C SipCredentials }{creds})
	assert.NotContains(t, nested, pw)
	assert.Contains(t, nested, "[REDACTED]")
	assert.True(t, creds.Password == pw, "formatting does not change the value")

	// structured logs of the values, as a caller might write them
	var logs bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&logs, nil), slog.NewTextHandler(&logs, nil)} {
		slog.New(h).Info("trunk", "creds", creds, "pcreds", &creds, "params", params, "pparams", &params)
	}
	assert.Contains(t, logs.String(), "agents.sip.example.com")
	assert.NotContains(t, logs.String(), pw)

	for name, v := range map[string]any{"SipCredentials": creds, "*SipCredentials": &creds, "CreateSipTrunkParams": params} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		assert.NotContains(t, string(b), pw, "json.Marshal(%s): %s", name, b)
		assert.False(t, strings.Contains(string(b), "Password"), "json.Marshal(%s) shows a Password", name)
	}
	b, err := json.Marshal(creds)
	require.NoError(t, err)
	assert.JSONEq(t, `{"Realm":"agents.sip.example.com"}`, string(b))

	for _, bad := range []string{"Sup3rSecret42", "sup3r!secret#42", "Xy1!aaabcd", "Aa1!Aa1!b", "SUP3R!SECRET#42", "Super!Secret#"} {
		p := params
		p.Credentials = &SipCredentials{Realm: "r", Password: bad}
		err := p.Validate()
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, bad)
		for _, out := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ve), ve.Fields[0].Message} {
			assert.NotContains(t, out, bad)
		}
	}
}

func TestSipTrunkPasswordNotLogged(t *testing.T) {
	var logs bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mt := newMockClient(t, WithLogger(l))
	got := reply(mt, "POST", sipTrunkCreatePath, 200, fixture(t, "create_sip_trunk.json"))
	p := sipTrunkAuthParams()
	_, err := c.SipTrunks.Create(bg, testProp, &p)
	require.NoError(t, err)
	assert.True(t, got.bodyMap(t)["SipTrunkCredentials"].(map[string]any)["Password"] == any(p.Credentials.Password), "the password is sent")
	assert.Contains(t, logs.String(), "SipTrunks.Create", "the attempt is logged")
	assert.False(t, strings.Contains(logs.String(), p.Credentials.Password), "a secret is shown")
	assert.NotContains(t, logs.String(), "Tr0ub4dor", "not even JSON-escaped")
}

// ---- List (operation 14) ----

func TestSipTrunkListWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", sipTrunkListPath, 200, fixture(t, "list_sip_trunks.json"))
	page, err := c.SipTrunks.List(bg, testProp, &ListSipTrunksParams{
		Type:              Ptr(SipTrunkIPToIP),
		Active:            Ptr(false),
		ProvisioningState: Ptr(ProvisioningActive),
		ListParams:        ListParams{Count: 2, Skip: 4},
	})
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, sipTrunkListPath, got.Path)
	assertCommonHeaders(t, got.Header)
	assert.Empty(t, got.Body, "a GET has no body")
	assert.Equal(t, url.Values{
		"Type":              {"0"},
		"Active":            {"false"},
		"ProvisioningState": {"2"},
		"Results_Count":     {"2"},
		"Results_Skip":      {"4"},
	}, got.Query, "zero-valued filters are sent when set, as numbers")

	require.Len(t, page.Items, 2)
	assert.Equal(t, SipTrunk{
		SipTrunkSid:       "J8HT9LGMXG9EDN581U33XTPLPFT75V2S",
		Created:           1714521600,
		Modified:          1714608000,
		Name:              "Sydney PBX",
		Type:              SipTrunkIPToIP,
		ChannelLimit:      30,
		CustomerReference: "CUST-0042",
		ExternalReference: "PBX-SYD-01",
		DefaultCallerID:   "+61299999999",
		ProvisioningState: ProvisioningActive,
	}, page.Items[0])
	assert.Equal(t, SipTrunk{
		SipTrunkSid:       "EH60KVJ50CE9UVW53EFR4EDT2SYWB3WK",
		Created:           1717200000,
		Modified:          1717200000,
		Name:              "Remote agents",
		Type:              SipTrunkAuthenticated,
		ChannelLimit:      1,
		DefaultCallerID:   "+61412345678",
		ProvisioningState: ProvisioningProvisioning,
	}, page.Items[1])
	assert.Equal(t, 3, page.TotalCount)
	assert.Equal(t, "eyJTa2lwIjoyfQ", page.NextPageToken)

	_, err = c.SipTrunks.List(bg, testProp, &ListSipTrunksParams{
		Type: Ptr(SipTrunkAuthenticated), Active: Ptr(true), ProvisioningState: Ptr(ProvisioningInactive),
	})
	require.NoError(t, err)
	assert.Equal(t, url.Values{"Type": {"1"}, "Active": {"true"}, "ProvisioningState": {"0"}}, got.Query)

	_, err = c.SipTrunks.List(bg, testProp, &ListSipTrunksParams{ProvisioningState: Ptr(ProvisioningDeprovisioning)})
	require.NoError(t, err)
	assert.Equal(t, url.Values{"ProvisioningState": {"3"}}, got.Query)
}

func TestSipTrunkListNilFiltersNotSent(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", sipTrunkListPath, 200, fixture(t, "list_sip_trunks.json"))
	_, err := c.SipTrunks.List(bg, testProp, nil)
	require.NoError(t, err)
	assert.Empty(t, got.Query)
	_, err = c.SipTrunks.List(bg, testProp, &ListSipTrunksParams{})
	require.NoError(t, err)
	assert.Empty(t, got.Query)
}

func TestSipTrunkListValidation(t *testing.T) {
	cases := []struct {
		why   string
		p     ListSipTrunksParams
		field string
	}{
		{"Type 5", ListSipTrunksParams{Type: Ptr(SipTrunkType(5))}, "Type"},
		{"Type -1", ListSipTrunksParams{Type: Ptr(SipTrunkType(-1))}, "Type"},
		{"ProvisioningState 9", ListSipTrunksParams{ProvisioningState: Ptr(ProvisioningState(9))}, "ProvisioningState"},
		{"ProvisioningState 4", ListSipTrunksParams{ProvisioningState: Ptr(ProvisioningState(4))}, "ProvisioningState"},
		{"ProvisioningState -1", ListSipTrunksParams{ProvisioningState: Ptr(ProvisioningState(-1))}, "ProvisioningState"},
		{"Results_Count negative", ListSipTrunksParams{ListParams: ListParams{Count: -1}}, "Results_Count"},
		{"Results_Skip negative", ListSipTrunksParams{ListParams: ListParams{Skip: -1}}, "Results_Skip"},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.SipTrunks.List(bg, testProp, &tc.p)
			requireValidation(t, mt, err, "SipTrunks.List", tc.field, CodeParameterInvalid)
			require.ErrorAs(t, tc.p.Validate(), new(*ValidationError), "Validate agrees")
		})
	}
}

func TestSipTrunkListAllPagesUntilTotalCount(t *testing.T) {
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", sipTrunkListPath,
		`{"SipTrunks":[{"SipTrunkSid":"T1","Type":0},{"SipTrunkSid":"T2","Type":0}],"TotalCount":5,"NextPageToken":"a"}`,
		`{"SipTrunks":[{"SipTrunkSid":"T3","Type":0},{"SipTrunkSid":"T4","Type":0}],"TotalCount":5,"NextPageToken":"b"}`,
		`{"SipTrunks":[{"SipTrunkSid":"T5","Type":0}],"TotalCount":5,"NextPageToken":null}`,
		`{"SipTrunks":[{"SipTrunkSid":"T6","Type":0}],"TotalCount":5,"NextPageToken":null}`,
	)
	p := &ListSipTrunksParams{Type: Ptr(SipTrunkIPToIP), ProvisioningState: Ptr(ProvisioningActive), ListParams: ListParams{Count: 2}}
	before := *p
	seq := c.SipTrunks.ListAll(bg, testProp, p)
	p.Count = 99 // changed after the call: the iterator already holds its copy
	var sids []string
	for tr, err := range seq {
		require.NoError(t, err)
		sids = append(sids, tr.SipTrunkSid)
	}
	assert.Equal(t, []string{"T1", "T2", "T3", "T4", "T5"}, sids)
	require.Len(t, got.Querys, 3, "no request past TotalCount")
	for i, q := range got.Querys {
		assert.Equal(t, "0", q.Get("Type"), "page %d keeps the filters", i)
		assert.Equal(t, "2", q.Get("ProvisioningState"), "page %d keeps the filters", i)
		assert.Equal(t, "2", q.Get("Results_Count"), "page %d", i)
	}
	assert.Empty(t, got.Querys[0].Get("Results_Skip"))
	assert.Equal(t, "2", got.Querys[1].Get("Results_Skip"))
	assert.Equal(t, "4", got.Querys[2].Get("Results_Skip"))
	p.Count = 2
	assert.Equal(t, before, *p, "the caller's params are copied, not advanced")
	assert.Equal(t, 0, p.Skip)
}

func TestSipTrunkListAllFromSkip(t *testing.T) {
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", sipTrunkListPath,
		`{"SipTrunks":[{"SipTrunkSid":"T4"},{"SipTrunkSid":"T5"}],"TotalCount":6}`,
		`{"SipTrunks":[{"SipTrunkSid":"T6"}],"TotalCount":6}`,
	)
	p := &ListSipTrunksParams{ListParams: ListParams{Count: 2, Skip: 3}}
	var sids []string
	for tr, err := range c.SipTrunks.ListAll(bg, testProp, p) {
		require.NoError(t, err)
		sids = append(sids, tr.SipTrunkSid)
	}
	assert.Equal(t, []string{"T4", "T5", "T6"}, sids)
	require.Len(t, got.Querys, 2)
	assert.Equal(t, "3", got.Querys[0].Get("Results_Skip"))
	assert.Equal(t, "5", got.Querys[1].Get("Results_Skip"))
	assert.Equal(t, 3, p.Skip, "the caller's Skip is unchanged")
}

func TestSipTrunkListAllWithoutTotalUsesDefaultPageSize(t *testing.T) {
	// Without a TotalCount the iterator stops at a page shorter than the
	// service's default of 50 SIP trunks, and not before.
	full := make([]string, 50)
	for i := range full {
		full[i] = fmt.Sprintf(`{"SipTrunkSid":"T%02d"}`, i)
	}
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", sipTrunkListPath,
		`{"SipTrunks":[`+strings.Join(full, ",")+`]}`,
		`{"SipTrunks":[{"SipTrunkSid":"U1"},{"SipTrunkSid":"U2"}]}`,
		`{"SipTrunks":[{"SipTrunkSid":"U3"}]}`,
	)
	n := 0
	for _, err := range c.SipTrunks.ListAll(bg, testProp, nil) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 52, n)
	require.Len(t, got.Querys, 2)
	assert.Empty(t, got.Querys[0].Get("Results_Count"), "the service default is left to the service")
	assert.Equal(t, "50", got.Querys[1].Get("Results_Skip"))
}

func TestSipTrunkListAllNilParamsAndBreak(t *testing.T) {
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", sipTrunkListPath, `{"SipTrunks":[{"SipTrunkSid":"T1"},{"SipTrunkSid":"T2"}],"TotalCount":100}`)
	for range c.SipTrunks.ListAll(bg, testProp, nil) {
		break
	}
	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Empty(t, got.Querys[0])
}

func TestSipTrunkListAllYieldsValidationError(t *testing.T) {
	c, mt := newMockClient(t)
	n := 0
	for _, err := range c.SipTrunks.ListAll(bg, testProp, &ListSipTrunksParams{Type: Ptr(SipTrunkType(5))}) {
		n++
		requireValidation(t, mt, err, "SipTrunks.List", "Type", CodeParameterInvalid)
	}
	assert.Equal(t, 1, n, "the error is yielded once")
}

// ---- Details (operation 15) ----

func TestSipTrunkGetDetails(t *testing.T) {
	bare := fixture(t, "get_sip_trunk_details.json")
	wrapped := append(append([]byte(`{"SipTrunk": `), bare...), '}')
	routes := []struct {
		name string
		path string
		get  func(c *Client) (*SipTrunk, error)
	}{
		{"GetByProperty", "/v2/Properties/" + testProp + "/SipTrunk/" + sipTrunkDetailsSid + "/Details",
			func(c *Client) (*SipTrunk, error) { return c.SipTrunks.GetByProperty(bg, testProp, sipTrunkDetailsSid) }},
		{"GetByAccount", "/v2/Accounts/" + testSid + "/SipTrunk/" + sipTrunkDetailsSid + "/Details",
			func(c *Client) (*SipTrunk, error) { return c.SipTrunks.GetByAccount(bg, testSid, sipTrunkDetailsSid) }},
	}
	for _, rt := range routes {
		for _, body := range []struct {
			name string
			b    []byte
		}{{"bare", bare}, {"wrapped", wrapped}} {
			t.Run(rt.name+"/"+body.name, func(t *testing.T) {
				c, mt := newMockClient(t)
				got := reply(mt, "GET", rt.path, 200, body.b)
				tr, err := rt.get(c)
				require.NoError(t, err)
				assert.Equal(t, 1, mt.GetTotalCallCount())
				assert.Equal(t, "GET", got.Method)
				assert.Equal(t, rt.path, got.Path)
				assert.Empty(t, got.Query)
				assert.Empty(t, got.Body)
				assertCommonHeaders(t, got.Header)
				require.NotNil(t, tr)
				assert.Equal(t, &sipTrunkDetails, tr)
				assert.Equal(t, time.Date(2024, 8, 1, 0, 0, 0, 0, time.UTC), tr.EndDate.Time())

				// The planted password is dropped: nothing holds it.
				out, err := json.Marshal(tr)
				require.NoError(t, err)
				assert.False(t, strings.Contains(string(out), sipTrunkFixturePassword), "a secret is shown")
				assert.False(t, strings.Contains(fmt.Sprintf("%+v %#v", tr, tr.SipTrunkCredentials), sipTrunkFixturePassword), "a secret is shown")
			})
		}
	}
}

func TestSipTrunkGetDetailsIsRetried(t *testing.T) {
	fast := RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}
	c, mt := newMockClient(t, WithRetryPolicy(fast))
	reply(mt, "GET", "/v2/Accounts/"+testSid+"/SipTrunk/"+sipTrunkDetailsSid+"/Details", 503, []byte(`{"ResponseStatus":{"ErrorCode":"E","Message":"m"}}`))
	_, err := c.SipTrunks.GetByAccount(bg, testSid, sipTrunkDetailsSid)
	require.Error(t, err)
	assert.Equal(t, 3, mt.GetTotalCallCount(), "a read is idempotent")
	assert.False(t, errors.Is(err, ErrMaybeSent))
}

func TestSipTrunkGetDetailsMissingTrunk(t *testing.T) {
	for _, body := range []string{`{}`, `{"SipTrunk":null}`, `{"Name":"no sid"}`} {
		t.Run(body, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "GET", "/v2/Properties/"+testProp+"/SipTrunk/"+sipTrunkDetailsSid+"/Details", 200, []byte(body))
			tr, err := c.SipTrunks.GetByProperty(bg, testProp, sipTrunkDetailsSid)
			assert.Nil(t, tr)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "SipTrunks.GetByProperty", ae.Op)
			assert.Contains(t, err.Error(), "SipTrunk")
		})
	}
}

func TestSipTrunkGetDetailsEscapesSids(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Properties/"+testProp+"/SipTrunk/A%2FB/Details", 200, fixture(t, "get_sip_trunk_details.json"))
	_, err := c.SipTrunks.GetByProperty(bg, testProp, "A/B")
	require.NoError(t, err)
	assert.Equal(t, "/v2/Properties/"+testProp+"/SipTrunk/A%2FB/Details", got.Path)
}

// ---- enums ----

func TestSipTrunkTypeAndStateStrings(t *testing.T) {
	assert.Equal(t, "IP to IP", SipTrunkIPToIP.String())
	assert.Equal(t, "Authenticated", SipTrunkAuthenticated.String())
	assert.Equal(t, "SipTrunkType(5)", SipTrunkType(5).String())
	assert.Equal(t, "Inactive", ProvisioningInactive.String())
	assert.Equal(t, "Provisioning", ProvisioningProvisioning.String())
	assert.Equal(t, "Active", ProvisioningActive.String())
	assert.Equal(t, "Deprovisioning", ProvisioningDeprovisioning.String())
	assert.Equal(t, "ProvisioningState(9)", ProvisioningState(9).String())
	assert.Equal(t, 0, int(SipTrunkIPToIP))
	assert.Equal(t, 1, int(SipTrunkAuthenticated))
	assert.Equal(t, []int{0, 1, 2, 3}, []int{int(ProvisioningInactive), int(ProvisioningProvisioning),
		int(ProvisioningActive), int(ProvisioningDeprovisioning)})

	// JSON carries the numbers both ways, never the String form.
	b, err := json.Marshal(SipTrunk{Type: SipTrunkAuthenticated, ProvisioningState: ProvisioningActive})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"Type":1`)
	assert.Contains(t, string(b), `"ProvisioningState":2`)
	assert.Contains(t, fmt.Sprintf("%v", SipTrunkIPToIP), "IP to IP")
}

func TestUpdateSipTrunkWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "PATCH", "/v2/Properties/"+testProp+"/SipTrunk/ST1", http.StatusNoContent, nil)
	err := c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{
		Name: Ptr("PBX 2"), ChannelLimit: Ptr(4), IPAddresses: []string{"8.8.8.8", "1.1.1.0/24"},
		AllowedCountries: []string{"au", "NZ"}, Type: Ptr(SipTrunkIPToIP)})
	require.NoError(t, err)
	assert.Equal(t, "PATCH", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/merge-patch+json", got.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"Name":"PBX 2","ChannelLimit":4,"Type":0,
		"SipTrunkIpAddresses":[{"IpAddress":"8.8.8.8/32"},{"IpAddress":"1.1.1.0/24"}],
		"SipTrunkAllowedCountries":[{"CountryCode":"AU"},{"CountryCode":"NZ"}]}`, string(got.Body))

	// A new password travels inside the credentials' own patch.
	require.NoError(t, c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{
		Credentials: &SipCredentials{Password: "Tr0nk-Pa55!x"}}))
	assert.JSONEq(t, `{"SipTrunkCredentials":{"Password":"Tr0nk-Pa55!x"}}`, string(got.Body))

	// The account form, and a 200 with a body the SDK does not need.
	acct := reply(mt, "PATCH", "/v2/Accounts/"+testSid+"/SipTrunk/ST1", http.StatusOK, []byte(`{"SipTrunkSid":"ST1"}`))
	require.NoError(t, c.SipTrunks.UpdateByAccount(bg, testSid, "ST1", &UpdateSipTrunkParams{CustomerReference: Ptr("")}))
	assert.JSONEq(t, `{"CustomerReference":""}`, string(acct.Body), "a reference can be cleared")
}

func TestUpdateSipTrunkValidation(t *testing.T) {
	for _, tc := range []struct {
		name        string
		p           UpdateSipTrunkParams
		field, code string
	}{
		{"the caller ID is Australian", UpdateSipTrunkParams{DefaultCallerID: Ptr("+6491234567")}, "DefaultCallerId", CodeParameterInvalid},
		{"the caller ID is not toll-free 1802", UpdateSipTrunkParams{DefaultCallerID: Ptr("+611802123456")}, "DefaultCallerId", CodeParameterInvalid},
		{"the caller ID is E.164", UpdateSipTrunkParams{DefaultCallerID: Ptr("0299999999")}, "DefaultCallerId", CodeInvalidPhoneNumberFormat},
		{"addresses are public", UpdateSipTrunkParams{IPAddresses: []string{"192.168.1.0/24"}}, "SipTrunkIpAddresses[0].IpAddress", CodeParameterInvalid},
		{"an IP to IP trunk keeps an address", UpdateSipTrunkParams{Type: Ptr(SipTrunkIPToIP), IPAddresses: []string{}}, "SipTrunkIpAddresses", CodeParameterRequired},
		{"the type is 0 or 1", UpdateSipTrunkParams{Type: Ptr(SipTrunkType(2))}, "Type", CodeParameterInvalid},
		{"the password has four classes", UpdateSipTrunkParams{Credentials: &SipCredentials{Password: "password12"}}, "SipTrunkCredentials.Password", CodeParameterInvalid},
		{"credentials change something", UpdateSipTrunkParams{Credentials: &SipCredentials{}}, "SipTrunkCredentials", CodeParameterRequired},
		{"at least one channel", UpdateSipTrunkParams{ChannelLimit: Ptr(0)}, "ChannelLimit", CodeParameterInvalid},
		{"an IP to IP trunk takes no credentials", UpdateSipTrunkParams{Type: Ptr(SipTrunkIPToIP),
			IPAddresses: []string{"8.8.8.8"}, Credentials: &SipCredentials{Password: "Tr0nk-Pa55!x"}}, "SipTrunkCredentials", CodeConflictingParameters},
		{"countries are letter codes", UpdateSipTrunkParams{AllowedCountries: []string{"61"}}, "SipTrunkAllowedCountries[0].CountryCode", CodeParameterInvalid},
		{"a name cannot be blanked", UpdateSipTrunkParams{Name: Ptr("")}, "Name", CodeParameterInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			requireValidation(t, mt, c.SipTrunks.Update(bg, testProp, "ST1", &tc.p), "SipTrunks.Update", tc.field, tc.code)
			c, mt = newMockClient(t)
			requireValidation(t, mt, c.SipTrunks.UpdateByAccount(bg, testSid, "ST1", &tc.p), "SipTrunks.UpdateByAccount", tc.field, tc.code)
		})
	}
}

func TestUpdateSipTrunkPasswordKeptOutOfErrors(t *testing.T) {
	const pw = "Tr0nk-Pa55!x-secret"
	c, mt := newMockClient(t)
	reply(mt, "PATCH", "/v2/Properties/"+testProp+"/SipTrunk/ST1", http.StatusBadRequest,
		[]byte(`<html>bad body {"Password":"`+pw+`"}</html>`))
	err := c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{Credentials: &SipCredentials{Password: pw}})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.NotContains(t, string(ae.Body), pw)
	assert.NotContains(t, err.Error(), pw)
}
