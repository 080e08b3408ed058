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
			l := listAnswer[Property]{shape: propertiesList}
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
			o := oneAnswer[NumberConfig]{shape: numberShape}
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
	o := oneAnswer[Message]{shape: messageShape}
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
		l := listAnswer[Property]{shape: propertiesList}
		if l.decodeBody(b) != nil {
			return
		}
		if len(l.items) > len(b) {
			t.Fatalf("%d items from %d bytes", len(l.items), len(b))
		}
		o := oneAnswer[Property]{shape: propertyShape}
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
		o := oneAnswer[T]{shape: s}
		return o.typed(b) && o.ok
	}}
}

func listCheck[T any](s *listShape[T]) shapeCheck {
	return shapeCheck{keys: s.keys, list: true, fast: func(b []byte) bool {
		l := listAnswer[T]{shape: s}
		return l.typed(b) && len(l.items) == 1 && int(l.meta.TotalCount) == 7
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
		"batchMessages":     listCheck(batchMessages),
		"batchElements":     listCheck(batchElements),
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
	blind := &listShape[Property]{keys: []string{"Properties"}, env: listOf[Property]("Elsewhere").env}
	body := []byte(`{"Properties":[{"PropertySid":"P1"},{"PropertySid":"P2"}],"TotalCount":"2","NextPageToken":"t"}`)
	l := listAnswer[Property]{shape: blind}
	require.False(t, l.typed(body), "the precondition: the typed pass cannot see the array")
	l = listAnswer[Property]{shape: blind}
	require.NoError(t, l.decodeBody(body))
	assert.True(t, l.ok)
	assert.Equal(t, []Property{{PropertySid: "P1"}, {PropertySid: "P2"}}, l.items)
	assert.Equal(t, 2, int(l.meta.TotalCount))
	assert.Equal(t, "t", string(l.meta.NextPageToken))

	// The fast pass fails when another key holds another shape; the
	// tolerant path still reads the array.
	odd := []byte(`{"Projects":"n/a","Properties":[{"PropertySid":"P1"}]}`)
	l2 := listAnswer[Property]{shape: propertiesList}
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
			o := oneAnswer[Message]{shape: messageShape}
			err := o.decodeBody(b)
			return o.ok, err
		},
		"list": func(b []byte) (bool, error) {
			l := listAnswer[Property]{shape: propertiesList}
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

func oneDecoder[T any](s *resourceShape[T]) answerDecoder {
	return func(b []byte) (any, error) {
		o := oneAnswer[T]{shape: s}
		err := o.decodeBody(b)
		return o.val, err
	}
}

func listDecoder[T any](s *listShape[T]) answerDecoder {
	return func(b []byte) (any, error) {
		l := listAnswer[T]{shape: s}
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
		"send_message.json":           oneDecoder(messageShape),
		"get_message.json":            oneDecoder(messageShape),
		"find_messages_page1.json":    listDecoder(messagesList),
		"find_messages_bare.json":     listDecoder(messagesList),
		"get_property.json":           oneDecoder(propertyShape),
		"list_properties.json":        listDecoder(propertiesList),
		"list_projects.json":          listDecoder(propertiesList),
		"create_online_login.json":    oneDecoder(onlineLoginShape),
		"list_online_logins.json":     listDecoder(onlineLoginsList),
		"get_sip_trunk_details.json":  oneDecoder(sipTrunkShape),
		"list_sip_trunks.json":        listDecoder(sipTrunksList),
		"submit_porting_request.json": oneDecoder(portingShape),
		"porting_status_page1.json":   listDecoder(portingList),
		"get_address.json":            oneDecoder(addressShape),
		"list_addresses.json":         listDecoder(addressesList),
		"configure_number.json":       oneDecoder(numberShape),
		"configure_number_bare.json":  oneDecoder(numberShape),
		"get_number.json":             oneDecoder(ownedNumberShape),
		"list_numbers.json":           listDecoder(numbersList),
		"purchase_number.json":        oneDecoder(purchaseShape),
		"get_call.json":               oneDecoder(callShape),
		"list_flows.json":             listDecoder(flowsList),
		"number_details.json":         listDecoder(numberDetailsList),
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
			assert.Equal(t, canonicalRaw(withoutExtra(want)), canonicalRaw(withoutExtra(got)), "%s with integers as strings", name)
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

// canonicalRaw returns v with every json.RawMessage in it, at any depth,
// in canonicalJSON's form: the tolerant pass keeps a member's value, not
// its spacing.
func canonicalRaw(v any) any {
	rawType := reflect.TypeFor[json.RawMessage]()
	var walk func(rv reflect.Value)
	walk = func(rv reflect.Value) {
		switch {
		case rv.Type() == rawType:
			if rv.Len() > 0 && rv.CanSet() {
				rv.Set(reflect.ValueOf(canonicalJSON(rv.Interface().(json.RawMessage))))
			}
		case rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface:
			if !rv.IsNil() {
				walk(rv.Elem())
			}
		case rv.Kind() == reflect.Slice:
			for i := range rv.Len() {
				walk(rv.Index(i))
			}
		case rv.Kind() == reflect.Map && rv.Type().Elem() == rawType:
			for _, k := range rv.MapKeys() {
				rv.SetMapIndex(k, reflect.ValueOf(canonicalJSON(rv.MapIndex(k).Interface().(json.RawMessage))))
			}
		case rv.Kind() == reflect.Struct:
			for i := range rv.NumField() {
				if rv.Type().Field(i).IsExported() {
					walk(rv.Field(i))
				}
			}
		}
	}
	cp := reflect.New(reflect.TypeOf(v)).Elem()
	cp.Set(reflect.ValueOf(v))
	walk(cp)
	return cp.Interface()
}

// looseString reads what encoding/json reads, and "" for anything else.
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

// FuzzDecodePolicy holds the typed pass to the policy. The tolerant pass
// (one tree, one field walk) is the policy's statement; the typed pass,
// json.Unmarshal into a shape's envelope, is how the documented answer is
// read at the cost of one pass. Wherever the typed pass takes a body, the
// tolerant pass alone must read the same values from it. Bodies with two
// keys of one object equal in any case are left out: encoding/json takes
// the last of them and the policy the exact one (or the tree the last),
// and the service sends no such thing.
func FuzzDecodePolicy(f *testing.F) {
	for _, name := range []string{"send_message.json", "get_message.json", "find_messages_page1.json",
		"find_messages_bare.json", "list_properties.json", "list_projects.json", "get_property.json",
		"configure_number.json", "configure_number_bare.json", "search_number_blocks.json", "list_calls.json",
		"get_call.json", "number_details.json"} {
		body := fixture(f, name)
		f.Add(body)
		f.Add(stringifyInts(body))
		f.Add(bytes.ToLower(body))
	}
	for _, s := range []string{`null`, `{}`, `[]`, `{"Message":null}`, `{"message":{"messagesid":"MG1","NumSegments":"2"}}`,
		`{"Properties":null,"Projects":[{"PropertySid":"P1"}]}`, `{"Number":"612","Friendly":"x"}`,
		`{"Messages":[{"MessageSid":"MG1","Created":1e3}]}`, `{"TotalCount":" +7 ","Properties":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := parseTree(b); err != nil || twinKeys(b) {
			return
		}
		agreeOne(t, messageShape, b)
		agreeOne(t, propertyShape, b)
		agreeOne(t, numberShape, b)
		agreeList(t, messagesList, b)
		agreeList(t, propertiesList, b)
		agreeList(t, numberBlocksList, b)
		agreeList(t, numbersList, b)
		agreeList(t, numberDetailsList, b)
	})
}

// twinKeys reports whether an object in the JSON text b has two keys
// equal in any case (the same key twice among them).
func twinKeys(b []byte) bool {
	type frame struct {
		obj, key bool // an object, expecting a key
		keys     map[string]bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
			} else {
				k := strings.ToLower(tok.(string))
				if top.keys[k] {
					return true
				}
				top.keys[k], top.key = true, false
				continue
			}
		} else if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			stack = append(stack, &frame{obj: d == '{', key: d == '{', keys: map[string]bool{}})
			continue
		} else if ok {
			stack = stack[:len(stack)-1]
		}
		// A value ended: the object holding it expects a key next.
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].key = true
		}
	}
}

func agreeOne[T any](t *testing.T, shape *resourceShape[T], b []byte) {
	t.Helper()
	typed := oneAnswer[T]{shape: shape}
	if !typed.typed(b) {
		return
	}
	tree, err := parseTree(b)
	require.NoError(t, err)
	model := oneAnswer[T]{shape: shape}
	require.NoError(t, model.tolerant(tree), "%T: the typed pass read %q", *new(T), b)
	require.True(t, model.ok, "%T: the typed pass found a resource in %q, the policy none", *new(T), b)
	require.Equal(t, canonicalRaw(*model.val), canonicalRaw(*typed.val), "%T in %q", *new(T), b)
}

func agreeList[T any](t *testing.T, shape *listShape[T], b []byte) {
	t.Helper()
	typed := listAnswer[T]{shape: shape}
	if !typed.typed(b) {
		return
	}
	tree, err := parseTree(b)
	require.NoError(t, err)
	model := listAnswer[T]{shape: shape}
	require.NoError(t, model.tolerant(tree), "%T: the typed pass read %q", *new(T), b)
	require.True(t, model.ok, "%T: the typed pass found a listing in %q, the policy none", *new(T), b)
	require.Equal(t, canonicalRaw(model.items), canonicalRaw(typed.items), "[]%T in %q", *new(T), b)
	require.Equal(t, model.meta, typed.meta, "the metadata of %q", b)
}

func TestTwinKeys(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		`{"a":1,"b":2}`: false, `{"a":1,"A":2}`: true, `{"a":1,"a":2}`: true, `[{"a":1},{"a":2}]`: false,
		`{"x":{"a":1},"y":{"a":2}}`: false, `{"x":[{"a":1,"A":1}]}`: true, `{"x":{},"X":[]}`: true, `"a"`: false,
	} {
		assert.Equal(t, want, twinKeys([]byte(body)), body)
	}
}
