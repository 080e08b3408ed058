package telco

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fuzz targets for every decoder that reads the service's bytes, beside
// FuzzDateTime, FuzzTimestamp, FuzzListDecode, FuzzDecodeAPIError and
// FuzzBatchElement. None may panic; each checks what it can of the result.
// Inputs that found distinct paths are kept in testdata/fuzz/<Target>/.

// oneDecoders decode a single-resource body as each service method does.
var oneDecoders = []func(b []byte) (ok bool, err error){
	func(b []byte) (bool, error) {
		o := oneAnswer[Message]{shape: messageShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[Property]{shape: propertyShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[OnlineLogin]{shape: onlineLoginShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[PortingRequest]{shape: portingShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[SipTrunk]{shape: sipTrunkShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[Address]{shape: addressShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[NumberConfig]{shape: numberShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[Number]{shape: ownedNumberShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[NumberPurchase]{shape: purchaseShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
	func(b []byte) (bool, error) {
		o := oneAnswer[Call]{shape: callShape}
		err := o.decodeBody(b)
		return o.ok, err
	},
}

// FuzzOneEnvelope: every single-resource decoder takes any body without
// panicking, and a body that is not JSON is an error, never a resource.
func FuzzOneEnvelope(f *testing.F) {
	for _, name := range []string{"send_message.json", "get_message.json", "create_property.json",
		"get_property.json", "create_online_login.json", "get_online_login.json", "submit_porting_request.json",
		"get_sip_trunk_details.json", "create_address.json", "configure_number.json", "configure_number_bare.json",
		"get_number.json", "purchase_number.json", "get_call.json", "get_address.json"} {
		for k := range oneDecoders {
			f.Add(uint8(k), fixture(f, name))
		}
	}
	f.Add(uint8(6), []byte(`{"Number":"61299999999","NumberConfiguration":{"Number":1}}`))
	f.Add(uint8(0), []byte(`{"message":{"MessageSid":"MG1"}}`))
	f.Add(uint8(0), []byte(`{"MessageSid":null}`))
	f.Add(uint8(0), []byte(refusalBody))
	f.Add(uint8(6), []byte(`{"ErrorCode":"X","Message":"m","Number":"61299999999"}`))
	f.Fuzz(func(t *testing.T, kind uint8, b []byte) {
		ok, err := oneDecoders[int(kind)%len(oneDecoders)](b)
		if err == nil && !json.Valid(b) {
			t.Fatalf("invalid JSON %q decoded (ok=%v)", b, ok)
		}
		if err != nil && ok && !json.Valid(b) {
			t.Fatalf("a resource found in invalid JSON %q", b)
		}
	})
}

// FuzzOnlineLoginGetAnswer: OnlineLogins.Get reads any body without
// panicking into exactly one of a login and an error, never neither, and
// a body that is not JSON is an error.
func FuzzOnlineLoginGetAnswer(f *testing.F) {
	for _, name := range []string{"get_online_login.json", "get_online_login_listing.json", "list_online_logins.json",
		"create_online_login.json"} {
		f.Add(fixture(f, name))
	}
	for _, s := range []string{`{"OnlineLogins":[]}`, `[]`, `[{}]`, `{"OnlineLogins":null}`, `{"OnlineLogins":{}}`,
		`{"OnlineLogin":[]}`, `{"OnlineLoginSid":"x"}`, refusalBody, `null`, `"x"`, `<html>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a := loginAnswer{one: oneAnswer[OnlineLogin]{shape: onlineLoginShape}, list: listAnswer[OnlineLogin]{shape: onlineLoginsList}}
		if err := a.decodeBody(b); err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON %q decoded", b)
		}
		login, err := a.login(&call{op: "OnlineLogins.Get"}, "9a1c4e27-0b3d-4f58-8e6a-2c7d9b1f0e35")
		if (login == nil) == (err == nil) {
			t.Fatalf("login %v and error %v from %q", login, err, b)
		}
	})
}

// listDecoders decode a listing as each service method does and return the
// number of items.
var listDecoders = []func(b []byte) (n int, err error){
	func(b []byte) (int, error) {
		l := listAnswer[Message]{shape: messagesList}
		err := l.decodeBody(b)
		return len(l.page().Items), err
	},
	func(b []byte) (int, error) {
		l := listAnswer[OnlineLogin]{shape: onlineLoginsList}
		err := l.decodeBody(b)
		return len(l.items), err
	},
	func(b []byte) (int, error) {
		l := listAnswer[PortingRequest]{shape: portingList}
		err := l.decodeBody(b)
		return len(l.items), err
	},
	func(b []byte) (int, error) {
		l := listAnswer[SipTrunk]{shape: sipTrunksList}
		err := l.decodeBody(b)
		return len(l.items), err
	},
	func(b []byte) (int, error) {
		l := listAnswer[wireNumberDetail]{shape: numberDetailsList}
		err := l.decodeBody(b)
		return len(l.items), err
	},
	func(b []byte) (int, error) {
		l := listAnswer[any]{shape: batchElements}
		err := l.decodeBody(b)
		return len(l.items), err
	},
	func(b []byte) (int, error) {
		l := listAnswer[Flow]{shape: flowsList}
		err := l.decodeBody(b)
		return len(l.items), err
	},
	func(b []byte) (int, error) {
		l := listAnswer[Address]{shape: addressesList}
		err := l.decodeBody(b)
		return len(l.items), err
	},
	func(b []byte) (int, error) {
		l := listAnswer[Number]{shape: numbersList}
		err := l.decodeBody(b)
		return len(l.items), err
	},
}

// FuzzListEnvelope: every listing decoder takes any body without panicking
// and never finds more items than the body has bytes.
func FuzzListEnvelope(f *testing.F) {
	for _, name := range []string{"find_messages_page1.json", "find_messages_bare.json", "list_online_logins.json",
		"porting_status_page1.json", "list_sip_trunks.json", "number_details.json", "send_batch_messages.json",
		"send_batch_messages_error.json"} {
		for k := range listDecoders {
			f.Add(uint8(k), fixture(f, name))
		}
	}
	f.Add(uint8(4), []byte(`{"numbers":[{"e164":"+61299999999"},{"e164":true}]}`))
	f.Add(uint8(5), []byte(`{"results":[1,{},null],"totalcount":"7","nextpagetoken":3}`))
	f.Add(uint8(1), []byte(refusalBody))
	f.Add(uint8(2), []byte(`{"PortingRequests":null,"ErrorCode":"X"}`))
	f.Fuzz(func(t *testing.T, kind uint8, b []byte) {
		n, err := listDecoders[int(kind)%len(listDecoders)](b)
		if err == nil && n > len(b) {
			t.Fatalf("%d items from %d bytes", n, len(b))
		}
		if err == nil && !json.Valid(b) {
			t.Fatalf("invalid JSON %q decoded", b)
		}
	})
}

// FuzzBatchResults: a batch answer decodes, element by element, into
// exactly one of a message and an error each.
func FuzzBatchResults(f *testing.F) {
	f.Add(fixture(f, "send_batch_messages.json"))
	f.Add(fixture(f, "send_batch_messages_error.json"))
	f.Add([]byte(`[{"MessageSid":"MG1"},{"ErrorCode":"X"},{"Message":{"MessageSid":""}},"x",[]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l := listAnswer[any]{shape: batchElements}
		if l.decodeBody(b) != nil {
			return
		}
		for _, raw := range l.items {
			r := decodeBatchElement("Messages.SendBatch", raw)
			if (r.Message == nil) == (r.Err == nil) {
				t.Fatalf("want exactly one of Message and Err for %q", raw)
			}
		}
	})
}

// FuzzNumberBlockPage: a number-block page decodes without panicking, what
// plain json.Unmarshal reads the tolerant decoder reads the same, and its
// assignments re-encode to what was read.
func FuzzNumberBlockPage(f *testing.F) {
	f.Add(fixture(f, "search_number_blocks.json"))
	f.Add(stringifyInts(fixture(f, "search_number_blocks.json")))
	f.Add([]byte(`{"Data":[{"Created":"/Date(1577836800000+1000)/","NumberBlockAssignments":[{"a":1},null,3]}]}`))
	f.Add([]byte(`{"Data":null,"TotalCount":"x"}`))
	f.Add([]byte(`{"Data":[{"Id":"12","SipTrunkId":"7","AnalyticsDynamicNumbers":[{"Id":"5"}]}],"PageSize":"10"}`))
	f.Add([]byte(`[{"Id":"1","BlockSize":""}]`))
	f.Add([]byte(`{"Data":[{"Id":"x"}]}`))
	f.Add([]byte(`{"Data":[{"NumberBlockAssignments":[{"Note":"<&>"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var bp blockPage
		err := bp.decodeBody(b)
		var strict NumberBlockPage
		if json.Unmarshal(b, &strict) == nil && err == nil && !reflect.DeepEqual(strict, bp.page) {
			t.Fatalf("%q: tolerant %+v, plain %+v", b, bp.page, strict)
		}
		if err != nil {
			return
		}
		p := bp.page
		for _, blk := range p.Data {
			for _, a := range blk.NumberBlockAssignments {
				out, err := json.Marshal(a)
				if err != nil {
					t.Fatalf("re-encode %q: %v", a.Raw, err)
				}
				// encoding/json compacts a RawMessage and escapes
				// HTML in it: compare values, not bytes.
				if len(a.Raw) > 0 && !bytes.Equal(canonicalJSON(out), canonicalJSON(a.Raw)) {
					t.Fatalf("assignment %q re-encoded as %q", a.Raw, out)
				}
			}
		}
	})
}

// FuzzScopes: scopes decode from any body without panicking, and what
// decodes re-encodes to the same set.
func FuzzScopes(f *testing.F) {
	for _, s := range []string{`"Sms,Voice"`, `["Sms","Voice"]`, `null`, `""`, `" , ,Sms"`, `[1]`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Scopes
		if json.Unmarshal(b, &s) != nil {
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("marshal %v: %v", s, err)
		}
		var back Scopes
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-read %s: %v", out, err)
		}
		if len(s) != len(back) || (len(s) > 0 && !reflect.DeepEqual(s, back)) {
			t.Fatalf("%s -> %v -> %s -> %v", b, s, out, back)
		}
	})
}

// FuzzNumberDetail: a lookup result decodes without panicking; an e164 that
// decodes is never negative unless sent so.
func FuzzNumberDetail(f *testing.F) {
	for _, s := range []string{`{"e164":61299999999,"carrier":"x"}`, `{"e164":"+61299999999"}`, `{"e164":null}`,
		`{"e164":"+"}`, `{"e164":1e3}`, `{"e164":"99999999999999999999"}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d NumberDetail
		if json.Unmarshal(b, &d) != nil {
			return
		}
		if d.E164 < 0 && !bytes.Contains(b, []byte("-")) {
			t.Fatalf("negative e164 %d from %q", d.E164, b)
		}
	})
}

// responseTargets are the out values do decodes into, one per kind of
// answer.
func responseTargets() []bodyDecoder {
	return []bodyDecoder{
		&oneAnswer[Message]{shape: messageShape},
		&listAnswer[Property]{shape: propertiesList},
		&listAnswer[any]{shape: batchElements},
		&blockPage{},
		&idAnswer{key: "SipTrunkSid"},
		nil,
	}
}

// FuzzDecodeResponse: the whole response path, status and body, with a
// small success-body cap: a non-2xx is always an *APIError with its status
// and never keeps more than 4 KiB; a success body over the cap is always
// ErrResponseTooLarge; nothing panics.
func FuzzDecodeResponse(f *testing.F) {
	f.Add(200, uint8(0), fixture(f, "send_message.json"), false)
	f.Add(200, uint8(1), fixture(f, "list_properties.json"), true)
	f.Add(200, uint8(2), fixture(f, "send_batch_messages.json"), false)
	f.Add(200, uint8(3), fixture(f, "search_number_blocks.json"), true)
	f.Add(201, uint8(4), []byte(`{"SipTrunkSid":"ST1"}`), false)
	f.Add(200, uint8(2), []byte(refusalBody), false)
	f.Add(204, uint8(5), []byte{}, true)
	f.Add(400, uint8(0), fixture(f, "error_parameter_required.json"), false)
	f.Add(502, uint8(1), fixture(f, "error_proxy_500.html"), true)
	const limit = 1 << 10
	c := &Client{maxBody: limit}
	f.Fuzz(func(t *testing.T, status int, kind uint8, body []byte, idempotent bool) {
		if status < 100 || status > 999 {
			return // net/http never delivers such a status
		}
		targets := responseTargets()
		out := targets[int(kind)%len(targets)]
		r := &call{op: "Op", idempotent: idempotent, emptyOK: kind%2 == 0}
		resp := &http.Response{StatusCode: status, Body: io.NopCloser(bytes.NewReader(body))}
		st := &attemptState{client: c, call: r, maybeSent: true}
		if err := st.readAnswer(resp); err != nil {
			t.Fatalf("reading a whole body: %v", err)
		}
		err := c.decodeResponse(r, st, resp, out)
		if status < 200 || status > 299 {
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != status {
				t.Fatalf("status %d gave %v", status, err)
			}
			if len(ae.Body) > errBodyKeep {
				t.Fatalf("kept %d bytes", len(ae.Body))
			}
			if errors.Is(err, ErrMaybeSent) == idempotent {
				t.Fatalf("ErrMaybeSent=%v for idempotent=%v", !idempotent, idempotent)
			}
			return
		}
		if len(body) > limit {
			if !errors.Is(err, ErrResponseTooLarge) {
				t.Fatalf("%d bytes over a %d cap gave %v", len(body), limit, err)
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != status {
				t.Fatalf("too large lost the status: %v", err)
			}
			return
		}
		if err != nil {
			_ = err.Error()
			// A refusal is the service saying it did not act; anything
			// else that failed after a 2xx took effect.
			var ae *APIError
			refused := errors.As(err, &ae) && ae.Code != "" && ae.Body == nil
			if !idempotent && !refused && !errors.Is(err, ErrMaybeSent) {
				t.Fatalf("a 2xx to a non-idempotent call that failed to decode must be ErrMaybeSent: %v", err)
			}
			if refused && errors.Is(err, ErrMaybeSent) {
				t.Fatalf("a refusal in a 2xx must not be ErrMaybeSent: %v", err)
			}
		}
	})
}

// FuzzCallsAnswer: the call listing's decoder (whose shape is inferred)
// takes any body without panicking, finds no more calls than the body has
// bytes, and every call it finds writes back to JSON that decodes to the
// same call.
func FuzzCallsAnswer(f *testing.F) {
	f.Add(fixture(f, "list_calls.json"))
	f.Add([]byte(`[{"CallSid":"CA1","Duration":"x"}]`))
	f.Add([]byte(`{"calls":null,"token":5}`))
	f.Add([]byte(refusalBody))
	// Found by CI's fuzzing: an unknown member's "&" came back as "\u0026".
	f.Add([]byte(`[{"CallSid":"CA1","Duratien":"&","Note":"<\u2028>"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a callsAnswer
		err := a.decodeBody(b)
		if err == nil && !json.Valid(b) {
			t.Fatalf("invalid JSON %q decoded", b)
		}
		if len(a.page.Calls) > len(b) {
			t.Fatalf("%d calls from %d bytes", len(a.page.Calls), len(b))
		}
		for _, c := range a.page.Calls {
			out, err := json.Marshal(c)
			if err != nil {
				t.Fatalf("marshal %+v: %v", c, err)
			}
			var back Call
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("decode %s: %v", out, err)
			}
			if !namesAField(c.Extra) && !reflect.DeepEqual(normalCall(c), normalCall(back)) {
				t.Fatalf("round trip changed the call:\n%+v\n%+v", c, back)
			}
		}
	})
}

// namesAField reports whether a member of extra is named, in some case,
// like a field of Call or one of its aliases: such a member and the field
// share one name in JSON, so a round trip keeps only one of them.
func namesAField(extra map[string]json.RawMessage) bool {
	for k := range extra {
		for _, f := range wireFields(reflect.TypeFor[Call]()) {
			for _, n := range f.names {
				if strings.EqualFold(k, n) {
					return true
				}
			}
		}
	}
	return false
}

// normalCall is c with Extra compared by meaning, not by bytes: a round
// trip re-indents raw members and re-escapes their strings.
func normalCall(c Call) Call {
	if len(c.Extra) == 0 {
		c.Extra = nil
		return c
	}
	m := make(map[string]json.RawMessage, len(c.Extra))
	for k, v := range c.Extra {
		m[k] = canonicalJSON(v)
	}
	c.Extra = m
	return c
}

// canonicalJSON writes v in one form per JSON value: whitespace and
// escapes (json.Marshal writes "&" as "\u0026") do not tell two values
// apart, numbers keep their digits. v is kept as it is when it does not
// decode.
func canonicalJSON(v json.RawMessage) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if d.Decode(&x) != nil {
		return v
	}
	b, err := json.Marshal(x)
	if err != nil {
		return v
	}
	return b
}

// FuzzRedactForm: the redactor reads hostile bytes (an error page). It
// never leaves a plain echo of the secret, nor an echo under any of
// echoEncodings, wherever in the page it sits. Secrets are kept free of
// the letters of "[REDACTED]", which could otherwise spell one across a
// replacement.
func FuzzRedactForm(f *testing.F) {
	f.Add([]byte("<pre>Authorization: "), "Se/cr3t \"pa<s>s\"&'w+rd!", uint8(0))
	f.Add([]byte("%4\\&#x"), "&amp;&amp;%41", uint8(3))
	f.Add([]byte("\\u00"), "\U0001F600pass", uint8(8))
	names := make([]string, 0, len(echoEncodings))
	for name := range echoEncodings {
		names = append(names, name)
	}
	sort.Strings(names)
	f.Fuzz(func(t *testing.T, page []byte, secret string, enc uint8) {
		if secret == "" || strings.ContainsAny(secret, "[]REDACT") || !utf8.ValidString(secret) {
			return
		}
		echo := echoEncodings[names[int(enc)%len(names)]](secret)
		body := append(append(append(append([]byte(nil), page...), secret...), echo...), page...)
		out := redactForms(appendForms(nil, secret), body)
		if bytes.Contains(out, []byte(secret)) {
			t.Fatalf("a plain echo is left")
		}
		if bytes.Contains(out, []byte(echo)) {
			t.Fatalf("an encoded echo is left")
		}
	})
}

// FuzzIntOf: the one integer rule (decode.go), read without allocating in
// its common forms, accepts and reads exactly what its plain statement
// does: a JSON number, or a string holding one with spaces around it and
// a leading + allowed, "" and null being 0. flexInt and looseCount, which
// apply it, agree with it; e164 was its own reader before.
func FuzzIntOf(f *testing.F) {
	for _, s := range []string{`61299999999`, `"+61299999999"`, `"61299999999"`, `null`, ` 6 `, `-5`, `"++6"`,
		`9223372036854775807`, `9223372036854775808`, `"+"`, `1e3`, `true`, `""`, `" 12 "`, `"+-5"`, `"-0"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := intOf(b)
		s := strings.TrimSpace(string(b))
		var want int64
		var werr error
		switch {
		case s == "null":
		case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' && strings.TrimSpace(s[1:len(s)-1]) == "":
		default:
			if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
				s = strings.TrimSpace(s[1 : len(s)-1])
			}
			if strings.HasPrefix(s, "+-") || strings.HasPrefix(s, "++") {
				s = "x" // one sign only
			}
			want, werr = strconv.ParseInt(s, 10, 64)
		}
		if (err != nil) != (werr != nil) || (err == nil && got != want) {
			t.Fatalf("%q: got %d, %v; plain %d, %v", b, got, err, want, werr)
		}
		var n flexInt
		if ferr := n.UnmarshalJSON(b); (ferr != nil) != (err != nil) || int64(n) != got {
			t.Fatalf("%q: flexInt %d, %v; intOf %d, %v", b, n, ferr, got, err)
		}
		var c looseCount
		if c.UnmarshalJSON(b) != nil || (err == nil && int64(c) != got) || (err != nil && c != 0) {
			t.Fatalf("%q: looseCount %d; intOf %d, %v", b, c, got, err)
		}
	})
}
