package telcotest_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func TestClock_AdvanceSetAndDefaults(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c := telcotest.NewClock(start)
	assert.Equal(t, start, c.Now())
	c.Advance(time.Minute)
	assert.Equal(t, start.Add(time.Minute), c.Now())
	c.Advance(-time.Hour)
	assert.Equal(t, start.Add(time.Minute), c.Now(), "the fake's time never runs back")
	c.Set(start)
	assert.Equal(t, start.Add(time.Minute), c.Now(), "Set to an earlier time is ignored")
	c.Set(start.Add(time.Hour))
	assert.Equal(t, start.Add(time.Hour), c.Now())

	z := telcotest.NewClock(time.Time{})
	assert.WithinDuration(t, time.Now(), z.Now(), time.Minute, "a zero start is the current time")
	assert.Zero(t, z.Now().Nanosecond(), "truncated to the second")
}

func TestLifecycle_ProcessingSubmittedDeliveredUnderTheClock(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	sent := clock.Now()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "+61400000099", To: "+61400000001", Text: "hello"})
	assert.Regexp(t, `^MG[A-Z0-9]{30}$`, m.MessageSid)
	assert.Equal(t, telco.MessageProcessing, m.Status)
	assert.Equal(t, telco.DirectionTransmit, m.Direction)
	assert.True(t, m.DeliveryReceipt, "DeliveryReceipt defaults to true")
	assert.Equal(t, sent.Unix(), int64(m.Created))
	assert.Zero(t, m.Submitted)

	for range 3 {
		assert.Equal(t, telco.MessageProcessing, get(t, c, m.MessageSid).Status, "reading does not move a message")
	}
	clock.Advance(telcotest.SubmitDelay - time.Millisecond)
	assert.Equal(t, telco.MessageProcessing, get(t, c, m.MessageSid).Status)

	clock.Advance(time.Millisecond)
	g := get(t, c, m.MessageSid)
	assert.Equal(t, telco.MessageSubmitted, g.Status)
	assert.Equal(t, sent.Add(telcotest.SubmitDelay).Unix(), int64(g.Submitted))
	assert.Zero(t, g.Delivered)

	clock.Advance(telcotest.DeliverDelay)
	g = get(t, c, m.MessageSid)
	assert.Equal(t, telco.MessageDelivered, g.Status)
	assert.Equal(t, sent.Add(telcotest.SubmitDelay+telcotest.DeliverDelay).Unix(), int64(g.Delivered))
	assert.Empty(t, g.ErrorCode)

	clock.Advance(24 * time.Hour)
	assert.Equal(t, telco.MessageDelivered, get(t, c, m.MessageSid).Status, "Delivered is final")
}

func TestLifecycle_JumpingPastBothStepsSetsBothTimestamps(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	sent := clock.Now()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x"})
	clock.Advance(time.Hour)
	g := get(t, c, m.MessageSid)
	assert.Equal(t, telco.MessageDelivered, g.Status)
	assert.Equal(t, sent.Add(telcotest.SubmitDelay).Unix(), int64(g.Submitted), "timestamps are when each step was due, not when read")
	assert.Equal(t, sent.Add(telcotest.SubmitDelay+telcotest.DeliverDelay).Unix(), int64(g.Delivered))
}

func TestLifecycle_NoDeliveryReceiptStaysSubmitted(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "no dr", DeliveryReceipt: telco.Ptr(false)})
	assert.False(t, m.DeliveryReceipt)
	clock.Advance(telcotest.SubmitDelay)
	for range 3 {
		g := get(t, c, m.MessageSid)
		assert.Equal(t, telco.MessageSubmitted, g.Status)
		assert.Zero(t, g.Delivered)
		clock.Advance(time.Hour)
	}
}

func TestLifecycle_FailMessagesTo(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	srv.FailMessagesTo("+61400000666")
	bad := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000666", Text: "doomed"})
	good := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "fine"})
	assert.Equal(t, telco.MessageProcessing, bad.Status)
	assert.Equal(t, telco.MessageProcessing, get(t, c, bad.MessageSid).Status, "it fails when it would have been submitted")

	clock.Advance(telcotest.SubmitDelay)
	for range 2 {
		g := get(t, c, bad.MessageSid)
		assert.Equal(t, telco.MessageFailed, g.Status)
		assert.Equal(t, "UNDELIVERABLE", g.ErrorCode)
		assert.Zero(t, g.Submitted)
		assert.Zero(t, g.Delivered)
		clock.Advance(time.Hour)
	}
	g := get(t, c, good.MessageSid)
	assert.Equal(t, telco.MessageDelivered, g.Status, "other recipients are not affected")
	assert.Empty(t, g.ErrorCode)
}

func TestLifecycle_ScheduledWaitsForItsTime(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	at := clock.Now().Add(2 * time.Hour)
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "later", Schedule: at})
	assert.Equal(t, at.Unix(), int64(m.Scheduled))

	processing := func() []string {
		t.Helper()
		p := &telco.FindMessagesParams{DateFrom: clock.Now().Add(-24 * time.Hour), DateTo: clock.Now().Add(time.Hour), Status: telco.MessageProcessing}
		page, err := c.Messages.Find(testCtx(t), srv.PropertySid, p)
		require.NoError(t, err)
		var sids []string
		for _, x := range page.Items {
			sids = append(sids, x.MessageSid)
		}
		return sids
	}
	clock.Advance(2*time.Hour - time.Second)
	assert.Equal(t, telco.MessageProcessing, get(t, c, m.MessageSid).Status)
	assert.Equal(t, []string{m.MessageSid}, processing())

	clock.Advance(time.Second + telcotest.SubmitDelay)
	g := get(t, c, m.MessageSid)
	assert.Equal(t, telco.MessageSubmitted, g.Status)
	assert.Equal(t, at.Add(telcotest.SubmitDelay).Unix(), int64(g.Submitted))
	assert.Empty(t, processing())

	clock.Advance(telcotest.DeliverDelay)
	assert.Equal(t, telco.MessageDelivered, get(t, c, m.MessageSid).Status)
}

func TestLifecycle_RecentPastScheduleIsSentNow(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	now := clock.Now()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "now",
		Schedule: now.Add(-30 * time.Minute)})
	assert.Equal(t, now.Unix(), int64(m.Scheduled), "a schedule less than 1 hour past is sent at once")
	clock.Advance(telcotest.SubmitDelay)
	assert.Equal(t, telco.MessageSubmitted, get(t, c, m.MessageSid).Status)
}

// The schedule window follows the fake's clock, not the machine's.
func TestLifecycle_ScheduleWindowFollowsTheClock(t *testing.T) {
	t.Parallel()
	clock := telcotest.NewClock(time.Now().Add(-48 * time.Hour).Truncate(time.Second))
	srv := newServer(t, telcotest.WithClock(clock))
	c := srv.Client(telco.WithClientValidation(false))
	// A day before the machine's now is 1 day after the fake's now: fine.
	_, err := c.Messages.Send(testCtx(t), srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x",
		Schedule: clock.Now().Add(24 * time.Hour)})
	require.NoError(t, err)
	_, err = c.Messages.Send(testCtx(t), srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x",
		Schedule: clock.Now().Add(-2 * time.Hour)})
	requireAPIError(t, err, 400, telco.CodeParameterInvalid)
}

func leaseSend(t *testing.T, c *telco.Client, propertySid, to string) string {
	t.Helper()
	m := send(t, c, propertySid, telco.SendMessageParams{To: to, Text: "leased"})
	require.Regexp(t, leasePattern, m.From)
	return m.From
}

func TestLeases_ReusedPerRecipientWhileValid(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	a := leaseSend(t, c, srv.PropertySid, "+61400000001")
	clock.Advance(telcotest.LeaseValidity - time.Second)
	assert.Equal(t, a, leaseSend(t, c, srv.PropertySid, "+61400000001"), "reused while valid")
	b := leaseSend(t, c, srv.PropertySid, "+61400000002")
	assert.NotEqual(t, a, b, "a sender is unique to its recipient")

	clock.Advance(time.Second)
	a2 := leaseSend(t, c, srv.PropertySid, "+61400000001")
	assert.NotEqual(t, a, a2, "after 30 days the lease has expired and a new one is made")
	assert.NotEqual(t, b, a2)
	assert.Equal(t, a2, leaseSend(t, c, srv.PropertySid, "+61400000001"))
	assert.Equal(t, b, leaseSend(t, c, srv.PropertySid, "+61400000002"), "b was leased later and is still valid")
}

func TestLeases_AtMostFivePerRecipient(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	to := "+61400000001"
	var projects []string
	for i := range 6 {
		p, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "P" + string(rune('0'+i)),
			MainDomain: "p.example.com", TimeZone: "UTC", SmsEnabled: true})
		require.NoError(t, err)
		projects = append(projects, p.PropertySid)
	}
	seen := map[string]bool{}
	var first string
	for i, p := range projects[:5] {
		s := leaseSend(t, c, p, to)
		if i == 0 {
			first = s
		}
		assert.False(t, seen[s], "each project gets its own lease to the recipient")
		seen[s] = true
		clock.Advance(time.Hour)
	}
	// A 6th project is refused rather than given another project's sender.
	_, err := c.Messages.Send(ctx, projects[5], &telco.SendMessageParams{To: to, Text: "leased"})
	ae := requireAPIError(t, err, http.StatusBadRequest, telcotest.CodeLeaseLimitReached)
	require.Len(t, ae.Fields, 1)
	assert.Equal(t, "From", ae.Fields[0].FieldName)
	assert.Equal(t, first, leaseSend(t, c, projects[0], to), "a project with a lease keeps it")

	// Once the first lease expires, a slot is free again.
	clock.Advance(telcotest.LeaseValidity - 5*time.Hour)
	sixth := leaseSend(t, c, projects[5], to)
	assert.False(t, seen[sixth], "with the oldest lease expired the 6th project gets a fresh one")
}

func TestLeases_AlphanumericToNorthAmericaIsLeased(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	m := send(t, srv.Client(), srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+12025550123", Text: "hi"})
	assert.Regexp(t, leasePattern, m.From)
}

// Leases never cross accounts: a sixth account is refused, and a response
// to a lease reaches only the project that leased it.
func TestLeases_NeverSharedAcrossAccounts(t *testing.T) {
	t.Parallel()
	srv, _ := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	ctx := testCtx(t)
	to := "+61400000077"
	type acct struct {
		c      *telco.Client
		prop   string
		sender string
	}
	var accts []acct
	for i := range 6 {
		a := srv.AddAccount("", "")
		accts = append(accts, acct{c: srv.ClientFor(a.AccountSid), prop: a.PropertySid})
		if i == 5 {
			break
		}
		m := send(t, accts[i].c, a.PropertySid, telco.SendMessageParams{To: to, Text: "reply?",
			WebhookURI: fmt.Sprintf("%s/acct%d", rc.URL, i), DeliveryReceipt: telco.Ptr(false)})
		accts[i].sender = m.From
	}
	_, err := accts[5].c.Messages.Send(ctx, accts[5].prop, &telco.SendMessageParams{To: to, Text: "reply?",
		WebhookURI: rc.URL + "/acct5"})
	requireAPIError(t, err, http.StatusBadRequest, telcotest.CodeLeaseLimitReached)
	// The batch refuses the element the same way.
	res, err := accts[5].c.Messages.SendBatch(ctx, accts[5].prop, []telco.SendMessageParams{{To: to, Text: "b"}})
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.NotNil(t, res[0].Err)
	assert.Equal(t, telcotest.CodeLeaseLimitReached, res[0].Err.Code)

	srv.Receive(accts[5].prop, to, accts[0].sender, "YES")
	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 1)
	assert.Equal(t, "/acct0", hits[0].Path, "the response goes to the leasing account's webhook only")
}
