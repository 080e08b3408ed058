package smswire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

// wireNames are the fields of operation 6 as the interface document
// spells them, written out here rather than read from the table, which
// they check.
var wireNames = []string{
	"From", "To", "Text", "Schedule", "DeliveryReceipt", "DeliveryReceiptWebhookUri",
	"DeliveryReceiptWebhookMethod", "ExternalId", "ForwardToSms", "ForwardFromSms",
	"ForwardToEmail", "ForwardFromEmail", "WebhookUri", "WebhookMethod",
}

func ptr[T any](v T) *T { return &v }

// full is a send with every field set, and fullJSON the same send on the
// wire.
var full = telco.SendMessageParams{
	From: "Acme", To: "+61400000001", Text: "Your order has shipped",
	Schedule:        time.Unix(1_800_000_000, 0).UTC(),
	DeliveryReceipt: ptr(false), DeliveryReceiptWebhookURI: "https://hooks.example/dr", DeliveryReceiptWebhookMethod: "GET",
	ExternalID:   "order-7",
	ForwardToSms: "+61400000002", ForwardFromSms: "Acme", ForwardToEmail: "ops@example.com",
	ForwardFromEmail: "noreply@example.com", WebhookURI: "https://hooks.example/reply", WebhookMethod: "POST",
}

const fullJSON = `{"From":"Acme","To":"+61400000001","Text":"Your order has shipped","Schedule":1800000000,
	"DeliveryReceipt":false,"DeliveryReceiptWebhookUri":"https://hooks.example/dr","DeliveryReceiptWebhookMethod":"GET",
	"ExternalId":"order-7","ForwardToSms":"+61400000002","ForwardFromSms":"Acme","ForwardToEmail":"ops@example.com",
	"ForwardFromEmail":"noreply@example.com","WebhookUri":"https://hooks.example/reply","WebhookMethod":"POST"}`

func TestFields_AreTheInterfaceDocumentsInItsOrder(t *testing.T) {
	var names []string
	var leaseOnly []string
	for _, f := range Fields() {
		names = append(names, f.Name)
		if f.LeaseOnly {
			leaseOnly = append(leaseOnly, f.Name)
		}
	}
	assert.Equal(t, wireNames, names)
	assert.Equal(t, []string{"ForwardToSms", "ForwardFromSms", "ForwardToEmail", "ForwardFromEmail", "WebhookUri", "WebhookMethod"},
		leaseOnly, "the lease-only properties of operation 6")
	assert.Less(t, len(fields), 64, "DecodeObject marks the fields it has seen in a uint64")

	kinds := map[string]Kind{}
	for _, f := range Fields() {
		kinds[f.Name] = f.Kind
	}
	assert.Equal(t, UnixSeconds, kinds["Schedule"])
	assert.Equal(t, Bool, kinds["DeliveryReceipt"])
	for _, n := range wireNames {
		if n != "Schedule" && n != "DeliveryReceipt" {
			assert.Equal(t, String, kinds[n], n)
		}
	}
}

func TestFields_IsACopy(t *testing.T) {
	fs := Fields()
	fs[0].Name = "Sender"
	f, ok := Lookup("From")
	require.True(t, ok, "changing the returned slice must not change the table")
	assert.Equal(t, "From", f.Name)
}

func TestLookup_AnyCase(t *testing.T) {
	for _, name := range []string{"ExternalId", "externalid", "EXTERNALID", "externalId"} {
		f, ok := Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, "ExternalId", f.Name, "the table's spelling, whatever the caller's")
	}
	for _, name := range []string{"", "ExternalID2", "Messages", "DeliveryReceiptWebhookUrl"} {
		_, ok := Lookup(name)
		assert.False(t, ok, name)
	}
}

func TestDecodeJSON_EveryField(t *testing.T) {
	var p telco.SendMessageParams
	unknown, err := DecodeJSON([]byte(fullJSON), &p)
	require.NoError(t, err)
	assert.Empty(t, unknown)
	assert.Equal(t, full, p)
}

// Each field on its own, so that a field read into the wrong member of
// the params shows which.
func TestDecodeJSON_EachFieldAlone(t *testing.T) {
	var whole map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(fullJSON), &whole))
	for _, f := range Fields() {
		t.Run(f.Name, func(t *testing.T) {
			one, _ := json.Marshal(map[string]json.RawMessage{f.Name: whole[f.Name]})
			var p telco.SendMessageParams
			_, err := DecodeJSON(one, &p)
			require.NoError(t, err)
			want := telco.SendMessageParams{}
			require.NoError(t, f.Set(&want, f.Get(&full)))
			assert.Equal(t, want, p)
			assert.NotEqual(t, telco.SendMessageParams{}, p, "the field set nothing")
			for _, g := range Fields() {
				if g.Name != f.Name {
					assert.Empty(t, g.Get(&p), "%s also set %s", f.Name, g.Name)
				}
			}
		})
	}
}

func TestDecodeJSON_KeysInAnyCase(t *testing.T) {
	var p telco.SendMessageParams
	unknown, err := DecodeJSON([]byte(`{"from":"Acme","TO":"+61400000001","tExT":"hi","schedule":1800000000,
		"deliveryreceipt":true,"externalID":"e1","webhookuri":"https://h.example"}`), &p)
	require.NoError(t, err)
	assert.Empty(t, unknown)
	assert.Equal(t, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "hi",
		Schedule: time.Unix(1_800_000_000, 0).UTC(), DeliveryReceipt: ptr(true), ExternalID: "e1",
		WebhookURI: "https://h.example"}, p)
}

func TestDecodeJSON_AFieldNamedTwiceIsAnError(t *testing.T) {
	var p telco.SendMessageParams
	_, err := DecodeJSON([]byte(`{"To":"+61400000001","to":"+61400000002","Text":"hi"}`), &p)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "To", e.Field)
	assert.Equal(t, `To: given twice, as "To" and "to"`, err.Error(), "which of two recipients is meant is not a guess")
}

func TestDecodeJSON_AKeyGivenTwiceIsAnError(t *testing.T) {
	var p telco.SendMessageParams
	_, err := DecodeJSON([]byte(`{"Text":"hi","To":"+61400000001","To":"+61400000002"}`), &p)
	var e *Error
	require.ErrorAs(t, err, &e, "encoding/json would take the last; the bytes show both")
	assert.Equal(t, `To: given twice, as "To" and "To"`, err.Error())
}

func TestDecodeJSON_FirstErrorIsTheFirstInTheObject(t *testing.T) {
	var p telco.SendMessageParams
	_, err := DecodeJSON([]byte(`{"To":1,"Text":2,"ExternalId":3}`), &p)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "To", e.Field)
}

// Keys with escapes and values of every JSON shape are walked as
// encoding/json reads them.
func TestDecodeJSON_WalksEveryShape(t *testing.T) {
	var p telco.SendMessageParams
	unknown, err := DecodeJSON([]byte(` { "\u0054o" : "+61400000001" , "Nested" : {"a":[1,{"b":"}]\""}],"To2":{}},
		"List":[ "x", [], {} ],"n":-1.5e3,"t":true,"f":false,"z":null,"Te\u0078t":"a}b,c]d\\" } `), &p)
	require.NoError(t, err)
	assert.Equal(t, []string{"List", "Nested", "f", "n", "t", "z"}, unknown)
	assert.Equal(t, telco.SendMessageParams{To: "+61400000001", Text: `a}b,c]d\`}, p)

	_, err = DecodeJSON([]byte(`{}`), &p)
	require.NoError(t, err)
	unknown, err = DecodeJSON([]byte("{\n}\n"), &p)
	require.NoError(t, err)
	assert.Empty(t, unknown)
}

func TestDecodeJSON_UnknownKeysAreReturnedSortedAndIgnored(t *testing.T) {
	var p telco.SendMessageParams
	unknown, err := DecodeJSON([]byte(`{"To":"+61400000001","Text":"hi","Zeta":1,"Campaign":"spring","Messages":[]}`), &p)
	require.NoError(t, err)
	assert.Equal(t, []string{"Campaign", "Messages", "Zeta"}, unknown)
	assert.Equal(t, telco.SendMessageParams{To: "+61400000001", Text: "hi"}, p, "the known fields are read all the same")
}

func TestDecodeJSON_NullLeavesAFieldAsItIs(t *testing.T) {
	p := telco.SendMessageParams{Text: "kept", DeliveryReceipt: ptr(true), Schedule: full.Schedule}
	_, err := DecodeJSON([]byte(`{"Text":null,"DeliveryReceipt":null,"Schedule":null,"To":"+61400000001"}`), &p)
	require.NoError(t, err)
	assert.Equal(t, telco.SendMessageParams{To: "+61400000001", Text: "kept", DeliveryReceipt: ptr(true), Schedule: full.Schedule}, p)
}

func TestDecodeJSON_TypeErrors(t *testing.T) {
	for _, c := range []struct {
		body, field, why string
	}{
		{`{"To":61400000001}`, "To", "a number for a recipient would lose its +"},
		{`{"Text":["a","b"]}`, "Text", "an array is not a text"},
		{`{"ExternalId":7}`, "ExternalId", "an id is a string on the wire"},
		{`{"WebhookMethod":true}`, "WebhookMethod", "a method is a string"},
		{`{"Schedule":"1800000000"}`, "Schedule", "the service reads an integer, not a string of digits"},
		{`{"Schedule":"2027-01-15T09:00:00Z"}`, "Schedule", "RFC 3339 is a convenience of the CLI, not the wire"},
		{`{"Schedule":1800000000.5}`, "Schedule", "no fractions of a second"},
		{`{"Schedule":1.8e9}`, "Schedule", "an exponent is not an integer to the service"},
		{`{"Schedule":99999999999999999999}`, "Schedule", "out of range of a 64-bit integer"},
		{`{"Schedule":true}`, "Schedule", "a boolean is not a time"},
		{`{"DeliveryReceipt":"true"}`, "DeliveryReceipt", "the service reads a JSON boolean"},
		{`{"DeliveryReceipt":1}`, "DeliveryReceipt", "1 is not a JSON boolean"},
		{`{"DeliveryReceipt":{}}`, "DeliveryReceipt", "an object is not a boolean"},
	} {
		t.Run(c.why, func(t *testing.T) {
			var p telco.SendMessageParams
			_, err := DecodeJSON([]byte(c.body), &p)
			var e *Error
			require.ErrorAs(t, err, &e, c.why)
			assert.Equal(t, c.field, e.Field)
			assert.True(t, strings.HasPrefix(err.Error(), c.field+": must be "), err.Error())
			assert.Equal(t, telco.SendMessageParams{}, p, "a refused value sets nothing")
		})
	}
}

func TestDecodeJSON_NotAnObject(t *testing.T) {
	for _, body := range []string{`null`, `[]`, `"To"`, `42`, ``, `{"To":`, `{"To":"+61400000001"} {}`} {
		var p telco.SendMessageParams
		_, err := DecodeJSON([]byte(body), &p)
		var e *Error
		require.ErrorAs(t, err, &e, body)
		assert.Empty(t, e.Field, body)
		assert.Contains(t, err.Error(), "a message must be a JSON object", body)
	}
}

func TestDecodeJSON_Strings(t *testing.T) {
	var p telco.SendMessageParams
	_, err := DecodeJSON([]byte(`{"Text":"line one\nline \"two\" \u00e9 \ud83d\ude00","From":"","ExternalId":"caf\u00e9"}`), &p)
	require.NoError(t, err)
	assert.Equal(t, "line one\nline \"two\" é 😀", p.Text)
	assert.Equal(t, "café", p.ExternalID)
	assert.Empty(t, p.From, "an empty From asks for a lease")

	_, err = DecodeJSON([]byte("{\"Text\":\"bad \xff byte\"}"), &p)
	require.NoError(t, err)
	assert.Equal(t, "bad \uFFFD byte", p.Text, "invalid UTF-8 reads as encoding/json reads it")
}

func TestDecodeJSON_WebhookMethodsInAnyCase(t *testing.T) {
	for in, want := range map[string]string{"post": "POST", "Post": "POST", "GET": "GET", "get": "GET", "Get": "GET",
		"fetch": "fetch", "PUT": "PUT", "": ""} {
		var p telco.SendMessageParams
		_, err := DecodeJSON([]byte(`{"WebhookMethod":"`+in+`","DeliveryReceiptWebhookMethod":"`+in+`"}`), &p)
		require.NoError(t, err, in)
		assert.Equal(t, want, p.WebhookMethod, "%q: GET and POST in upper case, anything else as given for the rules to refuse", in)
		assert.Equal(t, want, p.DeliveryReceiptWebhookMethod, in)
	}
}

func TestDecodeObject_FirstErrorIsTheSameOnEveryRun(t *testing.T) {
	obj := map[string]json.RawMessage{"To": json.RawMessage(`1`), "Text": json.RawMessage(`2`), "From": json.RawMessage(`3`),
		"ExternalId": json.RawMessage(`4`)}
	for range 20 {
		var p telco.SendMessageParams
		_, err := DecodeObject(obj, &p)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "ExternalId", e.Field, "the first of the sorted keys")
	}
}

func TestDecodeObject_LeavesOtherFieldsAlone(t *testing.T) {
	p := telco.SendMessageParams{From: "Acme", ExternalID: "keep"}
	_, err := DecodeObject(map[string]json.RawMessage{"To": json.RawMessage(`"+61400000001"`)}, &p)
	require.NoError(t, err)
	assert.Equal(t, telco.SendMessageParams{From: "Acme", To: "+61400000001", ExternalID: "keep"}, p)
}

func TestSet_TextForms(t *testing.T) {
	schedule, _ := Lookup("Schedule")
	receipt, _ := Lookup("DeliveryReceipt")
	var p telco.SendMessageParams

	require.NoError(t, schedule.Set(&p, " 1800000000 "))
	assert.Equal(t, time.Unix(1_800_000_000, 0).UTC(), p.Schedule)
	assert.Equal(t, "1800000000", schedule.Get(&p))
	require.NoError(t, schedule.Set(&p, "0"))
	assert.True(t, p.Schedule.IsZero(), "0 is no schedule, as an absent one")
	require.NoError(t, schedule.Set(&p, "1800000000"))
	require.NoError(t, schedule.Set(&p, ""))
	assert.True(t, p.Schedule.IsZero(), "empty text is the zero value")
	assert.Empty(t, schedule.Get(&p))

	require.NoError(t, schedule.Set(&p, "1800000000"))
	for _, bad := range []string{"soon", "2027-01-15T09:00:00Z", "1.5", "0x10"} {
		err := schedule.Set(&p, bad)
		var e *Error
		require.ErrorAs(t, err, &e, bad)
		assert.Equal(t, "Schedule", e.Field)
		assert.Contains(t, err.Error(), "Unix seconds", bad)
		assert.Equal(t, time.Unix(1_800_000_000, 0).UTC(), p.Schedule, "a refused value leaves p as it was")
	}

	for in, want := range map[string]bool{"true": true, "false": false, " TRUE ": true, "0": false, "t": true} {
		require.NoError(t, receipt.Set(&p, in), in)
		require.NotNil(t, p.DeliveryReceipt, in)
		assert.Equal(t, want, *p.DeliveryReceipt, in)
	}
	assert.Equal(t, "true", receipt.Get(&telco.SendMessageParams{DeliveryReceipt: ptr(true)}))
	require.NoError(t, receipt.Set(&p, ""))
	assert.Nil(t, p.DeliveryReceipt, "empty text leaves the service default")
	assert.Empty(t, receipt.Get(&p))
	p.DeliveryReceipt = ptr(true)
	err := receipt.Set(&p, "maybe")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, `DeliveryReceipt: "maybe" is not true or false`, err.Error())
	assert.True(t, *p.DeliveryReceipt, "a refused value leaves p as it was")

	text, _ := Lookup("Text")
	require.NoError(t, text.Set(&p, "  spaced  "))
	assert.Equal(t, "  spaced  ", p.Text, "a text is taken as it is")
}

// Get and Set are inverses for every field: the text form of a value reads
// back as the value.
func TestGetSet_RoundTripEveryField(t *testing.T) {
	var p telco.SendMessageParams
	for _, f := range Fields() {
		require.NoError(t, f.Set(&p, f.Get(&full)), f.Name)
	}
	assert.Equal(t, full, p)
}

func TestKind_String(t *testing.T) {
	assert.Equal(t, "a JSON string", String.String())
	assert.Equal(t, "a whole number of Unix seconds", UnixSeconds.String())
	assert.Equal(t, "true or false", Bool.String())
	assert.Equal(t, "Kind(0)", Kind(0).String())
}

func TestError_QuotesLongValuesShort(t *testing.T) {
	var p telco.SendMessageParams
	long := strings.Repeat("é", 40)
	_, err := DecodeJSON([]byte(`{"Schedule":"`+long+`"}`), &p)
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 100, err.Error())
	assert.True(t, strings.HasSuffix(err.Error(), "..."), err.Error())
	schedule, _ := Lookup("Schedule")
	err = schedule.Set(&p, long)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\\x", "cut at a rune boundary")
	assert.True(t, errors.As(err, new(*Error)))
}

// DecodeJSON never panics, and what it reads survives the trip through
// the text forms (what the CLI's CSV reader does with it).
func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(fullJSON))
	f.Add([]byte(`{"to":"+61400000001","TO":"x"}`))
	f.Add([]byte(`{"Schedule":-5,"DeliveryReceipt":true,"Text":"\u0000"}`))
	f.Add([]byte(`[1]`))
	f.Add([]byte(`{"a":{"b":[1,"]}"]},"\u0054EXT":"x\"y","n":1e3}`))
	f.Add([]byte(`{"Schedule":9223372036854775807}`))
	f.Add([]byte(`{"Schedule":-62135596800}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p telco.SendMessageParams
		if _, err := DecodeJSON(data, &p); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		// The walk over the bytes and the map of members agree.
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("DecodeJSON took what encoding/json refuses: %v", err)
		}
		var m telco.SendMessageParams
		if _, err := DecodeObject(obj, &m); err != nil {
			t.Fatalf("DecodeObject refused what DecodeJSON took: %v", err)
		}
		pj, _ := json.Marshal(p)
		mj, _ := json.Marshal(m)
		if string(pj) != string(mj) {
			t.Fatalf("DecodeJSON and DecodeObject differ:\n%s\n%s", pj, mj)
		}

		var q telco.SendMessageParams
		for _, f := range Fields() {
			if err := f.Set(&q, f.Get(&p)); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
		}
		if !q.Schedule.Equal(p.Schedule) {
			t.Fatalf("Schedule %v read back as %v", p.Schedule, q.Schedule)
		}
		q.Schedule = p.Schedule
		pb, _ := json.Marshal(p)
		qb, _ := json.Marshal(q)
		if string(pb) != string(qb) {
			t.Fatalf("read back differently:\n%s\n%s", pb, qb)
		}
	})
}
