package telco

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The scanner (flatjson.go) must never change an answer: whatever body it
// reads, decodeBody gives what it gives without the scanner. These helpers
// decode one body both ways.

type flatOutcome struct {
	Items any
	Meta  listMeta
	OK    bool
	Err   bool
}

// listBothWays decodes b as a listing of shape, with and without the
// scanner, and reports whether the scanner itself read it.
func listBothWays[T any](b []byte, shape *listShape[T]) (with, without flatOutcome, scanned bool) {
	plain := *shape
	plain.flat = nil
	l := list[T]{shape: shape}
	err := l.decodeBody(append([]byte(nil), b...))
	with = flatOutcome{l.items, l.meta, l.ok, err != nil}
	r := list[T]{shape: &plain}
	err = r.decodeBody(append([]byte(nil), b...))
	without = flatOutcome{r.items, r.meta, r.ok, err != nil}
	t := trimJSONSpace(b)
	if len(t) > 0 && t[0] == '[' {
		_, scanned = flatBare[T](t, shape.flat)
	} else {
		_, _, scanned = flatList(t, shape)
	}
	return with, without, scanned
}

// oneBothWays does the same for a single resource.
func oneBothWays[T any](b []byte, shape *resourceShape[T]) (with, without flatOutcome, scanned bool) {
	plain := resourceOf[T](shape.id, shape.keys...)
	plain.flat = nil
	o := one[T]{shape: shape}
	err := o.decodeBody(append([]byte(nil), b...))
	with = flatOutcome{o.val, listMeta{}, o.ok, err != nil}
	r := one[T]{shape: plain}
	err = r.decodeBody(append([]byte(nil), b...))
	without = flatOutcome{r.val, listMeta{}, r.ok, err != nil}
	_, scanned = flatOne(b, shape)
	return with, without, scanned
}

// checkFlat decodes b every way the tests know and fails when the scanner
// changed an outcome.
func checkFlat(t *testing.T, b []byte) {
	t.Helper()
	cases := []struct {
		name string
		run  func([]byte) (flatOutcome, flatOutcome, bool)
	}{
		{"messages", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, messagesList) }},
		{"batch", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, batchFast) }},
		{"properties", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, propertiesList) }},
		{"addresses", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, addressesList) }},
		{"message", func(b []byte) (flatOutcome, flatOutcome, bool) { return oneBothWays(b, messageShape) }},
		{"property", func(b []byte) (flatOutcome, flatOutcome, bool) { return oneBothWays(b, propertyShape) }},
		{"number", func(b []byte) (flatOutcome, flatOutcome, bool) { return oneBothWays(b, numberShape) }},
	}
	for _, c := range cases {
		with, without, _ := c.run(b)
		if !reflect.DeepEqual(with, without) {
			t.Fatalf("%s: %q\nwith the scanner:    %+v\nwithout the scanner: %+v", c.name, b, with, without)
		}
	}
}

// FuzzFlatDecode holds the scanner to encoding/json: any body decodes to
// the same items, metadata, found flag and error-or-not with and without
// it.
func FuzzFlatDecode(f *testing.F) {
	for _, name := range []string{"find_messages_page1.json", "find_messages_bare.json", "get_message.json",
		"send_message.json", "send_batch_messages.json", "get_property.json", "list_properties.json",
		"list_projects.json", "create_property.json", "list_addresses.json", "get_address.json",
		"configure_number.json", "configure_number_bare.json", "get_number.json"} {
		f.Add(fixture(f, name))
	}
	for _, s := range flatEdgeCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFlat(t, b)
	})
}

// flatEdgeCases are bodies where a scanner could part from encoding/json.
var flatEdgeCases = []string{
	`{"Messages":[{"MessageSid":"MG1","Text":"caf\u00e9 \"x\" \ud83d\ude00 \ud800","NumSegments":2}],"TotalCount":"3"}`,
	`{"Messages":[{"MessageSid":"MG1","text":"lower case"}]}`,
	`{"messages":[{"MessageSid":"MG1"}]}`,
	`{"Messages":[{"MessageSid":"MG1"}],"Messages":[{"To":"+61"}]}`,
	`{"Messages":[{"MessageSid":"MG1","MessageSid":"MG2","Text":"a","Text":null}]}`,
	`{"Messages":[null,{"MessageSid":"MG1"},null]}`,
	`{"Messages":null,"TotalCount":2}`,
	`{"Messages":[],"NextPageToken":7}`,
	`{"Messages":[{"NumSegments":"2"}]}`,
	`{"Messages":[{"NumSegments":2.0}]}`,
	`{"Messages":[{"NumSegments":1e2}]}`,
	`{"Messages":[{"NumSegments":99999999999999999999}]}`,
	`{"Messages":[{"NumSegments":-0}]}`,
	`{"Messages":[{"NumSegments":01}]}`,
	`{"Messages":[{"DeliveryReceipt":"true"}]}`,
	`{"Messages":[{"Created":"2020-01-01","Submitted":null,"Delivered":"1577836800"}]}`,
	`{"Messages":[{"Created":{"a":1}}]}`,
	`{"Messages":[{"Unknown":{"deep":[1,2,{"x":[true,false,null,"s\n"]}]},"MessageSid":"MG1"}]}`,
	`{"Messages":[{"MeſsageSid":"x","K":1,"MessageSid":"MG1"}]}`,
	"{\"Messages\":[{\"Text\":\"bad \xff utf8\"}]}",
	"{\"Messages\":[{\"Text\":\"control \x01\"}]}",
	`{"Messages":[{"Text":"a\x"}]}`,
	`{"Messages":[{"MessageSid":"MG1"}]} trailing`,
	`{"Messages":[{"MessageSid":"MG1"}],}`,
	`{"Messages":[{"MessageSid":"MG1",}]}`,
	`{"Messages":[{"MessageSid":"MG1"}]`,
	`{"Results":[{"MessageSid":"MG1"}],"Messages":[{"MessageSid":"MG2"}]}`,
	`{"Mess\u0061ges":[{"MessageSid":"MG1"}]}`,
	`{"Messages":[{"MessageSid":"MG1"}],"Mess\u0061ges":[{"To":"+61"}]}`,
	`{"Property":{"PropertySid":"PR1"},"Propert\u0079":{"Name":"n"}}`,
	`{"Messages":[{"Mess\u0061geSid":"MG1"}]}`,
	`{"ResponseStatus":{"ErrorCode":"Invalid","Message":"no"}}`,
	`{"Messages":[{"MessageSid":"MG1"}],"ResponseStatus":null,"ErrorCode":"X","totalcount":4}`,
	`[{"MessageSid":"MG1"},{"MessageSid":"MG2","Status":"Delivered"}]`,
	`[{"MessageSid":"MG1"},3]`,
	`[{"MessageSid":"MG1"}] x`,
	`{"Property":{"PropertySid":"PR1"}}}`,
	`[]`,
	` [ ] `,
	`{"Property":{"PropertySid":"PR1","SmsEnabled":true,"Active":null}}`,
	`{"Property":null,"Project":{"PropertySid":"PR2"}}`,
	`{"Property":{"PropertySid":"PR1"},"Property":{"Name":"n"}}`,
	`{"property":{"PropertySid":"PR1"}}`,
	`{"property":{"Name":"a"},"Property":{"PropertySid":"PR1"}}`,
	`{"messages":[{"Text":"a"}],"Messages":[{"MessageSid":"MG1"}]}`,
	`{"PropertySid":"PR1","Name":"bare"}`,
	`{"Number":"+61299999999","VoiceUri":"x"}`,
	`{"Number":{"Number":"+61299999999"}}`,
	`{"Properties":[{"PropertySid":"PR1"}],"Projects":[{"PropertySid":"PR2"}],"PageSize":"x"}`,
	strings.Repeat("[", 2000) + strings.Repeat("]", 2000),
	`{"Messages":[{"x":` + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + `}]}`,
	`{"Messages":[{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}]}`,
	`{"Messages":[{"Text":"` + "\u2028\u2029<&>" + `"}]}`,
	"\ufeff{\"Messages\":[]}",
	``,
	`null`,
	`"Messages"`,
}

// TestFlatDecodeEdgeCases runs the edge cases as tests too, so that a
// plain go test checks them.
func TestFlatDecodeEdgeCases(t *testing.T) {
	for _, s := range flatEdgeCases {
		checkFlat(t, []byte(s))
	}
}

// TestFlatDecodeReadsTheDocumentedAnswers: the scanner reads the
// documented answers itself (were it to give up on them, answers would
// still be right, only slower, and no other test would notice).
func TestFlatDecodeReadsTheDocumentedAnswers(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		run     func([]byte) (flatOutcome, flatOutcome, bool)
	}{
		{"find_messages_page1.json", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, messagesList) }},
		{"find_messages_bare.json", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, messagesList) }},
		{"send_batch_messages.json", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, batchFast) }},
		{"get_message.json", func(b []byte) (flatOutcome, flatOutcome, bool) { return oneBothWays(b, messageShape) }},
		{"get_property.json", func(b []byte) (flatOutcome, flatOutcome, bool) { return oneBothWays(b, propertyShape) }},
		{"list_properties.json", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, propertiesList) }},
		{"list_projects.json", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, propertiesList) }},
		{"list_addresses.json", func(b []byte) (flatOutcome, flatOutcome, bool) { return listBothWays(b, addressesList) }},
	} {
		with, without, scanned := tc.run(fixture(t, tc.fixture))
		require.True(t, scanned, "%s: the scanner gave up", tc.fixture)
		require.True(t, with.OK, tc.fixture)
		require.Equal(t, without, with, tc.fixture)
	}
	// The bench's page: 200 messages, every field set.
	msgs := make([]Message, 200)
	for i := range msgs {
		msgs[i] = benchMessage(i)
	}
	items, _, ok := flatList(mustJSON(t, map[string]any{"Messages": msgs}), messagesList)
	require.True(t, ok)
	require.Equal(t, msgs, items)
}

// TestFlatTypes: which types the scanner takes, and why the others are
// left to encoding/json.
func TestFlatTypes(t *testing.T) {
	for _, ft := range []*flatType{messagesList.flat, messageShape.flat, propertiesList.flat, propertyShape.flat, batchFast.flat, addressesList.flat} {
		require.NotNil(t, ft)
	}
	type embedded struct{ A string }
	for name, typ := range map[string]reflect.Type{
		"decodes itself": reflect.TypeFor[Call](),
		"embedded field": reflect.TypeFor[struct{ embedded }](),
		"string option": reflect.TypeFor[struct {
			N int `json:",string"`
		}](),
		"fold-equal names": reflect.TypeFor[struct {
			A string `json:"id"`
			B string `json:"ID"`
		}](),
		"a float":         reflect.TypeFor[struct{ F float64 }](),
		"a nested struct": reflect.TypeFor[struct{ S struct{ A string } }](),
		"not a struct":    reflect.TypeFor[[]byte](),
	} {
		require.Nil(t, flatTypeOf(typ), name)
	}
	ft := flatTypeOf(reflect.TypeFor[struct {
		A       string `json:"a,omitempty"`
		Skipped string `json:"-"`
		hidden  string
		N       int8
		T       Timestamp
	}]())
	require.NotNil(t, ft)
	require.Equal(t, []flatField{{name: "a", index: 0, kind: flatString}, {name: "N", index: 3, kind: flatInt, bits: 8},
		{name: "T", index: 4, kind: flatSelf}}, ft.fields)
	require.Equal(t, []string{"a", "N", "T"}, ft.names)
	// Not flat: four keys at most, none equal to another or to a
	// metadata member in any case.
	require.Nil(t, flatShape[Message]([]string{"a", "b", "c", "d", "e"}, nil))
	require.Nil(t, flatShape[Message]([]string{"Items", "items"}, nil))
	require.Nil(t, flatShape[Message]([]string{"totalcount"}, listMetaNames))
}

// TestListMetaFieldsDecodeThemselves: the scanner hands every listing
// metadata member to its field's UnmarshalJSON, as encoding/json does for
// these types; a field without one would make it give up on every page.
func TestListMetaFieldsDecodeThemselves(t *testing.T) {
	lt := reflect.TypeFor[listMeta]()
	require.Len(t, listMetaNames, lt.NumField())
	for i := range lt.NumField() {
		f := lt.Field(i)
		require.True(t, reflect.PointerTo(f.Type).Implements(jsonUnmarshalerType), f.Name)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		require.Equal(t, name, listMetaNames[i])
		require.Equal(t, i, listMetaIndex[name])
	}
}
