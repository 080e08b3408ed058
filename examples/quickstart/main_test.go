package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
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
