package telcotest_test

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/catalog"
	"github.com/telcosdk/telco/telcotest"
)

// rawSend posts one message without the SDK and returns the answer or the
// transport error, so that dropped connections can be observed as such.
func rawSend(t *testing.T, srv *telcotest.Server, externalID string) (*http.Response, []byte, error) {
	t.Helper()
	body := `{"To":"+61400000001","Text":"hi","ExternalId":"` + externalID + `"}`
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost,
		srv.URL+"/v2/Properties/"+srv.PropertySid+"/Messages", strings.NewReader(body))
	require.NoError(t, err)
	req.SetBasicAuth(srv.AccountSid, srv.Token)
	req.Header.Set("Content-Type", "application/json")
	// A fresh connection each time: net/http must not resend on its own.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func TestInject_EachKindOnTheWire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		fault     telcotest.Fault
		wantErr   bool // a transport or body-read error
		status    int  // the status seen, when there is one
		stored    int
		retryHint string
	}{
		{"status", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503}, false, 503, 0, ""},
		{"status with Retry-After", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 429, RetryAfter: "2"}, false, 429, 0, "2"},
		{"status defaults to 500", telcotest.Fault{Kind: telcotest.FaultStatus}, false, 500, 0, ""},
		{"status out of range answers 500", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 42}, false, 500, 0, ""},
		{"zero kind handles normally", telcotest.Fault{}, false, 200, 1, ""},
		{"drop before read", telcotest.Fault{Kind: telcotest.FaultDropBeforeRead}, true, 0, 0, ""},
		{"drop after read", telcotest.Fault{Kind: telcotest.FaultDropAfterRead}, true, 0, 1, ""},
		{"latency", telcotest.Fault{Kind: telcotest.FaultLatency, Delay: time.Millisecond}, false, 200, 1, ""},
		{"truncated body", telcotest.Fault{Kind: telcotest.FaultTruncateBody}, true, 200, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			srv.Inject(1, tc.fault)
			resp, body, err := rawSend(t, srv, "x")
			srv.WaitIdle()
			if tc.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			if tc.status != 0 {
				require.NotNil(t, resp)
				assert.Equal(t, tc.status, resp.StatusCode)
				assert.Equal(t, tc.retryHint, resp.Header.Get("Retry-After"))
				if tc.status != 200 {
					assert.Contains(t, string(body), "INJECTED_FAULT")
				}
			}
			assert.Len(t, srv.Messages(srv.PropertySid), tc.stored)
			assert.Equal(t, 1, srv.Requests())

			// The fault is used up: the next request succeeds.
			resp, _, err = rawSend(t, srv, "y")
			require.NoError(t, err)
			assert.Equal(t, 200, resp.StatusCode)
			assert.Len(t, srv.Messages(srv.PropertySid), tc.stored+1)
			assert.Equal(t, 2, srv.Requests())
		})
	}
}

func TestInject_TruncateLeavesErrorAnswersWhole(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultTruncateBody})
	r := raw(t, srv, http.MethodGet, "/v2/Properties/PRNOSUCHPROJECT", "")
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.NotEmpty(t, errorBody(t, r).ResponseStatus.ErrorCode)
}

func TestInject_MatchesMethodPathAndOp(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}))
	ctx := testCtx(t)
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500, Op: "Messages.Send"})
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 502, Method: "patch"})
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 504, Path: "/v2/properties/{PropertySid}"})

	// Properties.List matches none of them.
	_, err := c.Properties.List(ctx, nil)
	require.NoError(t, err)
	// Properties.Get matches only the path fault.
	_, err = c.Properties.Get(ctx, srv.PropertySid)
	requireStatus(t, err, 504)
	// Update matches the method fault.
	err = c.Properties.Update(ctx, srv.PropertySid, &telco.UpdatePropertyParams{Name: telco.Ptr("n")})
	requireStatus(t, err, 502)
	_, err = c.Properties.Get(ctx, srv.PropertySid)
	require.NoError(t, err, "the path fault was used up")
	// Send matches the op fault.
	_, err = c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "hi"})
	requireStatus(t, err, 500)
	assert.True(t, errors.Is(err, telco.ErrMaybeSent))
	_, err = c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "hi"})
	require.NoError(t, err)
	assert.Equal(t, 6, srv.Requests())
}

func TestInject_OpNamesAreKnownAndDistinct(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ops := telcotest.Ops()
	assert.Equal(t, catalog.Names(), ops, "a fault can name every operation of the catalogue")
	assert.Len(t, slices.Compact(slices.Clone(ops)), len(ops), "Ops is sorted: a duplicate would sit beside its twin")
	// An unknown operation name matches nothing.
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500, Op: "No.Such"})
	r := raw(t, srv, http.MethodGet, "/v2/Properties", "")
	assert.Equal(t, http.StatusOK, r.Status)
	// Numbers.Configure does not claim the literal /v2/Numbers/Details.
	srv.ClearFaults()
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500, Op: "Numbers.Configure"})
	r = raw(t, srv, http.MethodPost, "/v2/Numbers/Details", "{}")
	assert.NotEqual(t, http.StatusInternalServerError, r.Status)
}

func TestInject_CountAndOrder(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Inject(2, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500})
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, RetryAfter: "1"})
	srv.Inject(0, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 400}) // ignored
	var got []int
	for i := 0; i < 4; i++ {
		got = append(got, raw(t, srv, http.MethodGet, "/v2/Properties", "").Status)
	}
	assert.Equal(t, []int{500, 500, 503, 200}, got)
}

func TestInject_UnauthenticatedRequestsUseNoFault(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultDropBeforeRead})
	r := rawDo(t, srv, noAuth, http.MethodGet, "/v2/Properties", "", "")
	assert.Equal(t, http.StatusUnauthorized, r.Status)
	_, _, err := rawSend(t, srv, "a")
	require.Error(t, err, "the fault is still pending")
	assert.Equal(t, 2, srv.Requests())
}

func TestSetFaultPolicy_DecidesUnclaimedRequests(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	var seen []string
	srv.SetFaultPolicy(func(method, path string) *telcotest.Fault {
		seen = append(seen, method+" "+path)
		if method == http.MethodGet {
			return &telcotest.Fault{Kind: telcotest.FaultStatus, Status: 418}
		}
		return nil
	})
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500})
	assert.Equal(t, 500, raw(t, srv, http.MethodGet, "/v2/Properties", "").Status, "an injected fault comes first")
	assert.Equal(t, 418, raw(t, srv, http.MethodGet, "/v2/Properties", "").Status)
	_, _, err := rawSend(t, srv, "z")
	require.NoError(t, err)
	assert.Equal(t, []string{"GET /v2/Properties", "POST /v2/Properties/" + srv.PropertySid + "/Messages"}, seen)

	srv.ClearFaults()
	assert.Equal(t, 200, raw(t, srv, http.MethodGet, "/v2/Properties", "").Status)
}

func TestFaultKind_String(t *testing.T) {
	t.Parallel()
	for k, want := range map[telcotest.FaultKind]string{
		telcotest.FaultStatus: "status", telcotest.FaultDropBeforeRead: "drop-before-read",
		telcotest.FaultDropAfterRead: "drop-after-read", telcotest.FaultLatency: "latency",
		telcotest.FaultTruncateBody: "truncate-body", telcotest.FaultKind(99): "FaultKind(99)",
	} {
		assert.Equal(t, want, k.String())
	}
}

func TestLatency_CloseEndsTheWait(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: time.Hour})
	done := make(chan error, 1)
	go func() {
		_, _, err := rawSend(t, srv, "late")
		done <- err
	}()
	for srv.Requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	srv.Close() // must not wait an hour
	<-done
}
