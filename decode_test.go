package telco

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListDecodeShapes(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		sids  []string
		total int
		next  string
		err   bool
	}{
		{"documented", `{"Properties":[{"PropertySid":"P1"}],"TotalCount":1,"NextPageToken":"t"}`, []string{"P1"}, 1, "t", false},
		{"field listing name", `{"Projects":[{"PropertySid":"P1"}],"TotalCount":"7"}`, []string{"P1"}, 7, "", false},
		{"lower-case key", `{"properties":[{"PropertySid":"P1"}]}`, []string{"P1"}, 0, "", false},
		{"bare array", ` [{"PropertySid":"P1"},{"PropertySid":"P2"}]`, []string{"P1", "P2"}, 0, "", false},
		{"null array falls to the other name", `{"Properties":null,"Projects":[{"PropertySid":"P3"}]}`, []string{"P3"}, 0, "", false},
		{"odd count and token", `{"Properties":[],"TotalCount":"many","NextPageToken":42}`, []string{}, 0, "", false},
		{"no array at all", `{"TotalCount":3}`, nil, 3, "", false},
		{"array of the wrong shape", `{"Properties":{"PropertySid":"P1"}}`, nil, 0, "", true},
		{"not JSON", `<html>`, nil, 0, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := list[Property]{shape: propertiesList}
			err := l.decodeBody([]byte(tc.body))
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			var sids []string
			if l.items != nil {
				sids = []string{}
			}
			for _, p := range l.items {
				sids = append(sids, p.PropertySid)
			}
			assert.Equal(t, tc.sids, sids)
			assert.Equal(t, tc.total, int(l.meta.TotalCount))
			assert.Equal(t, tc.next, string(l.meta.NextPageToken))
		})
	}
}

func TestOneDecodeShapes(t *testing.T) {
	cases := []struct {
		name string
		body string
		ok   bool
		want string
	}{
		{"wrapped", `{"Number":{"Number":"61299999999","Friendly":"A"}}`, true, "A"},
		{"other documented key", `{"NumberConfiguration":{"Number":"61299999999","Friendly":"B"}}`, true, "B"},
		{"bare, whose Number is a string", `{"Number":"61299999999","Friendly":"C"}`, true, "C"},
		{"null envelope", `{"Number":null}`, false, ""},
		{"neither", `{"Other":{}}`, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := one[NumberConfig]{shape: numberShape}
			require.NoError(t, o.decodeBody([]byte(tc.body)))
			assert.Equal(t, tc.ok, o.ok)
			var friendly string
			if o.val != nil {
				friendly = o.val.Friendly
			}
			assert.Equal(t, tc.want, friendly)
			assert.Equal(t, tc.ok, o.val != nil, "a resource exactly when found")
		})
	}
	o := one[Message]{shape: messageShape}
	assert.Error(t, o.decodeBody([]byte(`[1]`)))
}

// FuzzListDecode: any body decodes or fails without panicking, and a
// decoded page never holds more items than the body could.
func FuzzListDecode(f *testing.F) {
	for _, s := range []string{
		`{"Properties":[{"PropertySid":"P1"}],"TotalCount":1}`, `[{"PropertySid":"P1"}]`,
		`{"Projects":null}`, `{"Properties":{}}`, `{"TotalCount":"x","NextPageToken":[]}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l := list[Property]{shape: propertiesList}
		if l.decodeBody(b) != nil {
			return
		}
		if len(l.items) > len(b) {
			t.Fatalf("%d items from %d bytes", len(l.items), len(b))
		}
		o := one[Property]{shape: propertyShape}
		_ = o.decodeBody(b)
	})
}

// shapeCheck decodes a body with one declared shape's fast pass only.
type shapeCheck struct {
	keys []string
	list bool
	fast func(b []byte) bool
}

func resourceCheck[T any](s *resourceShape[T]) shapeCheck {
	return shapeCheck{keys: s.keys, fast: func(b []byte) bool {
		o := one[T]{shape: s}
		return o.decodeFast(b) && o.ok
	}}
}

func listCheck[T any](s *listShape[T]) shapeCheck {
	return shapeCheck{keys: s.keys, list: true, fast: func(b []byte) bool {
		l := list[T]{shape: s}
		found, err := l.decodeFast(b)
		return found && err == nil && len(l.items) == 1 && int(l.meta.TotalCount) == 7
	}}
}

// declaredShapes names the package-level shape variables of the non-test
// files: every call of resourceOf or listOf.
func declaredShapes(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	require.NoError(t, err)
	var names []string
	for _, f := range pkgs["telco"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, v := range vs.Values {
				call, ok := v.(*ast.CallExpr)
				if !ok {
					continue
				}
				if ix, ok := call.Fun.(*ast.IndexExpr); ok {
					if id, ok := ix.X.(*ast.Ident); ok && (id.Name == "resourceOf" || id.Name == "listOf") {
						names = append(names, vs.Names[i].Name)
					}
				}
			}
			return true
		})
	}
	return names
}

// Every envelope key any operation uses is known to the one-pass decoder:
// each service's answers are declared as shapes, and each key of each
// shape is found without the tolerant path. The table must name every
// shape the package declares, so a new service cannot skip the check.
func TestEveryEnvelopeKeyIsOnTheFastPath(t *testing.T) {
	t.Parallel()
	shapes := map[string]shapeCheck{
		"messageShape":      resourceCheck(messageShape),
		"messagesList":      listCheck(messagesList),
		"batchFast":         listCheck(batchFast),
		"batchRaw":          listCheck(batchRaw),
		"propertyShape":     resourceCheck(propertyShape),
		"propertiesList":    listCheck(propertiesList),
		"onlineLoginShape":  resourceCheck(onlineLoginShape),
		"onlineLoginsList":  listCheck(onlineLoginsList),
		"sipTrunkShape":     resourceCheck(sipTrunkShape),
		"sipTrunksList":     listCheck(sipTrunksList),
		"portingShape":      resourceCheck(portingShape),
		"portingList":       listCheck(portingList),
		"addressShape":      resourceCheck(addressShape),
		"numberShape":       resourceCheck(numberShape),
		"numberDetailsList": listCheck(numberDetailsList),
		"addressesList":     listCheck(addressesList),
		"flowsList":         listCheck(flowsList),
		"ownedNumberShape":  resourceCheck(ownedNumberShape),
		"numbersList":       listCheck(numbersList),
		"purchaseShape":     resourceCheck(purchaseShape),
		"callShape":         resourceCheck(callShape),
		"numberBlocksList":  listCheck(numberBlocksList),
	}
	declared := declaredShapes(t)
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	assert.ElementsMatch(t, declared, names, "every declared shape is checked here")

	for name, s := range shapes {
		require.NotEmpty(t, s.keys, name)
		for _, k := range s.keys {
			body := `{"` + k + `":{},"TotalCount":7}`
			if s.list {
				body = `{"` + k + `":[{}],"TotalCount":7}`
			}
			assert.True(t, s.fast([]byte(body)), "%s: %s not found in one pass", name, body)
		}
	}
}

// A key the one-pass decoder does not know costs speed, never the page:
// the tolerant path still finds the array, and an iterator over such a
// listing does not stop early.
func TestListFallbackFindsTheArray(t *testing.T) {
	t.Parallel()
	// A shape whose fast pass was built without the key the answer uses,
	// as a listing missing from a registry would be.
	blind := &listShape[Property]{keys: []string{"Properties"}, fast: listOf[Property]("Elsewhere").fast}
	body := []byte(`{"Properties":[{"PropertySid":"P1"},{"PropertySid":"P2"}],"TotalCount":"2","NextPageToken":"t"}`)
	l := list[Property]{shape: blind}
	found, err := l.decodeFast(body)
	require.NoError(t, err)
	require.False(t, found, "the precondition: the fast pass cannot see the array")
	l = list[Property]{shape: blind}
	require.NoError(t, l.decodeBody(body))
	assert.True(t, l.ok)
	assert.Equal(t, []Property{{PropertySid: "P1"}, {PropertySid: "P2"}}, l.items)
	assert.Equal(t, 2, int(l.meta.TotalCount))
	assert.Equal(t, "t", string(l.meta.NextPageToken))

	// The fast pass fails when another key holds another shape; the
	// tolerant path still reads the array.
	odd := []byte(`{"Projects":"n/a","Properties":[{"PropertySid":"P1"}]}`)
	l2 := list[Property]{shape: propertiesList}
	require.NoError(t, l2.decodeBody(odd))
	assert.Equal(t, []Property{{PropertySid: "P1"}}, l2.items)

	// Through a listing and its iterator, the key in another case.
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Properties", 200, []byte(`{"projects":[{"PropertySid":"P1"}],"TotalCount":1}`))
	var got []string
	for p, err := range c.Properties.ListAll(bg, nil) {
		require.NoError(t, err)
		got = append(got, p.PropertySid)
	}
	assert.Equal(t, []string{"P1"}, got)
}

// The envelopes report a refusal only when no resource was found and an
// ErrorCode was given.
func TestEnvelopesFindRefusals(t *testing.T) {
	t.Parallel()
	decoders := map[string]func(b []byte) (found bool, err error){
		"one": func(b []byte) (bool, error) {
			o := one[Message]{shape: messageShape}
			err := o.decodeBody(b)
			return o.ok, err
		},
		"list": func(b []byte) (bool, error) {
			l := list[Property]{shape: propertiesList}
			err := l.decodeBody(b)
			return l.ok, err
		},
		"id": func(b []byte) (bool, error) {
			a := idAnswer{key: "SipTrunkSid"}
			err := a.decodeBody(b)
			return a.id != "", err
		},
		"blocks": func(b []byte) (bool, error) {
			var p blockPage
			err := p.decodeBody(b)
			return p.page.Data != nil, err
		},
	}
	cases := []struct {
		name    string
		body    string
		refused bool
	}{
		{"ResponseStatus", refusalBody, true},
		{"lower-case keys", `{"responseStatus":{"errorCode":"X"}}`, true},
		{"top level", `{"ErrorCode":"X","Message":"m"}`, true},
		{"no ErrorCode", `{"ResponseStatus":{"Message":"m","Errors":[]}}`, false},
		{"empty ResponseStatus", `{"ResponseStatus":{}}`, false},
		{"null ResponseStatus", `{"ResponseStatus":null}`, false},
		{"ResponseStatus not an object", `{"ResponseStatus":"X"}`, false},
		{"empty object", `{}`, false},
		{"null", `null`, false},
	}
	for name, decode := range decoders {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				found, err := decode([]byte(tc.body))
				assert.False(t, found)
				var rf *refusal
				assert.Equal(t, tc.refused, errors.As(err, &rf), "refusal: %v", err)
				if !tc.refused {
					assert.NoError(t, err)
				}
			})
		}
	}
	// A resource found beside an error envelope is the answer.
	withResource := map[string]string{
		"one":    `{"Message":{"MessageSid":"MG1"},"ResponseStatus":{"ErrorCode":"X"}}`,
		"list":   `{"Properties":[],"ResponseStatus":{"ErrorCode":"X"}}`,
		"id":     `{"SipTrunkSid":"ST1","ResponseStatus":{"ErrorCode":"X"}}`,
		"blocks": `{"Data":[],"ResponseStatus":{"ErrorCode":"X"}}`,
	}
	for name, body := range withResource {
		found, err := decoders[name]([]byte(body))
		require.NoError(t, err, name)
		assert.True(t, found, name)
	}
}

func TestRefusalKeepsEveryField(t *testing.T) {
	t.Parallel()
	err := refusedIn([]byte(refusalBody))
	var rf *refusal
	require.ErrorAs(t, err, &rf)
	var want wireError
	require.NoError(t, json.Unmarshal([]byte(refusalBody), &want))
	assert.Equal(t, *want.ResponseStatus, rf.s)
	assert.Contains(t, err.Error(), "SerializationException")
}

// answerDecoder decodes a fixture with the decoder its operation uses and
// returns what the caller would see.
type answerDecoder func(b []byte) (any, error)

func oneAnswer[T any](s *resourceShape[T]) answerDecoder {
	return func(b []byte) (any, error) {
		o := one[T]{shape: s}
		err := o.decodeBody(b)
		return o.val, err
	}
}

func listAnswer[T any](s *listShape[T]) answerDecoder {
	return func(b []byte) (any, error) {
		l := list[T]{shape: s}
		err := l.decodeBody(b)
		return l.page(), err
	}
}

// Every answer reads its integers from numeric strings as well as from
// numbers, by the one policy at the top of decode.go: each success
// fixture, with every integer rewritten as a string, decodes to exactly
// what the fixture decodes to.
func TestEveryAnswerReadsIntegersAsStrings(t *testing.T) {
	t.Parallel()
	decoders := map[string]answerDecoder{
		"send_message.json":           oneAnswer(messageShape),
		"get_message.json":            oneAnswer(messageShape),
		"find_messages_page1.json":    listAnswer(messagesList),
		"find_messages_bare.json":     listAnswer(messagesList),
		"get_property.json":           oneAnswer(propertyShape),
		"list_properties.json":        listAnswer(propertiesList),
		"list_projects.json":          listAnswer(propertiesList),
		"create_online_login.json":    oneAnswer(onlineLoginShape),
		"list_online_logins.json":     listAnswer(onlineLoginsList),
		"get_sip_trunk_details.json":  oneAnswer(sipTrunkShape),
		"list_sip_trunks.json":        listAnswer(sipTrunksList),
		"submit_porting_request.json": oneAnswer(portingShape),
		"porting_status_page1.json":   listAnswer(portingList),
		"get_address.json":            oneAnswer(addressShape),
		"list_addresses.json":         listAnswer(addressesList),
		"configure_number.json":       oneAnswer(numberShape),
		"configure_number_bare.json":  oneAnswer(numberShape),
		"get_number.json":             oneAnswer(ownedNumberShape),
		"list_numbers.json":           listAnswer(numbersList),
		"purchase_number.json":        oneAnswer(purchaseShape),
		"get_call.json":               oneAnswer(callShape),
		"list_flows.json":             listAnswer(flowsList),
		"number_details.json":         listAnswer(numberDetailsList),
		"list_calls.json": func(b []byte) (any, error) {
			var a callsAnswer
			err := a.decodeBody(b)
			return a.page.Calls, err
		},
		"search_number_blocks.json": func(b []byte) (any, error) {
			var p blockPage
			err := p.decodeBody(b)
			return p.page, err
		},
		"purchase_number_block.json": func(b []byte) (any, error) {
			var r blockResult
			err := r.decodeBody(b)
			return r.res.Block, err
		},
		"configure_number_block.json": func(b []byte) (any, error) {
			var r blockResult
			err := r.decodeBody(b)
			return r.res.Block, err
		},
		"send_batch_messages.json": func(b []byte) (any, error) {
			a := batchAnswer{op: "Messages.SendBatch"}
			err := a.decodeBody(b)
			return a.results, err
		},
	}
	rewritten := 0
	for name, decode := range decoders {
		body := fixture(t, name)
		strung := stringifyInts(body)
		if !bytes.Equal(body, strung) {
			rewritten++
		}
		want, err := decode(body)
		require.NoError(t, err, name)
		got, err := decode(strung)
		if assert.NoError(t, err, "%s with integers as strings", name) {
			// Extra keeps members as sent, so there the strings stay
			// strings; a typed field left zero still differs.
			assert.Equal(t, withoutExtra(want), withoutExtra(got), "%s with integers as strings", name)
		}
	}
	assert.GreaterOrEqual(t, rewritten, 15, "the fixtures hold integers to rewrite")
}

// withoutExtra returns v with every field named Extra, at any depth,
// emptied.
func withoutExtra(v any) any {
	var clear func(rv reflect.Value)
	clear = func(rv reflect.Value) {
		switch rv.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !rv.IsNil() {
				clear(rv.Elem())
			}
		case reflect.Slice:
			for i := range rv.Len() {
				clear(rv.Index(i))
			}
		case reflect.Struct:
			for i := range rv.NumField() {
				if f := rv.Type().Field(i); f.Name == "Extra" && rv.Field(i).CanSet() {
					rv.Field(i).SetZero()
				} else if f.IsExported() {
					clear(rv.Field(i))
				}
			}
		}
	}
	cp := reflect.New(reflect.TypeOf(v)).Elem()
	cp.Set(reflect.ValueOf(v))
	// Values reached through pointers are the decoder's own: clearing
	// them in place is harmless here.
	clear(cp)
	return cp.Interface()
}

// looseString's shortcut reads what encoding/json reads.
func FuzzLooseString(f *testing.F) {
	for _, s := range []string{`"t"`, `""`, `"a\"b"`, `"\u00e9"`, "\"\xff\"", `null`, `42`, `["x"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return // encoding/json hands UnmarshalJSON only valid JSON
		}
		var s looseString
		require.NoError(t, s.UnmarshalJSON(b))
		var want string
		if json.Unmarshal(b, &want) != nil {
			want = ""
		}
		if string(s) != want {
			t.Fatalf("%q: %q, encoding/json %q", b, s, want)
		}
	})
}
