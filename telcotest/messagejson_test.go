package telcotest

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

// encodeAnswer is what writeJSON wrote for a page before appendMessageOut.
func encodeAnswer(t testing.TB, page []messageOut) []byte {
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(map[string]any{"Messages": page}))
	return buf.Bytes()
}

func TestAppendMessageOutMatchesEncodingJSON(t *testing.T) {
	page := []messageOut{
		{},
		wireOut(telco.Message{MessageSid: "MG1", Text: "hi", Created: 1577836800}),
		wireOut(telco.Message{MessageSid: "MG2", AccountSid: "AC1", PropertySid: "PR1", From: "+61400000001", To: "+61400000002",
			Text: "<&> \u2028\u2029 ünïcode \"q\" \\ \b\f\n\r\t\x00\x1f\x7f \xff\xfe bad \U0001F600", DeliveryReceipt: true,
			NumSegments: -2, Status: telco.MessageFailed, Direction: telco.DirectionTransmit, Scheduled: 1, Created: 2,
			Submitted: 3, Delivered: 4, Received: -5, ErrorCode: "UNDELIVERABLE", ExternalID: "order-1"}),
	}
	for _, p := range [][]messageOut{nil, {}, page[:1], page} {
		require.Equal(t, string(encodeAnswer(t, p)), string(appendMessagesAnswer(nil, p)))
	}
	// Through the answer buffer, as the handler writes it.
	a := &answer{header: map[string][]string{}}
	a.body.WriteString("left over")
	a.body.Reset()
	writeMessages(a, page)
	require.Equal(t, 200, a.status)
	require.Equal(t, string(encodeAnswer(t, page)), a.body.String())
	rec := httptest.NewRecorder()
	writeMessages(rec, page)
	require.Equal(t, string(encodeAnswer(t, page)), rec.Body.String())
	require.Equal(t, jsonContentType, rec.Header()["Content-Type"])

	// One message, as a send and a get answer it.
	for _, m := range page {
		var want bytes.Buffer
		require.NoError(t, json.NewEncoder(&want).Encode(map[string]any{"Message": m}))
		a := &answer{header: map[string][]string{}}
		writeMessage(a, m)
		require.Equal(t, want.String(), a.body.String())
		rec := httptest.NewRecorder()
		writeMessage(rec, m)
		require.Equal(t, want.String(), rec.Body.String())
	}
}

// FuzzAppendMessageOut holds the hand encoder to encoding/json's bytes for
// any strings and numbers.
func FuzzAppendMessageOut(f *testing.F) {
	f.Add("MG1", "+61400000001", "<&>\u2028 \xff", "Delivered", int64(1577836800), int64(0), 3, true)
	f.Add("", "", "", "", int64(-1), int64(1<<62), 0, false)
	f.Fuzz(func(t *testing.T, sid, to, text, status string, created, delivered int64, segs int, dr bool) {
		page := []messageOut{{MessageSid: sid, AccountSid: to, PropertySid: text, From: status, To: to, Text: text,
			DeliveryReceipt: dr, NumSegments: segs, Status: telco.MessageStatus(status), Direction: telco.Direction(sid),
			Scheduled: created, Created: delivered, Submitted: -created, Delivered: delivered, Received: created,
			ExternalID: text, ErrorCode: sid}, {Text: sid}}
		if want, got := encodeAnswer(t, page), appendMessagesAnswer(nil, page); !bytes.Equal(want, got) {
			t.Fatalf("encoding/json: %s\nhand:          %s", want, got)
		}
	})
}
