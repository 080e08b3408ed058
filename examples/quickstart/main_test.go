package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/catalog"
	"github.com/telcosdk/telco/telcotest"
)

// TestTourWithoutCredentials runs what `go run ./examples/quickstart` runs
// on a fresh machine: the tour of every service against the embedded fake.
func TestTourWithoutCredentials(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, func(string) string { return "" }, ""))
	s := out.String()
	for _, want := range []string{
		"== Properties", "== Messages", "== NumberBlocks", "== Addresses and Numbers", "== OnlineLogins",
		"== SipTrunks", "== Porting", "== Flows, Numbers and Calls", "== Lookup", "== Errors",
		"sent once ", "routes to flow", "call CA",
		"batch 1 rejected: INVALID_PHONENUMBER_FORMAT (To)",
		"250ms later, message", "is Submitted", "is Delivered",
		"found Receive Received +614",
		"1 login(s) on the account",
		"deleting the address while in use: ADDRESS_CANNOT_BE_DELETED",
		"is Approved (2 status changes)",
		"Done: every service answered.",
	} {
		assert.Contains(t, s, want)
	}
}

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestTourUsesEveryService: the fake's tour, which this program's doc and
// the README call a tour of every service, calls an operation of each
// service of the catalogue.
func TestTourUsesEveryService(t *testing.T) {
	clock := telcotest.NewClock(time.Time{})
	srv := telcotest.NewServer(telcotest.WithClock(clock))
	defer srv.Close()
	var mu sync.Mutex
	used := map[string]bool{}
	record := func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if info, ok := telco.CallInfo(r.Context()); ok {
				service, _, _ := strings.Cut(info.Op, ".")
				mu.Lock()
				used[service] = true
				mu.Unlock()
			}
			return next.RoundTrip(r)
		})
	}
	require.NoError(t, tourFake(context.Background(), io.Discard, srv, clock, srv.Client(telco.WithTransport(record))))
	mu.Lock()
	defer mu.Unlock()
	for _, s := range catalog.Services() {
		assert.True(t, used[s.Name], "the tour calls no operation of %s: give it a step in tourFake", s.Name)
	}
}

// liveService is a recording stand-in for the real service; writes counts
// every request that is not a GET.
func liveService(t *testing.T, writes *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writes.Add(1)
		}
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v2/Properties/PR2/Messages"):
			_, _ = w.Write([]byte(`{"Message":{"MessageSid":"MG1","From":"+61400000001","To":"+61400000000","Status":"Processing"}}`))
		case strings.HasSuffix(r.URL.Path, "/v2/Properties"):
			_, _ = w.Write([]byte(`{"Properties":[{"PropertySid":"PR1","Name":"Live"},{"PropertySid":"PR2","Name":"Sms","SmsEnabled":true}],"TotalCount":2}`))
		case strings.HasSuffix(r.URL.Path, "/numberblocks"):
			_, _ = w.Write([]byte(`{"Data":[],"TotalCount":0}`))
		case strings.HasSuffix(r.URL.Path, "/SipTrunks"):
			_, _ = w.Write([]byte(`{"SipTrunks":[],"TotalCount":0}`))
		case strings.HasSuffix(r.URL.Path, "/Messages"):
			_, _ = w.Write([]byte(`{"Messages":[]}`))
		default:
			_, _ = w.Write([]byte(`{"PortingRequests":[],"TotalCount":0}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// liveClient is the client run builds with credentials, for srv.
func liveClient(t *testing.T, srv *httptest.Server) *telco.Client {
	t.Helper()
	c, err := telco.NewClient("ACLIVE", "token", telco.WithBaseURL(srv.URL))
	require.NoError(t, err)
	return c
}

// TestTourWithCredentialsOnlyReads points the real-service tour at a
// recording server: it must send nothing but GETs.
func TestTourWithCredentialsOnlyReads(t *testing.T) {
	var writes atomic.Int32
	srv := liveService(t, &writes)
	var out bytes.Buffer
	require.NoError(t, runReal(context.Background(), &out, liveClient(t, srv), "ACLIVE", ""))
	assert.Zero(t, writes.Load(), "the live tour must only read")
	assert.Contains(t, out.String(), `project PR1 "Live"`)
}

// TestTourWithCredentialsSendsOnlyWithTheFlag: -send makes exactly one
// write, an SMS from the first SMS-enabled project.
func TestTourWithCredentialsSendsOnlyWithTheFlag(t *testing.T) {
	var writes atomic.Int32
	srv := liveService(t, &writes)
	var out bytes.Buffer
	require.NoError(t, runReal(context.Background(), &out, liveClient(t, srv), "ACLIVE", "+61400000000"))
	assert.Equal(t, int32(1), writes.Load())
	assert.Contains(t, out.String(), "sent MG1 from +61400000001 to +61400000000: Processing")
}
