package telcotest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

// visited is how many stored messages Find has examined so far.
func (s *Server) visited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.find.visited
}

// TestFindPagingCostsThePage pages through 200,000 stored messages: each
// page examines only the messages it returns, so the whole walk examines
// each message once (it used to examine every stored message per page:
// 200,000 messages took minutes through `telco mock`).
func TestFindPagingCostsThePage(t *testing.T) {
	t.Parallel()
	n := 200_000
	if raceBuild {
		n = 20_000
	}
	srv := NewServer()
	defer srv.Close()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	srv.SeedInbound(srv.PropertySid, "+61400000099", start, n)
	c := srv.Client()
	ctx := context.Background()
	// Other traffic outside the window and in the other direction.
	for i := range 5 {
		_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x",
			ExternalID: strconv.Itoa(i)})
		require.NoError(t, err)
	}

	before := srv.visited()
	p := &telco.FindMessagesParams{DateFrom: start, DateTo: start.Add(time.Duration(n) * time.Second),
		ListParams: telco.ListParams{Count: 200}}
	seen, prev := 0, int64(-1)
	for m, err := range c.Messages.FindAll(ctx, srv.PropertySid, p) {
		require.NoError(t, err)
		if int64(m.Created) <= prev {
			t.Fatalf("message %d out of order: %d after %d", seen, m.Created, prev)
		}
		prev = int64(m.Created)
		seen++
	}
	assert.Equal(t, n, seen)
	assert.Equal(t, n, srv.visited()-before, "each message examined once across %d pages", n/200)

	// A direction has its own index: sent messages are found without
	// examining the received ones.
	before = srv.visited()
	page, err := c.Messages.Find(ctx, srv.PropertySid, &telco.FindMessagesParams{DateFrom: start, DateTo: time.Now().Add(time.Hour),
		Direction: telco.DirectionTransmit})
	require.NoError(t, err)
	assert.Len(t, page.Items, 5)
	assert.Equal(t, 5, srv.visited()-before)
}

func TestFindWindowEdgesAndOrder(t *testing.T) {
	t.Parallel()
	srv := NewServer()
	defer srv.Close()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// Seeded out of order: the later block first.
	srv.SeedInbound("PRSEEDED", "+61400000099", start.Add(10*time.Second), 5)
	srv.SeedInbound("PRSEEDED", "+61400000098", start, 5)
	c := srv.Client()
	find := func(from, to time.Duration, lp telco.ListParams, status telco.MessageStatus) []int64 {
		t.Helper()
		page, err := c.Messages.Find(context.Background(), "PRSEEDED",
			&telco.FindMessagesParams{DateFrom: start.Add(from), DateTo: start.Add(to), ListParams: lp, Status: status})
		require.NoError(t, err)
		var out []int64
		for _, m := range page.Items {
			out = append(out, int64(m.Created)-start.Unix())
		}
		return out
	}
	assert.Equal(t, []int64{0, 1, 2, 3, 4, 10, 11, 12, 13, 14}, find(0, time.Minute, telco.ListParams{}, ""), "in Created order")
	assert.Equal(t, []int64{2, 3, 4, 10}, find(2*time.Second, 11*time.Second, telco.ListParams{}, ""),
		"Date_From inclusive, Date_To exclusive")
	assert.Equal(t, []int64{3, 4}, find(0, time.Minute, telco.ListParams{Skip: 3, Count: 2}, ""))
	assert.Empty(t, find(0, time.Minute, telco.ListParams{Skip: 10}, ""))
	assert.Equal(t, []int64{3, 4}, find(0, time.Minute, telco.ListParams{Skip: 3, Count: 2}, telco.MessageReceived),
		"a Status filter pages the same")
	assert.Empty(t, find(0, time.Minute, telco.ListParams{}, telco.MessageSubmitted))
}

// blockingWriter is a ResponseWriter whose Write waits for release, as a
// client that does not read its answer.
type blockingWriter struct {
	h       http.Header
	writing chan struct{}
	release chan struct{}
}

func (w *blockingWriter) Header() http.Header { return w.h }
func (w *blockingWriter) WriteHeader(int)     {}
func (w *blockingWriter) Write(p []byte) (int, error) {
	select {
	case w.writing <- struct{}{}:
	default:
	}
	<-w.release
	return len(p), nil
}

func TestFindAnswersWithoutTheLock(t *testing.T) {
	t.Parallel()
	srv := NewServer()
	defer srv.Close()
	srv.SeedInbound(srv.PropertySid, "+61400000099", time.Unix(1_700_000_000, 0), 10)
	r := httptest.NewRequest(http.MethodGet, "/v2/Properties/"+srv.PropertySid+"/Messages?Date_From=1700000000&Date_To=1700000010", nil)
	r.SetBasicAuth(srv.AccountSid, srv.Token)
	w := &blockingWriter{h: http.Header{}, writing: make(chan struct{}, 1), release: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.serveHTTP(w, r)
	}()
	<-w.writing
	counted := make(chan Counts)
	go func() { counted <- srv.Counts() }()
	select {
	case got := <-counted:
		assert.Equal(t, 10, got.Messages)
	case <-time.After(10 * time.Second):
		t.Error("the fake's lock is held while Find writes its answer")
		close(w.release)
		<-counted
		<-done
		return
	}
	close(w.release)
	<-done
}

func TestVisibleAfterHidesFromFindOnly(t *testing.T) {
	t.Parallel()
	clk := NewClock(time.Time{})
	srv := NewServer(WithClock(clk))
	defer srv.Close()
	srv.Inject(1, Fault{Op: "Messages.Send", VisibleAfter: 10 * time.Second}) // handled normally, then hidden
	c := srv.Client()
	ctx := context.Background()
	m, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", ExternalID: "late"})
	require.NoError(t, err, "the send itself succeeds")
	_, err = c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", ExternalID: "now"})
	require.NoError(t, err)

	ids := func() []string {
		t.Helper()
		page, err := c.Messages.Find(ctx, srv.PropertySid, &telco.FindMessagesParams{DateFrom: clk.Now().Add(-time.Minute),
			DateTo: clk.Now().Add(time.Minute)})
		require.NoError(t, err)
		var out []string
		for _, m := range page.Items {
			out = append(out, m.ExternalID)
		}
		return out
	}
	assert.Equal(t, []string{"now"}, ids(), "hidden from Find")
	assert.Len(t, srv.Messages(srv.PropertySid), 2, "but stored")
	got, err := c.Messages.Get(ctx, m.MessageSid)
	require.NoError(t, err)
	assert.Equal(t, "late", got.ExternalID, "and readable by its SID")

	clk.Advance(9 * time.Second)
	assert.Equal(t, []string{"now"}, ids())
	clk.Advance(time.Second)
	assert.Equal(t, []string{"late", "now"}, ids(), "visible once the delay has passed")
}

func TestServerDateFollowsItsClock(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	srv := NewServer(WithClock(NewClock(at)))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/v2/Properties", nil)
	require.NoError(t, err)
	req.SetBasicAuth(srv.AccountSid, srv.Token)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	d, err := http.ParseTime(resp.Header.Get("Date"))
	require.NoError(t, err)
	assert.True(t, d.Equal(at), "Date %v is the fake's time", d)
}
