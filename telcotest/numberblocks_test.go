package telcotest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// addBlocks gives the project the four blocks the search tests use, in
// this order: Sydney sales, Melbourne support, Brisbane SMS, Perth.
func addBlocks(t *testing.T, srv *telcotest.Server, propertySid string) {
	t.Helper()
	assoc := []telco.NumberBlockAssignment{{Raw: json.RawMessage(`{"PropertySid":"` + propertySid + `"}`)}}
	analytics := []telco.AnalyticsNumber{{ID: 7, PublicNumber: "61290000001", Active: true, CountryCode: "AU"}}
	for _, b := range []telco.NumberBlock{
		{Number: "6129000XXXX", Name: "Sydney sales", FriendlyName: "Sales", Active: true, SupportsVoice: true, SupportsSms: true,
			NumberBlockAssignments: assoc, AnalyticsDynamicNumbers: analytics},
		{Number: "6139000XXXX", Name: "Melbourne support", FriendlyName: "Support", Active: true, SupportsVoice: true},
		{Number: "6179000XXXX", Name: "Brisbane SMS", FriendlyName: "Texts", Active: false, SupportsSms: true},
		{NumberPattern: "6189000XXXX", Name: "Perth", FriendlyName: "West", Active: false},
	} {
		srv.AddNumberBlock(propertySid, b)
	}
}

func blockNames(p *telco.NumberBlockPage) []string {
	var out []string
	for _, b := range p.Data {
		out = append(out, b.Name)
	}
	return out
}

func TestNumberBlocks_AddFillsIdentity(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	before := time.Now().Add(-time.Millisecond)
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Number: "6129000XXXX", Name: "A"})
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{NumberPattern: "6139000XXXX", Name: "B"})
	fixed := telco.DateTime{Time: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)}
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{ID: 500, NumberBlockSid: "NBFIXED", Number: "6149000XXXX", Name: "C", Created: fixed})
	after := time.Now().Add(time.Millisecond)

	page, err := srv.Client().NumberBlocks.ListByProperty(testCtx(t), srv.PropertySid, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 3)
	a, b, c := page.Data[0], page.Data[1], page.Data[2]
	assert.NotZero(t, a.ID)
	assert.NotZero(t, b.ID)
	assert.NotEqual(t, a.ID, b.ID)
	assert.Regexp(t, `^[A-Z0-9]{32}$`, a.NumberBlockSid)
	assert.NotEqual(t, a.NumberBlockSid, b.NumberBlockSid)
	for _, blk := range []telco.NumberBlock{a, b} {
		assert.False(t, blk.Created.Before(before), "Created %v", blk.Created)
		assert.False(t, blk.Created.After(after), "Created %v", blk.Created)
	}
	assert.Equal(t, "6129000XXXX", a.NumberPattern, "NumberPattern follows Number")
	assert.Equal(t, "6139000XXXX", b.Number, "Number follows NumberPattern")

	assert.Equal(t, 500, c.ID, "given values are kept")
	assert.Equal(t, "NBFIXED", c.NumberBlockSid)
	assert.True(t, fixed.Equal(c.Created.Time))
}

func TestNumberBlocks_SearchNeedsAccountOrProject(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := raw(t, srv, http.MethodGet, "/v2/numberblocks", "")
	assert.Equal(t, http.StatusBadRequest, r.Status)
	w := errorBody(t, r)
	assert.Equal(t, telco.CodeParameterRequired, w.ResponseStatus.ErrorCode)
	require.NotEmpty(t, w.ResponseStatus.Errors)
	assert.Equal(t, "AccountSid", w.ResponseStatus.Errors[0].FieldName)

	_, err := srv.Client(telco.WithClientValidation(false)).NumberBlocks.Search(testCtx(t), &telco.NumberBlockSearchParams{Text: "x"})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterRequired)

	_, err = srv.Client().NumberBlocks.Search(testCtx(t), &telco.NumberBlockSearchParams{AccountSid: "AC" + strings.Repeat("X", 30)})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAccountNotFound)
}

func TestNumberBlocks_Filters(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	addBlocks(t, srv, srv.PropertySid)
	c := srv.Client()
	for _, tc := range []struct {
		name string
		lp   telco.NumberBlockListParams
		want []string
	}{
		{"all", telco.NumberBlockListParams{}, []string{"Sydney sales", "Melbourne support", "Brisbane SMS", "Perth"}},
		{"active", telco.NumberBlockListParams{Active: telco.Ptr(true)}, []string{"Sydney sales", "Melbourne support"}},
		{"inactive", telco.NumberBlockListParams{Active: telco.Ptr(false)}, []string{"Brisbane SMS", "Perth"}},
		{"sms", telco.NumberBlockListParams{Sms: telco.Ptr(true)}, []string{"Sydney sales", "Brisbane SMS"}},
		{"no sms", telco.NumberBlockListParams{Sms: telco.Ptr(false)}, []string{"Melbourne support", "Perth"}},
		{"voice", telco.NumberBlockListParams{Voice: telco.Ptr(true)}, []string{"Sydney sales", "Melbourne support"}},
		{"active sms", telco.NumberBlockListParams{Active: telco.Ptr(true), Sms: telco.Ptr(true)}, []string{"Sydney sales"}},
		{"inactive voice", telco.NumberBlockListParams{Active: telco.Ptr(false), Voice: telco.Ptr(true)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := c.NumberBlocks.Search(testCtx(t), &telco.NumberBlockSearchParams{PropertySid: srv.PropertySid, NumberBlockListParams: tc.lp})
			require.NoError(t, err)
			assert.Equal(t, tc.want, blockNames(page))
			assert.Equal(t, len(tc.want), page.TotalCount)
		})
	}
}

func TestNumberBlocks_TextSearch(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	addBlocks(t, srv, srv.PropertySid)
	c := srv.Client()
	ctx := testCtx(t)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"sydney", []string{"Sydney sales"}},       // Name, without case
		{"SUPPORT", []string{"Melbourne support"}}, // Name and FriendlyName
		{"texts", []string{"Brisbane SMS"}},        // FriendlyName
		{"6189", []string{"Perth"}},                // Number
		{"9000", []string{"Sydney sales", "Melbourne support", "Brisbane SMS", "Perth"}},
		{"nowhere", nil},
	} {
		page, err := c.NumberBlocks.Search(ctx, &telco.NumberBlockSearchParams{AccountSid: srv.AccountSid, Text: tc.text})
		require.NoError(t, err)
		assert.Equal(t, tc.want, blockNames(page), "Search Text %q", tc.text)

		page, err = c.NumberBlocks.SearchText(ctx, tc.text, nil)
		require.NoError(t, err)
		assert.Equal(t, tc.want, blockNames(page), "SearchText %q", tc.text)
	}
	// A text with a space travels as one escaped path segment.
	page, err := c.NumberBlocks.SearchText(ctx, "sydney sales", &telco.NumberBlockListParams{Active: telco.Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, []string{"Sydney sales"}, blockNames(page))
}

func TestNumberBlocks_IncludeAssociations(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	addBlocks(t, srv, srv.PropertySid)
	c := srv.Client()
	search := func(include bool) telco.NumberBlock {
		t.Helper()
		page, err := c.NumberBlocks.Search(testCtx(t), &telco.NumberBlockSearchParams{PropertySid: srv.PropertySid, Text: "sydney",
			NumberBlockListParams: telco.NumberBlockListParams{IncludeAssociations: include}})
		require.NoError(t, err)
		require.Len(t, page.Data, 1)
		return page.Data[0]
	}
	without := search(false)
	assert.Empty(t, without.NumberBlockAssignments)
	assert.Empty(t, without.AnalyticsDynamicNumbers)

	with := search(true)
	require.Len(t, with.NumberBlockAssignments, 1)
	var a struct{ PropertySid string }
	require.NoError(t, with.NumberBlockAssignments[0].Decode(&a))
	assert.Equal(t, srv.PropertySid, a.PropertySid)
	require.Len(t, with.AnalyticsDynamicNumbers, 1)
	assert.Equal(t, "61290000001", with.AnalyticsDynamicNumbers[0].PublicNumber)

	// Stripping one answer does not strip the stored block.
	assert.Len(t, search(false).NumberBlockAssignments, 0)
	assert.Len(t, search(true).NumberBlockAssignments, 1)
}

func TestNumberBlocks_PagingAndSorting(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for i := range 25 {
		srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Number: fmt.Sprintf("612%02dXXXXXX", i), Name: fmt.Sprintf("B%02d", i)})
	}
	c := srv.Client()
	ctx := testCtx(t)
	list := func(lp telco.NumberBlockListParams) *telco.NumberBlockPage {
		t.Helper()
		page, err := c.NumberBlocks.ListByProperty(ctx, srv.PropertySid, &lp)
		require.NoError(t, err)
		return page
	}

	page := list(telco.NumberBlockListParams{})
	assert.Len(t, page.Data, 10, "the default page size is 10")
	assert.Equal(t, 0, page.PageIndex)
	assert.Equal(t, 10, page.PageSize)
	assert.Equal(t, 25, page.TotalCount)
	assert.Equal(t, "Id", page.SortBy)
	assert.Equal(t, "asc", page.SortDir)
	assert.Equal(t, "B00", page.Data[0].Name)

	page = list(telco.NumberBlockListParams{PageIndex: 2, PageSize: 10})
	assert.Equal(t, []string{"B20", "B21", "B22", "B23", "B24"}, blockNames(page))
	assert.Equal(t, 2, page.PageIndex)
	assert.Equal(t, 25, page.TotalCount)

	page = list(telco.NumberBlockListParams{PageIndex: 1, PageSize: 4})
	assert.Equal(t, []string{"B04", "B05", "B06", "B07"}, blockNames(page))
	assert.Equal(t, 4, page.PageSize)

	page = list(telco.NumberBlockListParams{PageIndex: 9, PageSize: 4})
	assert.Empty(t, page.Data)
	assert.NotNil(t, page.Data)

	page = list(telco.NumberBlockListParams{PageSize: 3, IncludeTotalCount: telco.Ptr(false)})
	assert.Len(t, page.Data, 3)
	assert.Zero(t, page.TotalCount, "no total when IncludeTotalCount is false")

	page = list(telco.NumberBlockListParams{PageSize: 3, IncludeTotalCount: telco.Ptr(true)})
	assert.Equal(t, 25, page.TotalCount)

	page = list(telco.NumberBlockListParams{PageSize: 3, SortDir: "DESC"})
	assert.Equal(t, []string{"B24", "B23", "B22"}, blockNames(page))
	assert.Equal(t, "desc", page.SortDir)

	page = list(telco.NumberBlockListParams{PageIndex: 1, PageSize: 3, SortBy: "Name", SortDir: "desc"})
	assert.Equal(t, []string{"B21", "B20", "B19"}, blockNames(page))
	assert.Equal(t, "Name", page.SortBy)

	// A bad SortDir is the service's to refuse too.
	_, err := srv.Client(telco.WithClientValidation(false)).NumberBlocks.ListByProperty(ctx, srv.PropertySid,
		&telco.NumberBlockListParams{SortDir: "sideways"})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterInvalid)
}

func TestNumberBlocks_ListByPropertyAndAccount(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	other, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "Other", MainDomain: "o.example", TimeZone: "UTC"})
	require.NoError(t, err)
	addBlocks(t, srv, srv.PropertySid)
	srv.AddNumberBlock(other.PropertySid, telco.NumberBlock{Number: "6129999XXXX", Name: "Other block", Active: true})

	page, err := c.NumberBlocks.ListByProperty(ctx, other.PropertySid, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"Other block"}, blockNames(page))
	assert.Equal(t, 1, page.TotalCount)

	page, err = c.NumberBlocks.ListByProperty(ctx, srv.PropertySid, &telco.NumberBlockListParams{Active: telco.Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, []string{"Sydney sales", "Melbourne support"}, blockNames(page))

	page, err = c.NumberBlocks.Search(ctx, &telco.NumberBlockSearchParams{PropertySid: other.PropertySid})
	require.NoError(t, err)
	assert.Equal(t, []string{"Other block"}, blockNames(page))

	page, err = c.NumberBlocks.ListByAccount(ctx, srv.AccountSid, nil)
	require.NoError(t, err)
	assert.Equal(t, 5, page.TotalCount, "the account holds every project's blocks")

	page, err = c.NumberBlocks.Search(ctx, &telco.NumberBlockSearchParams{AccountSid: srv.AccountSid, NumberBlockListParams: telco.NumberBlockListParams{Active: telco.Ptr(true)}})
	require.NoError(t, err)
	assert.Equal(t, []string{"Sydney sales", "Melbourne support", "Other block"}, blockNames(page))

	_, err = c.NumberBlocks.ListByProperty(ctx, "PR"+strings.Repeat("N", 30), nil)
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
}

func TestNumberBlocks_AllIteratorsYieldEveryBlockOnce(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	const n = 23
	want := map[string]bool{}
	for i := range n {
		srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Number: fmt.Sprintf("613%02dXXXXXX", i), Name: fmt.Sprintf("Block %02d", i)})
	}
	c := srv.Client()
	ctx := testCtx(t)
	page, err := c.NumberBlocks.ListByProperty(ctx, srv.PropertySid, &telco.NumberBlockListParams{PageSize: n})
	require.NoError(t, err)
	for _, b := range page.Data {
		want[b.NumberBlockSid] = true
	}
	require.Len(t, want, n)

	lp := telco.NumberBlockListParams{PageSize: 5}
	for name, seq := range map[string]func(yield func(telco.NumberBlock, error) bool){
		"SearchAll":             c.NumberBlocks.SearchAll(ctx, &telco.NumberBlockSearchParams{PropertySid: srv.PropertySid, NumberBlockListParams: lp}),
		"SearchTextAll":         c.NumberBlocks.SearchTextAll(ctx, "block", &lp),
		"ListByPropertyAll":     c.NumberBlocks.ListByPropertyAll(ctx, srv.PropertySid, &lp),
		"ListByAccountAll":      c.NumberBlocks.ListByAccountAll(ctx, srv.AccountSid, &lp),
		"without a total count": c.NumberBlocks.ListByPropertyAll(ctx, srv.PropertySid, &telco.NumberBlockListParams{PageSize: 5, IncludeTotalCount: telco.Ptr(false)}),
		"default page size":     c.NumberBlocks.ListByAccountAll(ctx, srv.AccountSid, nil),
		"descending":            c.NumberBlocks.SearchAll(ctx, &telco.NumberBlockSearchParams{AccountSid: srv.AccountSid, NumberBlockListParams: telco.NumberBlockListParams{PageSize: 4, SortDir: "desc"}}),
	} {
		t.Run(name, func(t *testing.T) {
			seen := map[string]int{}
			for b, err := range seq {
				require.NoError(t, err)
				seen[b.NumberBlockSid]++
			}
			assert.Len(t, seen, n)
			for sid, k := range seen {
				assert.True(t, want[sid], "unknown block %s", sid)
				assert.Equal(t, 1, k, "block %s seen %d times", sid, k)
			}
		})
	}
}

// Blocks with the same name sort in Id order both ways, so that pages of
// a descending listing neither repeat nor skip a block.
func TestNumberBlocks_DescendingTiesAreStable(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, name := range []string{"Same", "Same", "Other", "Same", "Zed"} {
		srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Name: name})
	}
	c := srv.Client()
	var ids []int
	var names []string
	for i := range 5 {
		page, err := c.NumberBlocks.ListByProperty(testCtx(t), srv.PropertySid,
			&telco.NumberBlockListParams{PageIndex: i, PageSize: 1, SortBy: "Name", SortDir: "desc"})
		require.NoError(t, err)
		require.Len(t, page.Data, 1)
		ids = append(ids, page.Data[0].ID)
		names = append(names, page.Data[0].Name)
	}
	assert.Equal(t, []string{"Zed", "Same", "Same", "Same", "Other"}, names)
	assert.Less(t, ids[1], ids[2], "ties in Id order")
	assert.Less(t, ids[2], ids[3], "ties in Id order")
}

// Text search also looks at the call attribution of the block's numbers,
// as the spec lists Source, Medium, Campaign and Content.
func TestNumberBlocks_TextSearchMatchesAttribution(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Name: "Campaign block", NumberPattern: "+6128888000X"})
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Name: "Other block", NumberPattern: "+6127777000X"})
	srv.AddNumber(srv.PropertySid, "+61288880005")
	srv.AddNumber(srv.PropertySid, "+61266660001") // in no block
	_, err := c.Numbers.Configure(ctx, "+61288880005", &telco.NumberConfigParams{AttributionSource: "Google",
		AttributionMedium: "cpc", AttributionCampaign: "Spring-Sale", AttributionContent: "banner-a"})
	require.NoError(t, err)
	_, err = c.Numbers.Configure(ctx, "+61266660001", &telco.NumberConfigParams{AttributionCampaign: "Orphan"})
	require.NoError(t, err)

	for _, text := range []string{"google", "CPC", "spring-sale", "banner"} {
		page, err := c.NumberBlocks.SearchText(ctx, text, nil)
		require.NoError(t, err)
		assert.Equal(t, []string{"Campaign block"}, blockNames(page), text)
	}
	page, err := c.NumberBlocks.SearchText(ctx, "orphan", nil)
	require.NoError(t, err)
	assert.Empty(t, page.Data, "a number outside every block makes no block match")
}

// Number-block datetimes travel as /Date(ms+offset)/ strings.
func TestWire_NumberBlockDatetimes(t *testing.T) {
	t.Parallel()
	clock := telcotest.NewClock(time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC))
	srv := newServer(t, telcotest.WithClock(clock))
	srv.AddNumberBlock(srv.PropertySid, telco.NumberBlock{Name: "b", Number: "0299990000"})
	r := raw(t, srv, http.MethodGet, "/v2/Properties/"+srv.PropertySid+"/numberblocks", "")
	require.Equal(t, http.StatusOK, r.Status)
	var env struct {
		Data []map[string]json.RawMessage
	}
	require.NoError(t, json.Unmarshal(r.Body, &env))
	require.Len(t, env.Data, 1)
	want := fmt.Sprintf(`"/Date(%d+0000)/"`, clock.Now().UnixMilli())
	assert.Equal(t, want, string(env.Data[0]["Created"]), "Created comes from the fake's clock, in the number-block form")
	assert.Regexp(t, regexp.MustCompile(`"TotalCount":1`), string(r.Body))
}
