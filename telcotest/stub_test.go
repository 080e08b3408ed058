package telcotest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func TestMessagesStubUnsetMethodsErrNotPanic(t *testing.T) {
	t.Parallel()
	var s telcotest.MessagesStub
	ctx := context.Background()
	_, err := s.Send(ctx, "P", &telco.SendMessageParams{})
	assert.ErrorIs(t, err, telcotest.ErrNotStubbed)
	assert.Contains(t, err.Error(), "MessagesStub.Send")
	_, err = s.Get(ctx, "MG1")
	assert.ErrorIs(t, err, telcotest.ErrNotStubbed)
	_, err = s.Find(ctx, "P", &telco.FindMessagesParams{})
	assert.ErrorIs(t, err, telcotest.ErrNotStubbed)
	for _, err := range s.FindAll(ctx, "P", nil) {
		assert.ErrorIs(t, err, telcotest.ErrNotStubbed)
	}
	_, err = s.SendOnce(ctx, "P", &telco.SendMessageParams{ExternalID: "x"})
	assert.ErrorIs(t, err, telcotest.ErrNotStubbed)
	_, err = s.SendBatchOnce(ctx, "P", []telco.SendMessageParams{{ExternalID: "x"}})
	assert.ErrorIs(t, err, telcotest.ErrNotStubbed)
}

// The README's pattern: a stub of Send alone, failing as an ambiguous send
// fails, serves code that calls SendOnce.
func TestMessagesStubSendOnceOverSend(t *testing.T) {
	t.Parallel()
	calls := 0
	s := &telcotest.MessagesStub{SendFunc: func(_ context.Context, _ string, p *telco.SendMessageParams) (*telco.Message, error) {
		calls++
		if p.ExternalID == "flaky" {
			return nil, telco.MaybeSent(&telco.APIError{StatusCode: 503})
		}
		return &telco.Message{MessageSid: "MG1", ExternalID: p.ExternalID, To: p.To}, nil
	}}
	ctx := context.Background()
	_, err := s.SendOnce(ctx, "P", &telco.SendMessageParams{To: "+61400000001", Text: "x", ExternalID: "flaky"})
	var ue *telco.UnresolvedError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, []string{"flaky"}, ue.ExternalIDs)
	assert.ErrorIs(t, err, telco.ErrMaybeSent)
	var ae *telco.APIError
	assert.ErrorAs(t, err, &ae, "the send's failure is kept")

	m1, err := s.SendOnce(ctx, "P", &telco.SendMessageParams{To: "+61400000001", Text: "x", ExternalID: "ok"})
	require.NoError(t, err)
	m2, err := s.SendOnce(ctx, "P", &telco.SendMessageParams{To: "+61400000001", Text: "x", ExternalID: "ok"})
	require.NoError(t, err)
	assert.Equal(t, m1.MessageSid, m2.MessageSid)
	assert.Equal(t, 2, calls, "the second SendOnce of \"ok\" sent nothing")
	found, err := s.FindByExternalID(ctx, "P", time.Now(), "ok", "flaky")
	require.NoError(t, err)
	assert.Equal(t, map[string]telco.Message{"ok": *m1}, found)
	all, err := s.ListByExternalID(ctx, "P", time.Now(), "ok")
	require.NoError(t, err)
	assert.Len(t, all["ok"], 1)

	res, err := s.SendBatchOnce(ctx, "P", []telco.SendMessageParams{{ExternalID: "ok"}, {ExternalID: "flaky"}, {ExternalID: "new"}})
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, []string{"flaky"}, ue.ExternalIDs)
	assert.Equal(t, "MG1", res[0].Message.MessageSid)
	assert.Nil(t, res[1].Message)
	assert.NotNil(t, res[2].Message)
}

func TestMessagesStubSendBatchOverSend(t *testing.T) {
	t.Parallel()
	refusal := &telco.APIError{StatusCode: 400, Code: telco.CodeInvalidPhoneNumberFormat}
	s := &telcotest.MessagesStub{SendFunc: func(_ context.Context, _ string, p *telco.SendMessageParams) (*telco.Message, error) {
		switch p.To {
		case "bad":
			return nil, refusal
		case "down":
			return nil, errors.New("connection refused")
		}
		return &telco.Message{MessageSid: "MG-" + p.To}, nil
	}}
	res, err := s.SendBatch(context.Background(), "P", []telco.SendMessageParams{{To: "a"}, {To: "bad"}, {To: "b"}})
	require.NoError(t, err)
	assert.Equal(t, "MG-a", res[0].Message.MessageSid)
	assert.Same(t, refusal, res[1].Err)
	assert.Equal(t, "MG-b", res[2].Message.MessageSid)
	_, err = s.SendBatch(context.Background(), "P", []telco.SendMessageParams{{To: "a"}, {To: "down"}})
	assert.EqualError(t, err, "connection refused")
}

func TestMessagesStubFuncsWin(t *testing.T) {
	t.Parallel()
	s := &telcotest.MessagesStub{
		SendOnceFunc: func(context.Context, string, *telco.SendMessageParams) (*telco.Message, error) {
			return &telco.Message{MessageSid: "MGonce"}, nil
		},
		FindFunc: func(_ context.Context, _ string, p *telco.FindMessagesParams) (*telco.Page[telco.Message], error) {
			if p.Skip >= 3 {
				return &telco.Page[telco.Message]{}, nil
			}
			return &telco.Page[telco.Message]{Items: []telco.Message{{MessageSid: "MG" + string(rune('a'+p.Skip))}}}, nil
		},
	}
	m, err := s.SendOnce(context.Background(), "P", &telco.SendMessageParams{})
	require.NoError(t, err)
	assert.Equal(t, "MGonce", m.MessageSid)
	var sids []string
	for m, err := range s.FindAll(context.Background(), "P", &telco.FindMessagesParams{}) {
		require.NoError(t, err)
		sids = append(sids, m.MessageSid)
	}
	assert.Equal(t, []string{"MGa", "MGb", "MGc"}, sids, "FindAll pages Find until an empty page")
}
