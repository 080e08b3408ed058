package telco

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	assert.Equal(t, strict, q.page)
}

func TestNumberBlocksSearchWithStringCounts(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	reply(mt, "GET", numberBlocksPropertyPath, 200, stringifyInts(fixture(t, numberBlockSearchFixture)))
	page, err := c.NumberBlocks.ListByProperty(bg, testProp, nil)
	require.NoError(t, err)
	var strict NumberBlockPage
	require.NoError(t, json.Unmarshal(fixture(t, numberBlockSearchFixture), &strict))
	assert.Equal(t, &strict, page)
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
