package telco

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	numberBlocksPath          = "/v2/numberblocks"
	numberBlocksPropertyPath  = "/v2/Properties/" + testProp + "/numberblocks"
	numberBlocksAccountPath   = "/v2/Accounts/" + testSid + "/numberblocks"
	numberBlockFirstSid       = "NBUJZDE8GXD6NCF10EPF91DHODZDOC9I"
	numberBlockSecondSid      = "NBS0J8HT9LGMXG9EDN581U33XTPLPFT7"
	numberBlockSearchFixture  = "search_number_blocks.json"
	numberBlockSearchTextPath = "/v2/numberblocks/Spring%20sale%2F2024"
)

// numberBlockAssertDateTime checks a number-block datetime against its wire
// form: the instant, the offset it was written with, and the round trip.
func numberBlockAssertDateTime(t *testing.T, wire string, ms int64, offsetSecs int, got DateTime) {
	t.Helper()
	assert.Equal(t, ms, got.UnixMilli(), "instant of %s", wire)
	_, off := got.Zone()
	assert.Equal(t, offsetSecs, off, "offset of %s", wire)
	assert.Equal(t, wire, got.String(), "round trip of %s", wire)
	b, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Equal(t, `"`+wire+`"`, string(b))
}

// numberBlockPageBody builds a page envelope holding blocks with the given
// ids.
func numberBlockPageBody(pageIndex, pageSize, total int, ids ...int) string {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = fmt.Sprintf(`{"Id":%d,"NumberBlockSid":"NB%030d","Created":"/Date(1577836800000+1000)/","Modified":null,"SipTrunkId":null}`, id, id)
	}
	return fmt.Sprintf(`{"Data":[%s],"PageIndex":%d,"PageSize":%d,"TotalCount":%d,"SortBy":"Id","SortDir":"asc"}`,
		strings.Join(items, ","), pageIndex, pageSize, total)
}

// numberBlockAnswer is one canned answer of numberBlockResponder.
type numberBlockAnswer struct {
	status int
	body   string
}

// numberBlockResponder answers the requests to path in turn with answers
// (the last one repeating) and records what it saw.
func numberBlockResponder(mt *httpmock.MockTransport, method, path string, answers ...numberBlockAnswer) *seen {
	s := &seen{}
	var mu sync.Mutex
	i := 0
	mt.RegisterResponder(method, testBase+path, func(r *http.Request) (*http.Response, error) {
		s.record(r)
		mu.Lock()
		a := answers[min(i, len(answers)-1)]
		i++
		mu.Unlock()
		resp := httpmock.NewStringResponse(a.status, a.body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	})
	return s
}

func numberBlockIDs(t *testing.T, seq func(func(NumberBlock, error) bool)) ([]int, []error) {
	t.Helper()
	var ids []int
	var errs []error
	for b, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, b.ID)
	}
	return ids, errs
}

func TestNumberBlocksSearchWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", numberBlocksPath, 200, fixture(t, numberBlockSearchFixture))
	page, err := c.NumberBlocks.Search(bg, &NumberBlockSearchParams{
		AccountSid:  testSid,
		PropertySid: testProp,
		Text:        "Spring sale",
		NumberBlockListParams: NumberBlockListParams{
			Active:              Ptr(true),
			Sms:                 Ptr(false),
			IncludeAssociations: true,
			PageIndex:           3,
			PageSize:            25,
			IncludeTotalCount:   Ptr(false),
			SortBy:              "Name",
			SortDir:             "DESC",
		},
	})
	require.NoError(t, err)

	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, numberBlocksPath, got.Path)
	assertCommonHeaders(t, got.Header)
	assert.Empty(t, got.Body, "a GET carries no body")
	assert.Empty(t, got.Header.Get("Content-Type"))
	assert.Equal(t, url.Values{
		"AccountSid":          {testSid},
		"PropertySid":         {testProp},
		"Text":                {"Spring sale"},
		"Active":              {"true"},
		"Sms":                 {"false"},
		"IncludeAssociations": {"true"},
		"PageIndex":           {"3"},
		"PageSize":            {"25"},
		"IncludeTotalCount":   {"false"},
		"SortBy":              {"Name"},
		"SortDir":             {"desc"},
	}, got.Query, "Voice is nil, so it is absent; SortDir is lower-cased")

	require.NotNil(t, page)
	assert.Equal(t, 0, page.PageIndex)
	assert.Equal(t, 2, page.PageSize)
	assert.Equal(t, 5, page.TotalCount)
	assert.Equal(t, "Id", page.SortBy)
	assert.Equal(t, "asc", page.SortDir)
	require.Len(t, page.Data, 2)
}

func TestNumberBlocksSearchDecodesEveryField(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", numberBlocksPath, 200, fixture(t, numberBlockSearchFixture))
	page, err := c.NumberBlocks.Search(bg, &NumberBlockSearchParams{PropertySid: testProp,
		NumberBlockListParams: NumberBlockListParams{IncludeAssociations: true}})
	require.NoError(t, err)
	require.Len(t, page.Data, 2)

	// The first block: a SIP trunk, a modification time and associations.
	b := page.Data[0]
	numberBlockAssertDateTime(t, "/Date(1577836800000+1000)/", 1577836800000, 10*3600, b.Created)
	assert.True(t, b.Created.Equal(time.Date(2020, 1, 1, 10, 0, 0, 0, time.FixedZone("AEST", 10*3600))))
	assert.Equal(t, 10, b.Created.Hour(), "the wall clock is the block's own zone")
	require.NotNil(t, b.Modified)
	numberBlockAssertDateTime(t, "/Date(1580515200000+1100)/", 1580515200000, 11*3600, *b.Modified)
	assert.Nil(t, b.QuarantineStartDate)
	assert.Nil(t, b.QuarantineEndDate)
	require.NotNil(t, b.SipTrunkID)
	assert.Equal(t, 17, *b.SipTrunkID)

	require.Len(t, b.NumberBlockAssignments, 1)
	var asg struct {
		PropertySid string
		Number      string
		Source      string `json:"Attribution_Source"`
		Medium      string `json:"Attribution_Medium"`
	}
	require.NoError(t, b.NumberBlockAssignments[0].Decode(&asg))
	assert.Equal(t, testProp, asg.PropertySid)
	assert.Equal(t, "61299999901", asg.Number)
	assert.Equal(t, "google", asg.Source)
	assert.Equal(t, "cpc", asg.Medium)
	assert.JSONEq(t, `{"PropertySid":"`+testProp+`","Number":"61299999901","Attribution_Source":"google","Attribution_Medium":"cpc"}`,
		string(b.NumberBlockAssignments[0].Raw), "the assignment is kept as sent")
	var wrong []string
	assert.Error(t, b.NumberBlockAssignments[0].Decode(&wrong), "an object does not decode into a slice")

	assert.Equal(t, []AnalyticsNumber{{
		ID:            88001,
		PublicNumber:  "+61299999901",
		RoutingNumber: "+61299999999",
		Active:        true,
		CountryCode:   "AU",
		GeoCountry:    "Australia",
		GeoRegion:     "New South Wales",
		GeoCity:       "Sydney",
		SupportsVoice: true,
		SupplierName:  "Telstra Wholesale",
		VoiceNetwork:  "PSTN",
	}}, b.AnalyticsDynamicNumbers)

	// Compare the remaining fields in one go, the datetimes having been
	// checked above.
	rest := b
	rest.Created, rest.Modified, rest.SipTrunkID = DateTime{}, nil, nil
	rest.NumberBlockAssignments, rest.AnalyticsDynamicNumbers = nil, nil
	assert.Equal(t, NumberBlock{
		ID:                    1042,
		NumberBlockSid:        numberBlockFirstSid,
		NumberPattern:         "6129999990X",
		Number:                "6129999990X",
		Name:                  "Spring sale",
		FriendlyName:          "Spring sale landing pages",
		SipTrunkName:          "Sydney PBX",
		RoutingMethod:         "endpoint",
		TerminationNumber:     "+61299999999",
		Active:                true,
		HasSplitConfiguration: true,
		BlockSize:             10,
		RecordingEnabled:      true,
		SupportsVoice:         true,
		SupportsSms:           true,
		SupportsMms:           false,
		Action:                2,
		SupplierName:          "Telstra Wholesale",
	}, rest)

	// The second block: no SIP trunk, never modified, quarantined, no
	// associations.
	b = page.Data[1]
	assert.Nil(t, b.SipTrunkID, "SipTrunkId null")
	assert.Nil(t, b.Modified, "Modified null")
	numberBlockAssertDateTime(t, "/Date(1583020800000-0500)/", 1583020800000, -5*3600, b.Created)
	require.NotNil(t, b.QuarantineStartDate)
	require.NotNil(t, b.QuarantineEndDate)
	numberBlockAssertDateTime(t, "/Date(1585699200000+1000)/", 1585699200000, 10*3600, *b.QuarantineStartDate)
	numberBlockAssertDateTime(t, "/Date(1593561600000+1000)/", 1593561600000, 10*3600, *b.QuarantineEndDate)
	assert.Empty(t, b.NumberBlockAssignments)
	assert.Empty(t, b.AnalyticsDynamicNumbers)
	rest = b
	rest.Created, rest.QuarantineStartDate, rest.QuarantineEndDate = DateTime{}, nil, nil
	assert.Equal(t, NumberBlock{
		ID:                   1043,
		NumberBlockSid:       numberBlockSecondSid,
		NumberPattern:        "61388880000-61388880099",
		Number:               "61388880000-61388880099",
		Name:                 "Melbourne office",
		FriendlyName:         "Melbourne reception",
		RoutingMethod:        "programmable-voice",
		ProgrammableVoiceURL: "https://voice.example.com/flows/reception",
		BlockSize:            100,
		SupportsVoice:        true,
		SupportsMms:          true,
		SupplierName:         "Optus Wholesale",
	}, rest)
}

func TestNumberBlocksSearchTriStateFilters(t *testing.T) {
	type tri struct {
		name string
		set  func(p *NumberBlockListParams, v *bool)
	}
	filters := []tri{
		{"Active", func(p *NumberBlockListParams, v *bool) { p.Active = v }},
		{"Sms", func(p *NumberBlockListParams, v *bool) { p.Sms = v }},
		{"Voice", func(p *NumberBlockListParams, v *bool) { p.Voice = v }},
	}
	values := []struct {
		why  string
		v    *bool
		want []string // nil: absent
	}{
		{"nil means all, so nothing is sent", nil, nil},
		{"true is sent", Ptr(true), []string{"true"}},
		{"false is sent, not dropped as a zero value", Ptr(false), []string{"false"}},
	}
	for _, f := range filters {
		for _, v := range values {
			t.Run(f.name+"/"+v.why, func(t *testing.T) {
				c, mt := newMockClient(t)
				got := reply(mt, "GET", numberBlocksPath, 200, fixture(t, numberBlockSearchFixture))
				p := &NumberBlockSearchParams{PropertySid: testProp}
				f.set(&p.NumberBlockListParams, v.v)
				_, err := c.NumberBlocks.Search(bg, p)
				require.NoError(t, err)
				assert.Equal(t, v.want, got.Query[f.name])
				assert.Equal(t, testProp, got.Query.Get("PropertySid"))
				assert.Len(t, got.Query, 1+len(v.want), "only PropertySid and the filter: %v", got.Query)
			})
		}
	}
}

func TestNumberBlocksSearchSendsOnlyWhatIsSet(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", numberBlocksPath, 200, fixture(t, numberBlockSearchFixture))
	_, err := c.NumberBlocks.Search(bg, &NumberBlockSearchParams{AccountSid: testSid})
	require.NoError(t, err)
	assert.Equal(t, url.Values{"AccountSid": {testSid}}, got.Query,
		"PageIndex 0, PageSize 0, IncludeTotalCount nil and the rest leave the service defaults")

	_, err = c.NumberBlocks.Search(bg, &NumberBlockSearchParams{PropertySid: testProp,
		NumberBlockListParams: NumberBlockListParams{IncludeTotalCount: Ptr(true), SortDir: "Asc"}})
	require.NoError(t, err)
	assert.Equal(t, url.Values{"PropertySid": {testProp}, "IncludeTotalCount": {"true"}, "SortDir": {"asc"}}, got.Query)
}

func TestNumberBlocksSearchDoesNotChangeTheCallersParams(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", numberBlocksPath, 200, fixture(t, numberBlockSearchFixture))
	p := &NumberBlockSearchParams{PropertySid: testProp, NumberBlockListParams: NumberBlockListParams{SortDir: "DESC", PageIndex: 2}}
	before := *p
	_, err := c.NumberBlocks.Search(bg, p)
	require.NoError(t, err)
	assert.Equal(t, before, *p)
}

func TestNumberBlocksSearchValidation(t *testing.T) {
	ok := func() NumberBlockSearchParams { return NumberBlockSearchParams{AccountSid: testSid} }
	cases := []struct {
		why   string
		edit  func(p *NumberBlockSearchParams)
		field string
		code  string
	}{
		{"neither AccountSid nor PropertySid", func(p *NumberBlockSearchParams) { p.AccountSid = "" }, "AccountSid", CodeParameterRequired},
		{"SIDs of spaces only", func(p *NumberBlockSearchParams) { p.AccountSid, p.PropertySid = " ", "\t" }, "AccountSid", CodeParameterRequired},
		{"Text alone is not an owner", func(p *NumberBlockSearchParams) { p.AccountSid, p.Text = "", "Spring" }, "AccountSid", CodeParameterRequired},
		{"SortDir up", func(p *NumberBlockSearchParams) { p.SortDir = "up" }, "SortDir", CodeParameterInvalid},
		{"SortDir ascending spelt out", func(p *NumberBlockSearchParams) { p.SortDir = "ascending" }, "SortDir", CodeParameterInvalid},
		{"negative PageIndex", func(p *NumberBlockSearchParams) { p.PageIndex = -1 }, "PageIndex", CodeParameterInvalid},
		{"negative PageSize", func(p *NumberBlockSearchParams) { p.PageSize = -1 }, "PageSize", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := ok()
			tc.edit(&p)
			_, err := c.NumberBlocks.Search(bg, &p)
			requireValidation(t, mt, err, "NumberBlocks.Search", tc.field, tc.code)
			assert.Equal(t, tc.code, ErrorCode(err))
			require.ErrorAs(t, p.Validate(), new(*ValidationError), "Validate agrees")
		})
	}
}

func TestNumberBlocksSearchValidationBoundariesPass(t *testing.T) {
	cases := []struct {
		why string
		p   NumberBlockSearchParams
	}{
		{"only PropertySid", NumberBlockSearchParams{PropertySid: testProp}},
		{"only AccountSid", NumberBlockSearchParams{AccountSid: testSid}},
		{"SortDir DESC in upper case", NumberBlockSearchParams{AccountSid: testSid, NumberBlockListParams: NumberBlockListParams{SortDir: "DESC"}}},
		{"SortDir asc", NumberBlockSearchParams{AccountSid: testSid, NumberBlockListParams: NumberBlockListParams{SortDir: "asc"}}},
		{"PageIndex and PageSize 0", NumberBlockSearchParams{PropertySid: testProp, NumberBlockListParams: NumberBlockListParams{PageIndex: 0, PageSize: 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "GET", numberBlocksPath, 200, fixture(t, numberBlockSearchFixture))
			_, err := c.NumberBlocks.Search(bg, &tc.p)
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
			assert.NoError(t, tc.p.Validate())
		})
	}
}

func TestNumberBlocksSearchWithoutValidationSendsAsGiven(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "GET", numberBlocksPath, 400, []byte(`{"ResponseStatus":{"ErrorCode":"PARAMETER_REQUIRED","Message":"AccountSid or PropertySid is required.","Errors":[{"FieldName":"AccountSid"}]}}`))
	_, err := c.NumberBlocks.Search(bg, &NumberBlockSearchParams{NumberBlockListParams: NumberBlockListParams{SortDir: "UP"}})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeParameterRequired, ae.Code)
	assert.Equal(t, "NumberBlocks.Search", ae.Op)
	assert.Equal(t, url.Values{"SortDir": {"up"}}, got.Query)
}

func TestNumberBlocksSearchTextEscapesOneSegment(t *testing.T) {
	cases := []struct {
		text string
		path string
	}{
		{"Spring sale/2024", numberBlockSearchTextPath},
		{"61299999901", "/v2/numberblocks/61299999901"},
		{"50% off?", "/v2/numberblocks/50%25%20off%3F"},
		{"a#b", "/v2/numberblocks/a%23b"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "GET", tc.path, 200, fixture(t, numberBlockSearchFixture))
			page, err := c.NumberBlocks.SearchText(bg, tc.text, &NumberBlockListParams{PageSize: 2, SortDir: "Desc"})
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
			assert.Equal(t, "GET", got.Method)
			assert.Equal(t, tc.path, got.Path)
			assertCommonHeaders(t, got.Header)
			assert.Equal(t, url.Values{"PageSize": {"2"}, "SortDir": {"desc"}}, got.Query,
				"the text travels in the path, not the query")
			require.Len(t, page.Data, 2)
			assert.Equal(t, numberBlockFirstSid, page.Data[0].NumberBlockSid)
		})
	}
}

func TestNumberBlocksSearchTextNilParams(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/numberblocks/Spring", 200, fixture(t, numberBlockSearchFixture))
	page, err := c.NumberBlocks.SearchText(bg, "Spring", nil)
	require.NoError(t, err)
	assert.Empty(t, got.Query)
	assert.Equal(t, 5, page.TotalCount)
}

func TestNumberBlocksListByPropertyAndAccount(t *testing.T) {
	lp := &NumberBlockListParams{Active: Ptr(false), Sms: Ptr(false), Voice: Ptr(true), IncludeAssociations: true, PageIndex: 1, PageSize: 5, SortBy: "Name", SortDir: "ASC"}
	want := url.Values{
		"Active": {"false"}, "Sms": {"false"}, "Voice": {"true"}, "IncludeAssociations": {"true"},
		"PageIndex": {"1"}, "PageSize": {"5"}, "SortBy": {"Name"}, "SortDir": {"asc"},
	}
	before := *lp

	t.Run("property", func(t *testing.T) {
		c, mt := newMockClient(t)
		got := reply(mt, "GET", numberBlocksPropertyPath, 200, fixture(t, numberBlockSearchFixture))
		page, err := c.NumberBlocks.ListByProperty(bg, testProp, lp)
		require.NoError(t, err)
		assert.Equal(t, "GET", got.Method)
		assert.Equal(t, numberBlocksPropertyPath, got.Path)
		assertCommonHeaders(t, got.Header)
		assert.Equal(t, want, got.Query, "the SID travels in the path only")
		require.Len(t, page.Data, 2)
		assert.Equal(t, numberBlockSecondSid, page.Data[1].NumberBlockSid)
	})
	t.Run("account", func(t *testing.T) {
		c, mt := newMockClient(t)
		got := reply(mt, "GET", numberBlocksAccountPath, 200, fixture(t, numberBlockSearchFixture))
		page, err := c.NumberBlocks.ListByAccount(bg, testSid, lp)
		require.NoError(t, err)
		assert.Equal(t, "GET", got.Method)
		assert.Equal(t, numberBlocksAccountPath, got.Path)
		assertCommonHeaders(t, got.Header)
		assert.Equal(t, want, got.Query)
		assert.Equal(t, 5, page.TotalCount)
	})
	t.Run("nil params", func(t *testing.T) {
		c, mt := newMockClient(t)
		gotP := reply(mt, "GET", numberBlocksPropertyPath, 200, fixture(t, numberBlockSearchFixture))
		gotA := reply(mt, "GET", numberBlocksAccountPath, 200, fixture(t, numberBlockSearchFixture))
		_, err := c.NumberBlocks.ListByProperty(bg, testProp, nil)
		require.NoError(t, err)
		_, err = c.NumberBlocks.ListByAccount(bg, testSid, nil)
		require.NoError(t, err)
		assert.Empty(t, gotP.Query)
		assert.Empty(t, gotA.Query)
	})
	t.Run("a SID is escaped", func(t *testing.T) {
		c, mt := newMockClient(t)
		got := reply(mt, "GET", "/v2/Properties/PR%2F..%3Fx/numberblocks", 200, fixture(t, numberBlockSearchFixture))
		_, err := c.NumberBlocks.ListByProperty(bg, "PR/..?x", nil)
		require.NoError(t, err)
		assert.Equal(t, "/v2/Properties/PR%2F..%3Fx/numberblocks", got.Path)
	})
	assert.Equal(t, before, *lp, "the caller's params are untouched")
}

func TestNumberBlocksListValidation(t *testing.T) {
	cases := []struct {
		why   string
		p     NumberBlockListParams
		field string
	}{
		{"SortDir up", NumberBlockListParams{SortDir: "up"}, "SortDir"},
		{"negative PageIndex", NumberBlockListParams{PageIndex: -2}, "PageIndex"},
		{"negative PageSize", NumberBlockListParams{PageSize: -10}, "PageSize"},
	}
	calls := []struct {
		op   string
		call func(c *Client, p *NumberBlockListParams) error
	}{
		{"NumberBlocks.SearchText", func(c *Client, p *NumberBlockListParams) error {
			_, err := c.NumberBlocks.SearchText(bg, "Spring", p)
			return err
		}},
		{"NumberBlocks.ListByProperty", func(c *Client, p *NumberBlockListParams) error {
			_, err := c.NumberBlocks.ListByProperty(bg, testProp, p)
			return err
		}},
		{"NumberBlocks.ListByAccount", func(c *Client, p *NumberBlockListParams) error {
			_, err := c.NumberBlocks.ListByAccount(bg, testSid, p)
			return err
		}},
	}
	for _, call := range calls {
		for _, tc := range cases {
			t.Run(call.op+"/"+tc.why, func(t *testing.T) {
				c, mt := newMockClient(t)
				p := tc.p
				requireValidation(t, mt, call.call(c, &p), call.op, tc.field, CodeParameterInvalid)
				require.ErrorAs(t, p.Validate(), new(*ValidationError), "Validate agrees")
			})
		}
	}
}

func TestNumberBlocksSearchAPIError(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", numberBlocksPropertyPath, 403, []byte(`{"ResponseStatus":{"ErrorCode":"FORBIDDEN","Message":"Access denied."}}`))
	page, err := c.NumberBlocks.ListByProperty(bg, testProp, nil)
	assert.Nil(t, page)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 403, ae.StatusCode)
	assert.Equal(t, CodeForbidden, ae.Code)
	assert.Equal(t, "Access denied.", ae.Message)
	assert.Equal(t, "NumberBlocks.ListByProperty", ae.Op)
}

func TestNumberBlocksSearchAllPagesUntilTotalCount(t *testing.T) {
	c, mt := newMockClient(t)
	got := numberBlockResponder(mt, "GET", numberBlocksPath,
		numberBlockAnswer{200, numberBlockPageBody(0, 2, 5, 1, 2)},
		numberBlockAnswer{200, numberBlockPageBody(1, 2, 5, 3, 4)},
		numberBlockAnswer{200, numberBlockPageBody(2, 2, 5, 5)},
		numberBlockAnswer{200, numberBlockPageBody(3, 2, 5, 99)},
	)
	p := &NumberBlockSearchParams{PropertySid: testProp, NumberBlockListParams: NumberBlockListParams{PageSize: 2, Active: Ptr(false), SortDir: "DESC"}}
	before := *p
	ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, p))
	assert.Empty(t, errs)
	assert.Equal(t, []int{1, 2, 3, 4, 5}, ids)
	require.Len(t, got.Querys, 3, "one request per page, none after the last")
	for i, q := range got.Querys {
		want := url.Values{"PropertySid": {testProp}, "PageSize": {"2"}, "Active": {"false"}, "SortDir": {"desc"}}
		if i > 0 {
			want.Set("PageIndex", fmt.Sprint(i))
		}
		assert.Equal(t, want, q, "page %d", i)
	}
	assert.Equal(t, before, *p, "the caller's params are untouched")
}

func TestNumberBlocksSearchAllStartsAtTheCallersPageIndex(t *testing.T) {
	c, mt := newMockClient(t)
	got := numberBlockResponder(mt, "GET", numberBlocksPath,
		numberBlockAnswer{200, numberBlockPageBody(1, 2, 5, 3, 4)},
		numberBlockAnswer{200, numberBlockPageBody(2, 2, 5, 5)},
		numberBlockAnswer{200, numberBlockPageBody(3, 2, 5, 99)},
	)
	p := &NumberBlockSearchParams{AccountSid: testSid, NumberBlockListParams: NumberBlockListParams{PageIndex: 1, PageSize: 2}}
	ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, p))
	assert.Empty(t, errs)
	assert.Equal(t, []int{3, 4, 5}, ids, "the 5 blocks from page 1 on are 3 blocks")
	require.Len(t, got.Querys, 2)
	assert.Equal(t, "1", got.Querys[0].Get("PageIndex"))
	assert.Equal(t, "2", got.Querys[1].Get("PageIndex"))
	assert.Equal(t, 1, p.PageIndex, "the caller's PageIndex is untouched")
}

func TestNumberBlocksSearchAllStopsAtAnExactTotal(t *testing.T) {
	c, mt := newMockClient(t)
	got := numberBlockResponder(mt, "GET", numberBlocksPath,
		numberBlockAnswer{200, numberBlockPageBody(0, 2, 4, 1, 2)},
		numberBlockAnswer{200, numberBlockPageBody(1, 2, 4, 3, 4)},
		numberBlockAnswer{200, numberBlockPageBody(2, 2, 4, 99)},
	)
	ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp,
		NumberBlockListParams: NumberBlockListParams{PageSize: 2}}))
	assert.Empty(t, errs)
	assert.Equal(t, []int{1, 2, 3, 4}, ids)
	assert.Len(t, got.Querys, 2, "full last page at TotalCount: no further request")
}

func TestNumberBlocksSearchAllDefaultPageSize(t *testing.T) {
	c, mt := newMockClient(t)
	got := numberBlockResponder(mt, "GET", numberBlocksPath,
		numberBlockAnswer{200, numberBlockPageBody(1, 10, 13, 11, 12, 13)},
		numberBlockAnswer{200, numberBlockPageBody(2, 10, 13, 99)},
	)
	ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp,
		NumberBlockListParams: NumberBlockListParams{PageIndex: 1}}))
	assert.Empty(t, errs)
	assert.Equal(t, []int{11, 12, 13}, ids, "page 1 of 10 holds the last 3 of 13")
	require.Len(t, got.Querys, 1)
	assert.Equal(t, url.Values{"PropertySid": {testProp}, "PageIndex": {"1"}}, got.Querys[0], "PageSize 0 is not sent")
}

func TestNumberBlocksSearchAllCountsWithTheServicesPageSize(t *testing.T) {
	// The caller asks for pages of 5 from page 1, the service answers pages
	// of 10: page 1 starts after block 10, so 15 of the 25 blocks remain.
	c, mt := newMockClient(t)
	got := numberBlockResponder(mt, "GET", numberBlocksPath,
		numberBlockAnswer{200, numberBlockPageBody(1, 10, 25, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)},
		numberBlockAnswer{200, numberBlockPageBody(2, 10, 25, 21, 22, 23, 24, 25)},
		numberBlockAnswer{200, numberBlockPageBody(3, 10, 25, 99)},
	)
	ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp,
		NumberBlockListParams: NumberBlockListParams{PageIndex: 1, PageSize: 5}}))
	assert.Empty(t, errs)
	assert.Equal(t, []int{11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}, ids)
	require.Len(t, got.Querys, 2)
	assert.Equal(t, "1", got.Querys[0].Get("PageIndex"))
	assert.Equal(t, "2", got.Querys[1].Get("PageIndex"))
}

func TestNumberBlocksSearchAllWithoutTotalStopsWhenDataRunsOut(t *testing.T) {
	t.Run("a short page", func(t *testing.T) {
		c, mt := newMockClient(t)
		got := numberBlockResponder(mt, "GET", numberBlocksPath,
			numberBlockAnswer{200, numberBlockPageBody(0, 2, 0, 1, 2)},
			numberBlockAnswer{200, numberBlockPageBody(1, 2, 0, 3)},
			numberBlockAnswer{200, numberBlockPageBody(2, 2, 0, 99)},
		)
		ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp,
			NumberBlockListParams: NumberBlockListParams{PageSize: 2, IncludeTotalCount: Ptr(false)}}))
		assert.Empty(t, errs)
		assert.Equal(t, []int{1, 2, 3}, ids)
		assert.Len(t, got.Querys, 2)
		assert.Equal(t, "false", got.Querys[1].Get("IncludeTotalCount"))
	})
	t.Run("an empty page", func(t *testing.T) {
		c, mt := newMockClient(t)
		got := numberBlockResponder(mt, "GET", numberBlocksPath,
			numberBlockAnswer{200, numberBlockPageBody(0, 2, 0, 1, 2)},
			numberBlockAnswer{200, numberBlockPageBody(1, 2, 0, 3, 4)},
			numberBlockAnswer{200, numberBlockPageBody(2, 2, 0)},
			numberBlockAnswer{200, numberBlockPageBody(3, 2, 0, 99)},
		)
		ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp,
			NumberBlockListParams: NumberBlockListParams{PageSize: 2, IncludeTotalCount: Ptr(false)}}))
		assert.Empty(t, errs)
		assert.Equal(t, []int{1, 2, 3, 4}, ids)
		assert.Len(t, got.Querys, 3)
	})
	t.Run("an empty first page", func(t *testing.T) {
		c, mt := newMockClient(t)
		got := numberBlockResponder(mt, "GET", numberBlocksPath, numberBlockAnswer{200, numberBlockPageBody(0, 10, 0)})
		ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp}))
		assert.Empty(t, errs)
		assert.Empty(t, ids)
		assert.Len(t, got.Querys, 1)
	})
}

func TestNumberBlocksSearchAllStopsOnBreak(t *testing.T) {
	c, mt := newMockClient(t)
	got := numberBlockResponder(mt, "GET", numberBlocksPath,
		numberBlockAnswer{200, numberBlockPageBody(0, 2, 6, 1, 2)},
		numberBlockAnswer{200, numberBlockPageBody(1, 2, 6, 3, 4)},
	)
	seq := c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp, NumberBlockListParams: NumberBlockListParams{PageSize: 2}})
	assert.Zero(t, mt.GetTotalCallCount(), "nothing is fetched before the loop runs")
	var ids []int
	for b, err := range seq {
		require.NoError(t, err)
		ids = append(ids, b.ID)
		if b.ID == 3 {
			break
		}
	}
	assert.Equal(t, []int{1, 2, 3}, ids)
	assert.Len(t, got.Querys, 2, "no page after the break")

	n := 0
	for range c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp, NumberBlockListParams: NumberBlockListParams{PageSize: 2}}) {
		n++
		break
	}
	assert.Equal(t, 1, n)
	assert.Len(t, got.Querys, 3, "a break on the first item fetches one page")
}

func TestNumberBlocksSearchAllYieldsAnErrorOnce(t *testing.T) {
	c, mt := newMockClient(t)
	got := numberBlockResponder(mt, "GET", numberBlocksPath,
		numberBlockAnswer{200, numberBlockPageBody(0, 2, 6, 1, 2)},
		numberBlockAnswer{400, `{"ResponseStatus":{"ErrorCode":"ACCOUNT_NOT_FOUND","Message":"Account not found."}}`},
		numberBlockAnswer{200, numberBlockPageBody(2, 2, 6, 5, 6)},
	)
	ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{AccountSid: testSid,
		NumberBlockListParams: NumberBlockListParams{PageSize: 2}}))
	assert.Equal(t, []int{1, 2}, ids)
	require.Len(t, errs, 1)
	var ae *APIError
	require.ErrorAs(t, errs[0], &ae)
	assert.Equal(t, CodeAccountNotFound, ae.Code)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Len(t, got.Querys, 2, "no request after the error")
}

func TestNumberBlocksSearchAllDetectsARepeatedPage(t *testing.T) {
	c, mt := newMockClient(t)
	same := numberBlockPageBody(0, 2, 0, 1, 2)
	got := numberBlockResponder(mt, "GET", numberBlocksPath, numberBlockAnswer{200, same})
	ids, errs := numberBlockIDs(t, c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp,
		NumberBlockListParams: NumberBlockListParams{PageSize: 2}}))
	assert.Equal(t, []int{1, 2}, ids)
	require.Len(t, errs, 1, "a server ignoring PageIndex ends the loop with one error")
	assert.Len(t, got.Querys, 2)
}

func TestNumberBlocksAllYieldValidationErrorsOnce(t *testing.T) {
	cases := []struct {
		why   string
		seq   func(c *Client) func(func(NumberBlock, error) bool)
		op    string
		field string
		code  string
	}{
		{"SearchAll nil params", func(c *Client) func(func(NumberBlock, error) bool) {
			return c.NumberBlocks.SearchAll(bg, nil)
		}, "NumberBlocks.Search", "AccountSid", CodeParameterRequired},
		{"SearchAll bad SortDir", func(c *Client) func(func(NumberBlock, error) bool) {
			return c.NumberBlocks.SearchAll(bg, &NumberBlockSearchParams{PropertySid: testProp, NumberBlockListParams: NumberBlockListParams{SortDir: "up"}})
		}, "NumberBlocks.Search", "SortDir", CodeParameterInvalid},
		{"SearchTextAll empty text", func(c *Client) func(func(NumberBlock, error) bool) {
			return c.NumberBlocks.SearchTextAll(bg, "", nil)
		}, "NumberBlocks.SearchText", "Text", CodeParameterRequired},
		{"ListByPropertyAll empty SID", func(c *Client) func(func(NumberBlock, error) bool) {
			return c.NumberBlocks.ListByPropertyAll(bg, "", nil)
		}, "NumberBlocks.ListByProperty", "PropertySid", CodeParameterRequired},
		{"ListByAccountAll negative PageSize", func(c *Client) func(func(NumberBlock, error) bool) {
			return c.NumberBlocks.ListByAccountAll(bg, testSid, &NumberBlockListParams{PageSize: -1})
		}, "NumberBlocks.ListByAccount", "PageSize", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			ids, errs := numberBlockIDs(t, tc.seq(c))
			assert.Empty(t, ids)
			require.Len(t, errs, 1)
			requireValidation(t, mt, errs[0], tc.op, tc.field, tc.code)
		})
	}
}

func TestNumberBlocksAllTwinsPageTheirOwnPaths(t *testing.T) {
	cases := []struct {
		name string
		path string
		seq  func(c *Client, p *NumberBlockListParams) func(func(NumberBlock, error) bool)
	}{
		{"SearchTextAll", numberBlockSearchTextPath, func(c *Client, p *NumberBlockListParams) func(func(NumberBlock, error) bool) {
			return c.NumberBlocks.SearchTextAll(bg, "Spring sale/2024", p)
		}},
		{"ListByPropertyAll", numberBlocksPropertyPath, func(c *Client, p *NumberBlockListParams) func(func(NumberBlock, error) bool) {
			return c.NumberBlocks.ListByPropertyAll(bg, testProp, p)
		}},
		{"ListByAccountAll", numberBlocksAccountPath, func(c *Client, p *NumberBlockListParams) func(func(NumberBlock, error) bool) {
			return c.NumberBlocks.ListByAccountAll(bg, testSid, p)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := numberBlockResponder(mt, "GET", tc.path,
				numberBlockAnswer{200, numberBlockPageBody(2, 2, 7, 5, 6)},
				numberBlockAnswer{200, numberBlockPageBody(3, 2, 7, 7)},
				numberBlockAnswer{200, numberBlockPageBody(4, 2, 7, 99)},
			)
			p := &NumberBlockListParams{PageIndex: 2, PageSize: 2, Sms: Ptr(true), SortDir: "Desc"}
			before := *p
			ids, errs := numberBlockIDs(t, tc.seq(c, p))
			assert.Empty(t, errs)
			assert.Equal(t, []int{5, 6, 7}, ids)
			require.Len(t, got.Querys, 2, "TotalCount 7 from page 2 of 2 leaves 3 blocks")
			assert.Equal(t, tc.path, got.Path)
			for i, q := range got.Querys {
				assert.Equal(t, url.Values{"PageIndex": {fmt.Sprint(2 + i)}, "PageSize": {"2"}, "Sms": {"true"}, "SortDir": {"desc"}}, q, "page %d", i)
			}
			assert.Equal(t, before, *p, "the caller's params are untouched")

			// A nil params value pages from 0 with the service's page size.
			c, mt = newMockClient(t)
			got = numberBlockResponder(mt, "GET", tc.path,
				numberBlockAnswer{200, numberBlockPageBody(0, 10, 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)},
				numberBlockAnswer{200, numberBlockPageBody(1, 10, 11, 11)},
				numberBlockAnswer{200, numberBlockPageBody(2, 10, 11, 99)},
			)
			ids, errs = numberBlockIDs(t, tc.seq(c, nil))
			assert.Empty(t, errs)
			assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, ids)
			require.Len(t, got.Querys, 2)
			assert.Empty(t, got.Querys[0])
			assert.Equal(t, url.Values{"PageIndex": {"1"}}, got.Querys[1])
		})
	}
}

// stringifyInts rewrites every integer value of a JSON body as a string
// holding it, as some of the service's listings send counts.
func stringifyInts(b []byte) []byte {
	return regexp.MustCompile(`(":\s*)(-?\d+)([,\s}\]])`).ReplaceAll(b, []byte(`$1"$2"$3`))
}

func TestBlockPageReadsNumericStrings(t *testing.T) {
	t.Parallel()
	ptr := func(n int) *int { return &n }
	cases := []struct {
		name string
		body string
		want NumberBlockPage
	}{
		{name: "page counts", body: `{"Data":[],"PageIndex":"2","PageSize":"10","TotalCount":"31","SortBy":"Id","SortDir":"asc"}`,
			want: NumberBlockPage{Data: []NumberBlock{}, PageIndex: 2, PageSize: 10, TotalCount: 31, SortBy: "Id", SortDir: "asc"}},
		{name: "a count that is not a number is unknown", body: `{"Data":[],"TotalCount":"many"}`,
			want: NumberBlockPage{Data: []NumberBlock{}}},
		{name: "block integers", body: `{"Data":[{"Id":"12","SipTrunkId":"7","BlockSize":"100","Action":" 2 ","NumberBlockSid":"NB1","Active":true}],"TotalCount":1}`,
			want: NumberBlockPage{Data: []NumberBlock{{ID: 12, SipTrunkID: ptr(7), BlockSize: 100, Action: 2, NumberBlockSid: "NB1", Active: true}}, TotalCount: 1}},
		{name: "empty string and null", body: `{"Data":[{"Id":"","SipTrunkId":null,"BlockSize":null}]}`,
			want: NumberBlockPage{Data: []NumberBlock{{}}}},
		{name: "analytics number id", body: `{"Data":[{"Id":1,"AnalyticsDynamicNumbers":[{"Id":"88001","PublicNumber":"+61299999901"}]}]}`,
			want: NumberBlockPage{Data: []NumberBlock{{ID: 1, AnalyticsDynamicNumbers: []AnalyticsNumber{{ID: 88001, PublicNumber: "+61299999901"}}}}}},
		{name: "bare array", body: `[{"Id":1},{"Id":2}]`,
			want: NumberBlockPage{Data: []NumberBlock{{ID: 1}, {ID: 2}}}},
		{name: "bare array with a string id", body: `[{"Id":"3"}]`,
			want: NumberBlockPage{Data: []NumberBlock{{ID: 3}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var p blockPage
			require.NoError(t, p.decodeBody([]byte(tc.body)))
			assert.Equal(t, tc.want, p.page)
		})
	}
}

func TestBlockPageRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"Data":[{"Id":"twelve"}]}`, // an identifier never silently becomes 0
		`{"Data":[{"Id":true}]}`,
		`{"Data":[{"Id":"1.5"}]}`,
		`{"Data":[{"SipTrunkId":{}}]}`,
		`{"Data":"x"}`,
		`[{"Id":"x"}]`,
		`[1]`,
		`{"Data":[`,
	} {
		var p blockPage
		assert.Error(t, p.decodeBody([]byte(body)), body)
	}
}

// The tolerant path gives what the strict one does on the documented
// answer, and the same again when every integer comes as a string.
func TestBlockPageTolerantPathAgrees(t *testing.T) {
	t.Parallel()
	body := fixture(t, numberBlockSearchFixture)
	var strict NumberBlockPage
	require.NoError(t, json.Unmarshal(body, &strict))
	var p blockPage
	require.NoError(t, p.decodeBody(body))
	assert.Equal(t, strict, p.page)

	strung := stringifyInts(body)
	require.Error(t, json.Unmarshal(strung, new(NumberBlockPage)), "the rewrite must defeat the strict path")
	var q blockPage
	require.NoError(t, q.decodeBody(strung))
	assert.Equal(t, canonicalRaw(strict), canonicalRaw(q.page), "the same values; an assignment's spacing is not kept")
}

func TestNumberBlocksSearchWithStringCounts(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	reply(mt, "GET", numberBlocksPropertyPath, 200, stringifyInts(fixture(t, numberBlockSearchFixture)))
	page, err := c.NumberBlocks.ListByProperty(bg, testProp, nil)
	require.NoError(t, err)
	var strict NumberBlockPage
	require.NoError(t, json.Unmarshal(fixture(t, numberBlockSearchFixture), &strict))
	assert.Equal(t, canonicalRaw(&strict), canonicalRaw(page))
	assert.Positive(t, page.TotalCount)
}

func TestFlexInt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want int
		ok   bool
	}{
		{`12`, 12, true}, {`-3`, -3, true}, {`"12"`, 12, true}, {`" 12 "`, 12, true}, {`""`, 0, true},
		{`null`, 0, true}, {`"x"`, 0, false}, {`1.5`, 0, false}, {`true`, 0, false}, {`"99999999999999999999"`, 0, false},
	}
	for _, tc := range cases {
		n := flexInt(-1)
		if tc.in == `null` {
			n = 0 // null leaves the value as it was
		}
		err := n.UnmarshalJSON([]byte(tc.in))
		if !tc.ok {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, flexInt(tc.want), n, tc.in)
	}
}

// BenchmarkBlockPage compares the documented answer read by blockPage with
// plain json.Unmarshal, which is what the service method did before the
// tolerant fallback existed.
func BenchmarkBlockPage(b *testing.B) {
	body := fixture(b, numberBlockSearchFixture)
	b.Run("impl=plain", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var p NumberBlockPage
			if err := json.Unmarshal(body, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=blockPage", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var p blockPage
			if err := p.decodeBody(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

const testBlock = "NBJ3K4L5M6N7P8Q9R2S3T4U5V6W7X8Y9"

func TestPurchaseNumberBlockWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", "/v2/Properties/"+testProp+"/NumberBlocks", 200, fixture(t, "purchase_number_block.json"))
	res, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{
		AnswerPoint: "+61299990000", GroupType: Ptr(0), Preamble: Ptr(2), RoutingAction: Ptr(3), Dialplan: "AU-Std",
		Extra: map[string]any{"BlockSize": 100}})
	require.NoError(t, err)
	assert.Equal(t, "POST", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"AnswerPoint":"+61299990000","PropertySid":"`+testProp+`","GroupType":0,"Preamble":2,
		"RoutingAction":3,"Diaplan":"AU-Std","BlockSize":100}`, string(got.Body),
		"the path's project is the owner when none is given; Dialplan goes by the page's spelling; Extra is merged")

	assert.Equal(t, testBlock, res.NumberBlockSid)
	assert.Nil(t, res.Block, "the confirmation holds no block")
	assert.JSONEq(t, string(fixture(t, "purchase_number_block.json")), string(res.Raw), "the answer stays reachable")

	// An account owner is sent alone.
	_, err = c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299990000", AccountSid: testSid})
	require.NoError(t, err)
	assert.JSONEq(t, `{"AnswerPoint":"0299990000","AccountSid":"`+testSid+`"}`, string(got.Body))
}

func TestPurchaseNumberBlockTolerantAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		sid        string
		block      bool
	}{
		{"empty", ``, "", false},
		{"bare block", `{"NumberBlockSid":"NB1","Id":7,"BlockSize":100}`, "NB1", true},
		{"wrapped block", `{"NumberBlock":{"NumberBlockSid":"NB2","Id":"8"}}`, "NB2", true},
		{"under Data", `{"Data":{"NumberBlockSid":"NB3"}}`, "NB3", true},
		{"a bare word", `"OK"`, "", false},
		{"unknown object", `{"Confirmation":"C-1"}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "POST", "/v2/Properties/"+testProp+"/NumberBlocks", 200, []byte(tc.body))
			res, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299990000"})
			require.NoError(t, err)
			assert.Equal(t, tc.sid, res.NumberBlockSid)
			assert.Equal(t, tc.block, res.Block != nil)
			if tc.body != "" {
				assert.JSONEq(t, tc.body, string(res.Raw))
			}
		})
	}
}

// Purchase is not idempotent: a failure after the request may have reached
// the service is not retried and matches ErrMaybeSent.
func TestPurchaseNumberBlockIsNotRetriedBlindly(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinWait: 1, MaxWait: 2}))
	mt.RegisterResponder("POST", testBase+"/v2/Properties/"+testProp+"/NumberBlocks",
		httpmock.NewStringResponder(http.StatusBadGateway, "bad gateway"))
	_, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299990000"})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrMaybeSent)
	assert.Equal(t, 1, mt.GetTotalCallCount())

	// Configure sets a routing: repeating it is harmless, so it is retried.
	mt.RegisterResponder("POST", testBase+"/v2/numberblocks/NB1", httpmock.ResponderFromMultipleResponses(
		[]*http.Response{httpmock.NewStringResponse(http.StatusBadGateway, ""), httpmock.NewStringResponse(200, `{"NumberBlockSid":"NB1"}`)}))
	res, err := c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F1"})
	require.NoError(t, err)
	assert.Equal(t, "NB1", res.NumberBlockSid)
	assert.Equal(t, 3, mt.GetTotalCallCount())
}

func TestPurchaseNumberBlockValidation(t *testing.T) {
	for _, tc := range []struct {
		name        string
		p           PurchaseNumberBlockParams
		field, code string
	}{
		{"the answer point is required", PurchaseNumberBlockParams{}, "AnswerPoint", CodeParameterRequired},
		{"GroupType is 0 or 1", PurchaseNumberBlockParams{AnswerPoint: "0299990000", GroupType: Ptr(2)}, "GroupType", CodeParameterInvalid},
		{"Preamble is 0 to 2", PurchaseNumberBlockParams{AnswerPoint: "0299990000", Preamble: Ptr(-1)}, "Preamble", CodeParameterInvalid},
		{"RoutingAction is 0 to 3", PurchaseNumberBlockParams{AnswerPoint: "0299990000", RoutingAction: Ptr(4)}, "RoutingAction", CodeParameterInvalid},
		{"Extra cannot override a field", PurchaseNumberBlockParams{AnswerPoint: "0299990000", Extra: map[string]any{"answerpoint": "x"}},
			"Extra.answerpoint", CodeConflictingParameters},
		{"the project is the path's", PurchaseNumberBlockParams{AnswerPoint: "0299990000", PropertySid: "PROTHER"}, "PropertySid", CodeConflictingParameters},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.NumberBlocks.Purchase(bg, testProp, &tc.p)
			requireValidation(t, mt, err, "NumberBlocks.Purchase", tc.field, tc.code)
		})
	}
}

func TestConfigureNumberBlockWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", "/v2/numberblocks/"+testBlock, 200, fixture(t, "configure_number_block.json"))
	res, err := c.NumberBlocks.Configure(bg, testBlock, &ConfigureNumberBlockParams{RoutingMethod: "Endpoint", EndpointNumber: "+61299990000"})
	require.NoError(t, err)
	assert.Equal(t, "POST", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.JSONEq(t, `{"RoutingMethod":"endpoint","EndpointNumber":"+61299990000"}`, string(got.Body), "sent in lower case, as the page writes it")
	require.NotNil(t, res.Block)
	assert.Equal(t, testBlock, res.NumberBlockSid)
	assert.Equal(t, 4711, res.Block.ID, "an integer sent as a string is read")
	assert.Equal(t, "61299990000", res.Block.TerminationNumber)
	assert.Equal(t, 100, res.Block.BlockSize)
	assert.Contains(t, string(res.Raw), `"Confirmed": true`, "fields the SDK does not know stay in Raw")

	for _, p := range []ConfigureNumberBlockParams{
		{RoutingMethod: BlockRoutingFlow, Flow: "CFG-42"},
		{RoutingMethod: BlockRoutingApplication, Application: "APP-7"},
	} {
		_, err := c.NumberBlocks.Configure(bg, testBlock, &p)
		require.NoError(t, err)
		want := map[string]any{"RoutingMethod": string(p.RoutingMethod)}
		if p.Flow != "" {
			want["Flow"] = p.Flow
		} else {
			want["Application"] = p.Application
		}
		assert.Equal(t, want, got.bodyMap(t))
	}
}

func TestConfigureNumberBlockValidation(t *testing.T) {
	for _, tc := range []struct {
		name        string
		p           ConfigureNumberBlockParams
		field, code string
	}{
		{"a routing method is required", ConfigureNumberBlockParams{}, "RoutingMethod", CodeParameterRequired},
		{"only three methods", ConfigureNumberBlockParams{RoutingMethod: "sip"}, "RoutingMethod", CodeParameterInvalid},
		{"endpoint needs a number", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingEndpoint}, "EndpointNumber", CodeParameterRequired},
		{"flow needs a flow", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow}, "Flow", CodeParameterRequired},
		{"application needs an application", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingApplication}, "Application", CodeParameterRequired},
		{"the answering point is Australian", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingEndpoint, EndpointNumber: "+6491234567"},
			"EndpointNumber", CodeInvalidPhoneNumberFormat},
		{"another method's field would be ignored", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F", EndpointNumber: "0299990000"},
			"EndpointNumber", CodeConflictingParameters},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.NumberBlocks.Configure(bg, testBlock, &tc.p)
			requireValidation(t, mt, err, "NumberBlocks.Configure", tc.field, tc.code)
		})
	}
}

func TestConfigureNumberBlockUndecodableAnswer(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", "/v2/numberblocks/NB1", 200, []byte(`<html>ok</html>`))
	_, err := c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F"})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "undecodable response body", ae.Message)
	assert.False(t, errors.Is(err, ErrMaybeSent), "Configure is idempotent")
}

// FuzzNumberBlockResult: the tolerant reader of NumberBlocks.Purchase and
// Configure answers takes any body without panicking; a body that is JSON
// is kept whole in Raw, one that is not is an error. JSON is refused only
// as the service's refusal, or for a block the searches refuse too, with
// their error.
func FuzzNumberBlockResult(f *testing.F) {
	for _, name := range []string{"purchase_number_block.json", "configure_number_block.json"} {
		f.Add(fixture(f, name))
	}
	for _, s := range []string{`{"NumberBlockSid":"NB1","Id":"x"}`, `{"NumberBlock":[]}`, `{"Data":{"Id":1e99}}`,
		`"OK"`, `[]`, `null`, `{"ResponseStatus":{"ErrorCode":"FORBIDDEN"}}`, `<html>`,
		"5" + strings.Repeat("5", 400)} { // beyond a float64
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r blockResult
		err := r.decodeBody(b)
		if !json.Valid(b) {
			if err == nil {
				t.Fatalf("accepted a body that is not JSON: %q", b)
			}
			return
		}
		if _, refused := err.(*refusal); err != nil && !refused && !searchRefuses(b, err) {
			t.Fatalf("JSON refused with %v, which the searches read: %q", err, b)
		}
		if err == nil && !json.Valid(r.res.Raw) {
			t.Fatalf("Raw is not the JSON answer: %q", r.res.Raw)
		}
		if r.res.Block != nil && r.res.NumberBlockSid == "" && r.res.Block.NumberBlockSid != "" {
			t.Fatalf("the block's SID was not carried up")
		}
	})
}

// searchRefuses reports whether a block of the answer b (under NumberBlock
// or Data, or b itself) fails in a search's page with the error err.
func searchRefuses(b []byte, err error) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	candidates := [][]byte{b}
	for k, v := range m {
		if strings.EqualFold(k, "NumberBlock") || strings.EqualFold(k, "Data") {
			candidates = append(candidates, v)
		}
	}
	for _, c := range candidates {
		var p blockPage
		if perr := p.decodeBody([]byte(`[` + string(c) + `]`)); perr != nil && perr.Error() == err.Error() {
			return true
		}
	}
	return false
}

// A block whose datetime the searches refuse is refused by Purchase and
// Configure too, with the searches' error: an *APIError with the status,
// "undecodable response body", a bounded copy of the body and the same
// decode error, matching ErrMaybeSent for Purchase only (it bought the
// block all the same). Before, the block was dropped and the call
// returned neither a block nor an error.
func TestNumberBlockAnswersWithABadDateFailLikeTheSearches(t *testing.T) {
	const bad = `{"Id":7,"NumberBlockSid":"NB1","BlockSize":100,"Created":"/Date(1577836800000+2500)/"}`
	search := func(t *testing.T) *APIError {
		c, mt := newMockClient(t)
		reply(mt, "GET", numberBlocksPropertyPath, 200, []byte(`{"Data":[`+bad+`],"PageIndex":0,"PageSize":10,"TotalCount":1}`))
		_, err := c.NumberBlocks.ListByProperty(bg, testProp, nil)
		var ae *APIError
		require.ErrorAs(t, err, &ae)
		return ae
	}(t)
	require.Equal(t, "undecodable response body", search.Message)
	require.Error(t, errors.Unwrap(search))
	assert.Contains(t, errors.Unwrap(search).Error(), "bad offset")

	bodies := map[string]string{
		"wrapped":        `{"NumberBlockSid":"NB1","NumberBlock":` + bad + `}`,
		"wrapped alone":  `{"NumberBlock":` + bad + `}`,
		"under Data":     `{"Data":` + bad + `}`,
		"bare":           bad,
		"string Id too":  `{"NumberBlock":{"Id":"7","NumberBlockSid":"NB1","Modified":"/Date(1577836800000+:000)/"}}`,
		"quarantine end": `{"NumberBlock":{"Id":7,"NumberBlockSid":"NB1","QuarantineEndDate":"/Date(x)/"}}`,
	}
	calls := []struct {
		op, path  string
		maybeSent bool
		call      func(c *Client) (*NumberBlockResult, error)
	}{
		{"NumberBlocks.Purchase", "/v2/Properties/" + testProp + "/NumberBlocks", true, func(c *Client) (*NumberBlockResult, error) {
			return c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299990000"})
		}},
		{"NumberBlocks.Configure", "/v2/numberblocks/NB1", false, func(c *Client) (*NumberBlockResult, error) {
			return c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F1"})
		}},
	}
	for _, cl := range calls {
		for name, body := range bodies {
			t.Run(cl.op+"/"+name, func(t *testing.T) {
				c, mt := newMockClient(t)
				reply(mt, "POST", cl.path, 200, []byte(body))
				res, err := cl.call(c)
				assert.Nil(t, res, "no result beside the error")
				var ae *APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, cl.op, ae.Op)
				assert.Equal(t, http.StatusOK, ae.StatusCode)
				assert.Equal(t, search.Message, ae.Message)
				assert.Equal(t, body, string(ae.Body), "a bounded copy of the body")
				require.Error(t, errors.Unwrap(ae), "the decode error is kept")
				assert.Empty(t, ae.Code, "not a refusal of the service")
				assert.Equal(t, cl.maybeSent, errors.Is(err, ErrMaybeSent))
				assert.Equal(t, 1, mt.GetTotalCallCount(), "not retried")
			})
		}
	}

	// The same decode error as the search's, for the same block.
	c, mt := newMockClient(t)
	reply(mt, "POST", "/v2/numberblocks/NB1", 200, []byte(`{"NumberBlock":`+bad+`}`))
	_, err := c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F1"})
	require.Error(t, err)
	assert.Equal(t, errors.Unwrap(search).Error(), errors.Unwrap(err).Error())

	// A body of a too-long answer is kept bounded, as for the searches.
	long := `{"NumberBlock":{"Id":7,"Name":"` + strings.Repeat("n", 10000) + `","Created":"/Date(0+2500)/"}}`
	c, mt = newMockClient(t)
	reply(mt, "POST", "/v2/numberblocks/NB1", 200, []byte(long))
	_, err = c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F1"})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Less(t, len(ae.Body), len(long))
	assert.Equal(t, long[:len(ae.Body)], string(ae.Body))
}
