package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

var tokenRe = regexp.MustCompile(`token: (\S+)`)

func TestCallsListGetAndToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a := h.srv.AddCall(h.srv.PropertySid, telco.Call{From: "+61412345001", Disposition: telco.CallBusy, AttributionSource: "google"})
	b := h.srv.AddCall(h.srv.PropertySid, telco.Call{From: "+61412345002", PromptsKeys: "1,2"})

	r := h.run("calls", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, a.CallSid)
	assert.Contains(t, r.stdout, b.CallSid)
	m := tokenRe.FindStringSubmatch(r.stderr)
	require.Len(t, m, 2, "the Token goes to standard error: %s", r.stderr)

	c := h.srv.AddCall(h.srv.PropertySid, telco.Call{})
	r = h.run("calls", "list", "--token", m[1], "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var page []telco.Call
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page), "the calls, as every list prints its items")
	require.Len(t, page, 1)
	assert.Equal(t, c.CallSid, page[0].CallSid)

	filtered := h.ok("calls", "list", "--disposition", "Busy", "--source", "google")
	assert.Contains(t, filtered, a.CallSid)
	assert.NotContains(t, filtered, b.CallSid)
	assert.Contains(t, h.ok("calls", "list", "--keys", "1"), b.CallSid)
	assert.NotContains(t, h.ok("calls", "list", "--account", h.srv.AccountSid, "--since", "+1h"), a.CallSid)

	var all []telco.Call
	h.jsonOf(&all, "calls", "list", "--all")
	assert.Len(t, all, 3)

	var got telco.Call
	h.jsonOf(&got, "calls", "get", a.CallSid)
	assert.Equal(t, "+61412345001", got.From)
	assert.Contains(t, h.ok("calls", "get", b.CallSid), "1,2")

	assert.Equal(t, 2, h.run("calls", "list", "--disposition", "Hungup").code)
	assert.Equal(t, 2, h.run("calls", "list", "--all", "--follow").code)
	assert.Equal(t, 2, h.run("calls", "list", "--keys", "1,a").code)
}

// --follow prints calls as they are written, one line each, until its
// context ends, and then the Token to resume from.
func TestCallsListFollow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	first := h.srv.AddCall(h.srv.PropertySid, telco.Call{From: "+61412345001"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"calls", "list", "--follow", "--interval", "10ms", "-o", "json"}, strings.NewReader(""),
			&out, &errOut, func(k string) string { return h.env[k] })
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), first.CallSid) }, 5*time.Second, 5*time.Millisecond)
	later := h.srv.AddCall(h.srv.PropertySid, telco.Call{From: "+61412345002"})
	require.Eventually(t, func() bool { return strings.Contains(out.String(), later.CallSid) }, 5*time.Second, 5*time.Millisecond)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
	case <-time.After(5 * time.Second):
		t.Fatal("follow did not stop with its context")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2, "one JSON line per call")
	var c telco.Call
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &c))
	assert.Equal(t, later.CallSid, c.CallSid)
	assert.Regexp(t, tokenRe, errOut.String())

	// The table form prints a header and one line per call.
	var table bytes.Buffer
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	code := run(ctx2, []string{"calls", "list", "--follow", "--interval", "10ms"}, strings.NewReader(""), &table, &errOut,
		func(k string) string { return h.env[k] })
	assert.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^START\s+CALL SID`, table.String())
	assert.Contains(t, table.String(), later.CallSid)
}

// The JSON contract holds for inferred resources too: times in RFC 3339,
// and the members the SDK did not understand beside the fields, under
// their own names, in place of a field of the same name.
func TestInferredResourcesKeepExtraInJSON(t *testing.T) {
	t.Parallel()
	b, err := encodeJSON(telco.Call{CallSid: "CA1", DateStart: 1700000000, Duration: 0,
		Extra: map[string]json.RawMessage{"Gclid": json.RawMessage(`"abc"`), "CallSid": json.RawMessage(`7`)}}, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"CallSid":7,"DateStart":"2023-11-14T22:13:20Z","Gclid":"abc"}`, string(b))

	b, err = encodeJSON(telco.Number{NumberConfig: telco.NumberConfig{Number: "61299990000"},
		Capabilities: telco.NumberCapabilities{telco.CapabilityVoice}, Extra: map[string]json.RawMessage{"Carrier": json.RawMessage(`"Telstra"`)}}, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"Number":"61299990000","Capabilities":"Voice","Carrier":"Telstra"}`, string(b))
}
