package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// A stub of Send alone is enough for code that calls SendOnce: a send that
// may have reached the service comes back as unresolved, and the notifier
// says so rather than claiming the notice went out.
func TestNotifier_Stub_MaybeSentIsReported(t *testing.T) {
	t.Parallel()
	stub := &telcotest.MessagesStub{SendFunc: func(context.Context, string, *telco.SendMessageParams) (*telco.Message, error) {
		return nil, telco.MaybeSent(&telco.APIError{StatusCode: 504})
	}}
	n := &Notifier{Messages: stub, PropertySid: "PR1", From: "Acme"}
	_, err := n.OrderShipped(context.Background(), "+61400000001", "A-7")
	require.ErrorIs(t, err, telco.ErrMaybeSent)
	var ue *telco.UnresolvedError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, []string{"ship-A-7"}, ue.ExternalIDs)
	assert.Contains(t, err.Error(), "order A-7")
}
