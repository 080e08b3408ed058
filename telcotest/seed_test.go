package telcotest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

func TestSeedPropertiesAreListed(t *testing.T) {
	t.Parallel()
	srv := NewServer()
	defer srv.Close()
	sids := srv.SeedProperties(120)
	require.Len(t, sids, 120)
	assert.Empty(t, srv.SeedProperties(0))

	var got []string
	for p, err := range srv.Client().Properties.ListAll(context.Background(), &telco.ListParams{Count: 50}) {
		require.NoError(t, err)
		got = append(got, p.PropertySid)
	}
	require.Len(t, got, 121, "the seeded default project and the 120 new ones")
	assert.Equal(t, srv.PropertySid, got[0])
	assert.Equal(t, sids, got[1:])
}

func TestSeedInboundIsFoundPageByPage(t *testing.T) {
	t.Parallel()
	srv := NewServer()
	defer srv.Close()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	srv.SeedInbound("PRSEEDED", "+61400000099", start, 450)

	p := &telco.FindMessagesParams{DateFrom: start, DateTo: start.Add(450 * time.Second)}
	n := 0
	for m, err := range srv.Client().Messages.FindAll(context.Background(), "PRSEEDED", p) {
		require.NoError(t, err)
		assert.Equal(t, telco.MessageReceived, m.Status)
		assert.Equal(t, telco.DirectionReceive, m.Direction)
		assert.Equal(t, "+61400000099", m.To)
		assert.EqualValues(t, start.Unix()+int64(n), m.Created, "creation order, one second apart")
		n++
	}
	assert.Equal(t, 450, n)

	// The window is exact: the last second holds the last message only.
	page, err := srv.Client().Messages.Find(context.Background(), "PRSEEDED",
		&telco.FindMessagesParams{DateFrom: start.Add(449 * time.Second), DateTo: start.Add(time.Hour)})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, "+61400000449", page.Items[0].From)
}

// A project added to another account is that account's: listed for it,
// usable for sends, refused to the first account.
func TestAddPropertyBelongsToItsAccount(t *testing.T) {
	t.Parallel()
	srv := NewServer()
	defer srv.Close()
	b := srv.AddAccount("", "")
	p, ok := srv.AddProperty(b.AccountSid, "Second project")
	require.True(t, ok)
	assert.Equal(t, b.AccountSid, p.AccountSid)
	assert.Equal(t, "Second project", p.Name)
	assert.True(t, p.SmsEnabled)

	ctx := context.Background()
	theirs := srv.ClientFor(b.AccountSid)
	var got []string
	for q, err := range theirs.Properties.ListAll(ctx, nil) {
		require.NoError(t, err)
		got = append(got, q.PropertySid)
	}
	assert.Equal(t, []string{b.PropertySid, p.PropertySid}, got)
	_, err := theirs.Messages.Send(ctx, p.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "hi"})
	require.NoError(t, err)

	_, err = srv.Client().Properties.Get(ctx, p.PropertySid)
	var ae *telco.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 403, ae.StatusCode)

	_, ok = srv.AddProperty("ACNOSUCHACCOUNT", "x")
	assert.False(t, ok)
}
