package telcotest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

// messageOut spells out telco.Message's fields for speed; it must encode
// to exactly the bytes the embedding form did, and keep up with Message.
func TestMessageOutMatchesMessage(t *testing.T) {
	type embedded struct {
		telco.Message
		ErrorCode string `json:"ErrorCode"`
	}
	for _, m := range []telco.Message{
		{},
		{MessageSid: "MG1", Text: "hi", Created: 1577836800},
		{MessageSid: "MG2", AccountSid: "AC1", PropertySid: "PR1", From: "+61400000001", To: "+61400000002",
			Text: "<&> \u2028 ünïcode", DeliveryReceipt: true, NumSegments: 2, Status: telco.MessageFailed,
			Direction: telco.DirectionTransmit, Scheduled: 1, Created: 2, Submitted: 3, Delivered: 4, Received: -5,
			ErrorCode: "UNDELIVERABLE", ExternalID: "order-1"},
	} {
		want, err := json.Marshal(embedded{m, m.ErrorCode})
		require.NoError(t, err)
		got, err := json.Marshal(wireOut(m))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	mt, ot := reflect.TypeFor[telco.Message](), reflect.TypeFor[messageOut]()
	require.Equal(t, mt.NumField(), ot.NumField(), "messageOut has a field for each of telco.Message's")
	for i := range mt.NumField() {
		f, ok := ot.FieldByName(mt.Field(i).Name)
		if assert.True(t, ok, mt.Field(i).Name) && f.Name != "ErrorCode" {
			assert.Equal(t, mt.Field(i).Tag, f.Tag, f.Name)
		}
	}
}

// A Get by SID and a listing's page find their items through the indexes,
// whatever else is stored.
func TestIndexesFindWhatIsStored(t *testing.T) {
	st := newStore("AC1")
	a := st.addAccount("AC1", "tok")
	st.addAccount("AC2", "tok")
	p := st.ensureProperty("PRX")
	assert.Same(t, p, st.property("PRX"))
	assert.Equal(t, a.PropertySid, st.property(a.PropertySid).PropertySid)
	assert.Nil(t, st.property("prx"), "SIDs match exactly")
	sids := []string{}
	for _, q := range st.accountProperties("AC1") {
		sids = append(sids, q.PropertySid)
	}
	assert.Equal(t, []string{a.PropertySid, "PRX"}, sids, "the account's projects in creation order")
	assert.Len(t, st.accountProperties("AC2"), 1)

	m := &messageRec{Message: telco.Message{MessageSid: "MG1", PropertySid: "PRX", Created: 5}}
	st.addMessage(m)
	assert.Same(t, m, st.message("MG1"))
	assert.Nil(t, st.message("MG2"))

	page := copyPage([]*telco.Property{p})
	page[0].Name = "changed"
	assert.NotEqual(t, "changed", p.Name, "a page is a copy")
}

// The pending queue hands out messages earliest due first, ties in the
// order queued, and only those due.
func TestPendingQueueOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var q pendingQueue
	assert.True(t, q.next().IsZero())
	assert.Nil(t, q.popDue(t0.Add(time.Hour)))
	msg := func(sid string, at time.Time) *messageRec {
		return &messageRec{Message: telco.Message{MessageSid: sid, Status: telco.MessageProcessing}, sendAt: at}
	}
	for _, m := range []*messageRec{msg("late", t0.Add(time.Minute)), msg("a", t0), msg("b", t0), msg("mid", t0.Add(time.Second))} {
		q.push(m)
	}
	assert.Equal(t, t0.Add(SubmitDelay), q.next())
	var got []string
	for m := q.popDue(t0.Add(time.Second + SubmitDelay)); m != nil; m = q.popDue(t0.Add(time.Second + SubmitDelay)) {
		got = append(got, m.MessageSid)
	}
	assert.Equal(t, []string{"a", "b", "mid"}, got)
	assert.Equal(t, t0.Add(time.Minute+SubmitDelay), q.next(), "the late one stays")
}
