package telcotest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/optest"
	"github.com/telcosdk/telco/telcotest"
)

// admin sends one request to the admin API as the server's first account
// and returns the answer.
func admin(t *testing.T, srv *telcotest.Server, method, path, body string) rawResp {
	t.Helper()
	return rawDo(t, srv, basicAuth(srv.AccountSid, srv.Token), method, telcotest.AdminPath+path, "application/json", body)
}

// armed is a fault as the admin API shows it.
type armed struct {
	ID             int    `json:"id"`
	Kind           string `json:"kind"`
	Status         int    `json:"status"`
	RetryAfter     string `json:"retry_after"`
	Body           string `json:"body"`
	DelayMS        int64  `json:"delay_ms"`
	VisibleAfterMS int64  `json:"visible_after_ms"`
	Op             string `json:"op"`
	Method         string `json:"method"`
	Path           string `json:"path"`
	Count          int    `json:"count"`
	Remaining      int    `json:"remaining"`
}

func listFaults(t *testing.T, srv *telcotest.Server) []armed {
	t.Helper()
	r := admin(t, srv, http.MethodGet, "faults", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out struct{ Faults []armed }
	require.NoError(t, json.Unmarshal(r.Body, &out), "%s", r.Body)
	require.NotNil(t, out.Faults, "an empty list is [], not null: %s", r.Body)
	return out.Faults
}

func arm(t *testing.T, srv *telcotest.Server, body string) armed {
	t.Helper()
	r := admin(t, srv, http.MethodPost, "faults", body)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	var a armed
	require.NoError(t, json.Unmarshal(r.Body, &a))
	assert.Equal(t, telcotest.AdminPath+"faults/"+strconv.Itoa(a.ID), r.Header.Get("Location"))
	return a
}

// The whole round: arm, see it happen, list what is left, clear.
func TestAdmin_ArmSeeListClear(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	assert.Empty(t, listFaults(t, srv))

	a := arm(t, srv, `{"op": "Messages.Send", "kind": "status", "status": 503, "retry_after": 2, "count": 2}`)
	assert.Equal(t, armed{ID: 1, Kind: "status", Status: 503, RetryAfter: "2", Body: "service", Op: "Messages.Send",
		Count: 2, Remaining: 2}, a)
	assert.Equal(t, []armed{a}, listFaults(t, srv))

	// Another operation is not touched.
	assert.Equal(t, http.StatusOK, raw(t, srv, http.MethodGet, "/v2/Properties", "").Status)
	resp, body, err := rawSend(t, srv, "a")
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"))
	assert.Contains(t, string(body), "INJECTED_FAULT")
	a.Remaining = 1
	assert.Equal(t, []armed{a}, listFaults(t, srv), "one use left")

	r := admin(t, srv, http.MethodDelete, "faults", "")
	require.Equal(t, http.StatusOK, r.Status)
	assert.JSONEq(t, `{"cleared": 1}`, string(r.Body))
	assert.Empty(t, listFaults(t, srv))
	resp, _, err = rawSend(t, srv, "b")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "cleared: the send goes through")
	assert.Len(t, srv.Messages(srv.PropertySid), 1)
}

// Every fault kind can be armed over HTTP and does on the wire what the
// Go API's does.
func TestAdmin_EachKindOnTheWire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		fault       string
		wantErr     bool // a transport or body-read error
		status      int
		stored      int
		retryAfter  string
		contentType string
		minTime     time.Duration
	}{
		{"status", `{"kind":"status","status":500}`, false, 500, 0, "", "application/json", 0},
		{"429 with Retry-After", `{"kind":"status","status":429,"retry_after":"1"}`, false, 429, 0, "1", "application/json", 0},
		{"503 with Retry-After", `{"kind":"status","status":503,"retry_after":"2"}`, false, 503, 0, "2", "application/json", 0},
		{"html 500", `{"kind":"status","body":"html"}`, false, 500, 0, "", "text/html", 0},
		{"empty 500", `{"kind":"status","status":500,"body":"empty"}`, false, 500, 0, "", "", 0},
		{"drop before read", `{"kind":"drop-before-read"}`, true, 0, 0, "", "", 0},
		{"drop after read", `{"kind":"drop-after-read"}`, true, 0, 1, "", "", 0},
		{"truncated body", `{"kind":"truncate-body"}`, true, 200, 1, "", "", 0},
		{"latency", `{"kind":"latency","delay_ms":150}`, false, 200, 1, "", "application/json", 150 * time.Millisecond},
		{"none", `{"kind":"none"}`, false, 200, 1, "", "application/json", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, telcotest.WithAdmin())
			f := arm(t, srv, strings.Replace(tc.fault, "{", `{"op":"Messages.Send",`, 1))
			assert.Equal(t, 1, f.Remaining)
			start := time.Now()
			resp, _, err := rawSend(t, srv, "x")
			took := time.Since(start)
			srv.WaitIdle()
			if tc.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			if tc.status != 0 {
				require.NotNil(t, resp)
				assert.Equal(t, tc.status, resp.StatusCode)
				assert.Equal(t, tc.retryAfter, resp.Header.Get("Retry-After"))
				if !tc.wantErr {
					assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType), resp.Header.Get("Content-Type"))
				}
			}
			assert.GreaterOrEqual(t, took, tc.minTime)
			assert.Len(t, srv.Messages(srv.PropertySid), tc.stored)
			assert.Empty(t, listFaults(t, srv), "used up")
			assert.Equal(t, 1, srv.Requests(), "the admin requests are not counted")
		})
	}
}

// visible_after_ms keeps a send out of Find for that long; the send itself
// succeeds and is readable by its SID.
func TestAdmin_VisibleAfter(t *testing.T) {
	t.Parallel()
	clk := telcotest.NewClock(time.Time{})
	srv := newServer(t, telcotest.WithAdmin(), telcotest.WithClock(clk))
	arm(t, srv, `{"kind":"none","op":"Messages.Send","visible_after_ms":10000}`)
	c := srv.Client()
	ctx := testCtx(t)
	m, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "x", ExternalID: "late"})
	require.NoError(t, err)
	find := func() int {
		page, err := c.Messages.Find(ctx, srv.PropertySid, &telco.FindMessagesParams{DateFrom: clk.Now().Add(-time.Minute),
			DateTo: clk.Now().Add(time.Minute)})
		require.NoError(t, err)
		return len(page.Items)
	}
	assert.Equal(t, 0, find(), "hidden from Find")
	_, err = c.Messages.Get(ctx, m.MessageSid)
	require.NoError(t, err)
	clk.Advance(10 * time.Second)
	assert.Equal(t, 1, find(), "visible once the delay has passed")
}

// Only the first account's credentials open the admin API.
func TestAdmin_NeedsTheFirstAccountsCredentials(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	other := srv.AddAccount("", "")
	for name, auth := range map[string]authFunc{
		"none":          noAuth,
		"wrong token":   basicAuth(srv.AccountSid, "wrong"),
		"other account": basicAuth(other.AccountSid, other.Token),
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			r := rawDo(t, srv, auth, method, telcotest.AdminPath+"faults", "application/json", `{"kind":"drop-before-read"}`)
			assert.Equal(t, http.StatusUnauthorized, r.Status, "%s %s", name, method)
			assert.Contains(t, r.Header.Get("WWW-Authenticate"), "Basic", name)
			assert.Contains(t, string(r.Body), `"error"`, name)
		}
	}
	assert.Empty(t, srv.Faults(), "nothing was armed")
}

// Without WithAdmin the prefix is an unknown path like any other.
func TestAdmin_OffWithoutWithAdmin(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := admin(t, srv, http.MethodPost, "faults", `{"kind":"drop-before-read"}`)
	assert.Equal(t, http.StatusNotFound, r.Status)
	assert.Equal(t, "NOT_FOUND", errorBody(t, r).ResponseStatus.ErrorCode)
	assert.Empty(t, srv.Faults())
	assert.Equal(t, http.StatusUnauthorized, rawDo(t, srv, noAuth, http.MethodGet, telcotest.AdminPath+"faults", "", "").Status)
}

// A fault that drops every request leaves the admin API reachable, and
// admin requests never consume it.
func TestAdmin_ExemptFromFaultsAndCounts(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	arm(t, srv, `{"kind":"drop-before-read","count":3}`)
	for i := 0; i < 5; i++ {
		listFaults(t, srv)
	}
	assert.Equal(t, 3, listFaults(t, srv)[0].Remaining)
	assert.Equal(t, 0, srv.Requests())
	r := admin(t, srv, http.MethodGet, "ops", "")
	require.Equal(t, http.StatusOK, r.Status)
	var ops struct{ Ops []string }
	require.NoError(t, json.Unmarshal(r.Body, &ops))
	assert.Equal(t, telcotest.Ops(), ops.Ops)
}

func TestAdmin_OneFaultByID(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	a := arm(t, srv, `{"kind":"status","status":502,"method":"get","path":"/v2/Properties"}`)
	b := arm(t, srv, `{"kind":"latency","delay_ms":5,"count":4}`)
	assert.Equal(t, "GET", a.Method, "methods are upper-cased")
	assert.Equal(t, a.ID+1, b.ID)

	r := admin(t, srv, http.MethodGet, "faults/"+strconv.Itoa(b.ID), "")
	require.Equal(t, http.StatusOK, r.Status)
	var got armed
	require.NoError(t, json.Unmarshal(r.Body, &got))
	assert.Equal(t, b, got)

	r = admin(t, srv, http.MethodDelete, "faults/"+strconv.Itoa(a.ID), "")
	require.Equal(t, http.StatusOK, r.Status)
	assert.JSONEq(t, `{"cleared":1}`, string(r.Body))
	assert.Equal(t, []armed{b}, listFaults(t, srv))
	assert.Equal(t, http.StatusOK, raw(t, srv, http.MethodGet, "/v2/Properties", "").Status, "the 502 was cleared")

	for _, path := range []string{"faults/" + strconv.Itoa(a.ID), "faults/999", "faults/x"} {
		assert.Equal(t, http.StatusNotFound, admin(t, srv, http.MethodGet, path, "").Status, path)
		assert.Equal(t, http.StatusNotFound, admin(t, srv, http.MethodDelete, path, "").Status, path)
	}
	r = admin(t, srv, http.MethodPut, "faults", "")
	assert.Equal(t, http.StatusMethodNotAllowed, r.Status)
	assert.Equal(t, "GET, POST, DELETE", r.Header.Get("Allow"))
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodPost, "ops", "").Status)
	r = admin(t, srv, http.MethodGet, "nothing", "")
	assert.Equal(t, http.StatusNotFound, r.Status)
	assert.Contains(t, string(r.Body), "faults")
}

// A fault injected from Go is listed as well, and counts down.
func TestFaults_ListsInjectedFaults(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	srv.Inject(2, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 1500 * time.Millisecond, Op: "Properties.Get"})
	srv.Inject(0, telcotest.Fault{Kind: telcotest.FaultStatus}) // ignored
	srv.FailNext(1, 504)
	got := srv.Faults()
	require.Len(t, got, 2)
	assert.Equal(t, telcotest.ArmedFault{ID: 1, Fault: telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 1500 * time.Millisecond,
		Op: "Properties.Get"}, Count: 2, Remaining: 2}, got[0])
	assert.Equal(t, 2, got[1].ID)
	assert.Equal(t, []armed{
		{ID: 1, Kind: "latency", DelayMS: 1500, Op: "Properties.Get", Count: 2, Remaining: 2},
		{ID: 2, Kind: "status", Status: 504, Body: "service", Count: 1, Remaining: 1},
	}, listFaults(t, srv))

	assert.Equal(t, 504, raw(t, srv, http.MethodGet, "/v2/Properties", "").Status)
	require.Len(t, srv.Faults(), 1)
	srv.ClearFaults()
	assert.Empty(t, srv.Faults())
}

// A fault the admin API cannot arm is refused with 400 and a message that
// says what is wrong; nothing is armed.
func TestAdmin_RefusesBadFaults(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	for _, tc := range []struct{ body, want string }{
		{``, "one JSON object"},
		{`not json`, "one JSON object"},
		{`[{"kind":"status"}]`, "one JSON object"},
		{`null`, "one JSON object"},
		{`{}`, "kind is required"},
		{`{"kind":"explode"}`, `kind "explode" is not one of none, status, drop-before-read`},
		{`{"kind":"status","colour":"red"}`, `unknown key "colour"`},
		{`{"kind":"status","op":"Messages.Sned"}`, `op "Messages.Sned" is no operation`},
		{`{"kind":"status","status":200}`, "400 to 599"},
		{`{"kind":"status","status":"5xx"}`, "400 to 599"},
		{`{"kind":"status","retry_after":"soon"}`, "retry_after must be whole seconds or an HTTP date"},
		{`{"kind":"status","body":"xml"}`, `body "xml" is not one of`},
		{`{"kind":"drop-before-read","status":503}`, "status applies to kind status only"},
		{`{"kind":"latency"}`, "kind latency needs delay_ms"},
		{`{"kind":"status","delay_ms":5}`, "delay_ms applies to kind latency only"},
		{`{"kind":"latency","delay_ms":-1}`, "delay_ms must be whole milliseconds"},
		{`{"kind":"latency","delay_ms":1.5}`, "delay_ms must be whole milliseconds"},
		{`{"kind":"status","visible_after_ms":5}`, "visible_after_ms applies to kinds that handle the request"},
		{`{"kind":"status","count":0}`, "count must be a whole number of requests, at least 1"},
		{`{"kind":"status","count":true}`, "count must be a string or a number"},
		{`{"kind":"status","method":"PO ST"}`, "method must be an HTTP method"},
		{`{"kind":"status","path":"v2/Properties"}`, "path must start with /"},
		{`{"kind":"status","retry-after":"1","retry_after":"2"}`, "retry_after is given twice"},
	} {
		r := admin(t, srv, http.MethodPost, "faults", tc.body)
		assert.Equal(t, http.StatusBadRequest, r.Status, tc.body)
		var e struct{ Error string }
		require.NoError(t, json.Unmarshal(r.Body, &e), tc.body)
		assert.Contains(t, e.Error, tc.want, tc.body)
	}
	assert.Empty(t, srv.Faults())
}

func TestParseFault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec  string
		fault telcotest.Fault
		count int
	}{
		{"op=Messages.Send,kind=status,status=503,retry-after=2,count=3",
			telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, RetryAfter: "2", Op: "Messages.Send"}, 3},
		{"kind=status", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500}, 1},
		{"kind=status,body=html", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500, Body: telcotest.FaultBodyHTML}, 1},
		{"kind=status,status=503,retry_after=Wed, 21 Oct 2026 07:28:00 GMT,body=EMPTY",
			telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, RetryAfter: "Wed, 21 Oct 2026 07:28:00 GMT", Body: telcotest.FaultBodyEmpty}, 1},
		{" kind = drop_before_read , method = post , path = /v2/Properties/{PropertySid}/Messages ",
			telcotest.Fault{Kind: telcotest.FaultDropBeforeRead, Method: "POST", Path: "/v2/Properties/{PropertySid}/Messages"}, 1},
		{"kind=latency,delay-ms=2500,visible-after-ms=1000,count=2",
			telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 2500 * time.Millisecond, VisibleAfter: time.Second}, 2},
		{"kind=none,visible_after_ms=5000,op=Messages.SendBatch",
			telcotest.Fault{VisibleAfter: 5 * time.Second, Op: "Messages.SendBatch"}, 1},
		{"kind=truncate-body,", telcotest.Fault{Kind: telcotest.FaultTruncateBody}, 1},
	} {
		f, n, err := telcotest.ParseFault(tc.spec)
		require.NoError(t, err, tc.spec)
		assert.Equal(t, tc.fault, f, tc.spec)
		assert.Equal(t, tc.count, n, tc.spec)
	}
	for spec, want := range map[string]string{
		"":                          "kind is required",
		"status=503":                "kind is required",
		"kind=status,503":           `kind "status,503" is not one of`, // read as a value's continuation, then refused
		"kind":                      `"kind" is not key=value`,
		"kind=status,status=600":    "400 to 599",
		"kind=status,kind=latency":  "kind is given twice",
		"kind=latency,delay_ms=abc": "delay_ms must be whole milliseconds",
	} {
		_, _, err := telcotest.ParseFault(spec)
		require.Error(t, err, spec)
		assert.Contains(t, err.Error(), "telcotest: ParseFault: ", spec)
		assert.Contains(t, err.Error(), want, spec)
		assert.NotNil(t, errors.Unwrap(err), "the reason can be read alone: %v", err)
	}
}

// Faults armed over HTTP while requests use them up: every armed use is
// either seen by one request or still listed, never both, never lost.
func TestAdmin_ConcurrentArmAndUse(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	const armers, uses, requesters, requests = 4, 5, 4, 10
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := 0; i < armers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < uses; j++ {
				arm(t, srv, `{"op":"Properties.List","kind":"status","status":503}`)
				listFaults(t, srv)
			}
		}()
	}
	for i := 0; i < requesters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < requests; j++ {
				if raw(t, srv, http.MethodGet, "/v2/Properties", "").Status == http.StatusServiceUnavailable {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	left := 0
	for _, f := range listFaults(t, srv) {
		left += f.Remaining
	}
	assert.Equal(t, armers*uses, int(failed.Load())+left)
	assert.Equal(t, requesters*requests, srv.Requests())
}

// adminEndpoint is one row of GET /__telcotest/.
type adminEndpoint struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Description string `json:"description"`
}

// GET /__telcotest/ lists every endpoint, each with a description, and
// each listed endpoint answers its method (not 404 or 405).
func TestAdmin_IndexListsEveryEndpoint(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	for _, path := range []string{"", "/"} {
		r := rawDo(t, srv, basicAuth(srv.AccountSid, srv.Token), http.MethodGet, strings.TrimSuffix(telcotest.AdminPath, "/")+path, "", "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var idx struct{ Endpoints []adminEndpoint }
		require.NoError(t, json.Unmarshal(r.Body, &idx))
		seen := map[string]bool{}
		for _, e := range idx.Endpoints {
			assert.NotEmpty(t, e.Description, "%s %s", e.Method, e.Path)
			assert.True(t, strings.HasPrefix(e.Path, telcotest.AdminPath), e.Path)
			assert.False(t, seen[e.Method+" "+e.Path], "listed twice: %s %s", e.Method, e.Path)
			seen[e.Method+" "+e.Path] = true
		}
		assert.Len(t, idx.Endpoints, 16)
		for _, want := range []string{"GET /__telcotest/", "GET /__telcotest/faults", "POST /__telcotest/faults",
			"DELETE /__telcotest/faults", "GET /__telcotest/faults/{id}", "DELETE /__telcotest/faults/{id}", "GET /__telcotest/ops",
			"GET /__telcotest/messages", "GET /__telcotest/requests", "POST /__telcotest/inbound", "GET /__telcotest/message-failures",
			"POST /__telcotest/message-failures", "POST /__telcotest/porting-status", "GET /__telcotest/clock",
			"POST /__telcotest/clock", "POST /__telcotest/reset"} {
			assert.True(t, seen[want], "%s is not listed: %s", want, r.Body)
		}
	}
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodPost, "", "").Status)
	assert.Equal(t, http.StatusUnauthorized, rawDo(t, srv, noAuth, http.MethodGet, telcotest.AdminPath, "", "").Status)
}

// wireRequest is a request as GET /__telcotest/requests shows it.
type wireRequest struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Op     string `json:"op"`
	Status int    `json:"status"`
	Time   string `json:"time"`
}

func listRequests(t *testing.T, srv *telcotest.Server) ([]wireRequest, int) {
	t.Helper()
	r := admin(t, srv, http.MethodGet, "requests", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out struct {
		Requests []wireRequest
		Total    *int
	}
	require.NoError(t, json.Unmarshal(r.Body, &out), "%s", r.Body)
	require.NotNil(t, out.Requests, "an empty list is [], not null: %s", r.Body)
	require.NotNil(t, out.Total, "%s", r.Body)
	assert.NotContains(t, string(r.Body), srv.Token, "never a credential")
	return out.Requests, *out.Total
}

// Every request that reached the fake is listed, in order, with its
// answer's status and the fake's time; admin requests and health checks
// are not, as Requests does not count them.
func TestAdmin_Requests(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clk := telcotest.NewClock(start)
	srv := newServer(t, telcotest.WithAdmin(), telcotest.WithClock(clk))
	got, total := listRequests(t, srv)
	assert.Empty(t, got)
	assert.Equal(t, 0, total)

	prop := "/v2/Properties/" + srv.PropertySid
	assert.Equal(t, http.StatusOK, raw(t, srv, http.MethodGet, prop, "").Status)
	clk.Advance(1500 * time.Millisecond)
	assert.Equal(t, http.StatusUnauthorized, rawDo(t, srv, basicAuth(srv.AccountSid, "wrong"), http.MethodGet, "/v2/Properties", "", "").Status)
	assert.Equal(t, http.StatusNotFound, raw(t, srv, http.MethodGet, "/v2/Nothing?secret=x", "").Status)
	assert.Equal(t, http.StatusOK, rawDo(t, srv, noAuth, http.MethodGet, telcotest.HealthPath, "", "").Status)
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultDropBeforeRead, Op: "Messages.Send"})
	_, _, err := rawSend(t, srv, "dropped")
	require.Error(t, err)
	srv.WaitIdle()

	got, total = listRequests(t, srv)
	at := func(d time.Duration) string { return start.Add(d).Format("2006-01-02T15:04:05.000Z07:00") }
	assert.Equal(t, []wireRequest{
		{Method: "GET", Path: prop, Op: "Properties.Get", Status: 200, Time: at(0)},
		{Method: "GET", Path: "/v2/Properties", Op: "Properties.List", Status: 401, Time: at(1500 * time.Millisecond)},
		{Method: "GET", Path: "/v2/Nothing", Status: 404, Time: at(1500 * time.Millisecond)},
		{Method: "POST", Path: prop + "/Messages", Op: "Messages.Send", Status: 0, Time: at(1500 * time.Millisecond)},
	}, got)
	assert.Equal(t, 4, total)
	assert.Equal(t, 4, srv.Requests(), "the same requests as Requests counts")

	recs := srv.RequestRecords()
	require.Len(t, recs, 4)
	assert.Equal(t, telcotest.RequestRecord{Method: "GET", Path: prop, Op: "Properties.Get", Status: 200, Time: start}, recs[0])
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodPost, "requests", "").Status)
}

// listMessages is GET /__telcotest/messages with the query, each message
// as its JSON object.
func listMessages(t *testing.T, srv *telcotest.Server, query string) []json.RawMessage {
	t.Helper()
	r := admin(t, srv, http.MethodGet, "messages"+query, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out struct{ Messages []json.RawMessage }
	require.NoError(t, json.Unmarshal(r.Body, &out), "%s", r.Body)
	require.NotNil(t, out.Messages, "an empty list is [], not null: %s", r.Body)
	return out.Messages
}

// messageField reads one field of a message's JSON object.
func messageField(t *testing.T, m json.RawMessage, name string) any {
	t.Helper()
	var obj map[string]any
	require.NoError(t, json.Unmarshal(m, &obj))
	return obj[name]
}

// Every message of every account, in creation order, each exactly as the
// service's own Messages.Get writes it; filtered by project, direction
// and ExternalId.
func TestAdmin_Messages(t *testing.T) {
	t.Parallel()
	srv, clk := newClockServer(t, telcotest.WithAdmin())
	assert.Empty(t, listMessages(t, srv, ""))
	ctx := testCtx(t)
	other := srv.AddAccount("", "")
	c, oc := srv.Client(), srv.ClientFor(other.AccountSid)
	var sids []string
	for i, send := range []struct {
		c          *telco.Client
		prop, to   string
		externalID string
	}{
		{c, srv.PropertySid, "+61400000001", "order-1"},
		{oc, other.PropertySid, "+61400000002", "order-1"},
		{c, srv.PropertySid, "+61400000003", "Order-1"},
	} {
		m, err := send.c.Messages.Send(ctx, send.prop, &telco.SendMessageParams{To: send.to, Text: "hi <&> " + strconv.Itoa(i),
			ExternalID: send.externalID})
		require.NoError(t, err)
		sids = append(sids, m.MessageSid)
	}
	in := srv.Receive(srv.PropertySid, "+61400000009", "+61299990000", "reply")
	sids = append(sids, in.MessageSid)
	clk.Advance(telcotest.SubmitDelay) // the sends are Submitted: the list shows statuses as of now

	all := listMessages(t, srv, "")
	require.Len(t, all, 4)
	for i, m := range all {
		assert.Equal(t, sids[i], messageField(t, m, "MessageSid"), "creation order")
		// The service's own answer for the message, as its owner reads it.
		cred := [2]string{srv.AccountSid, srv.Token}
		if i == 1 {
			cred = [2]string{other.AccountSid, other.Token}
		}
		r := rawDo(t, srv, basicAuth(cred[0], cred[1]), http.MethodGet, "/v2/Messages/"+sids[i], "", "")
		require.Equal(t, http.StatusOK, r.Status)
		var wrapped struct{ Message json.RawMessage }
		require.NoError(t, json.Unmarshal(r.Body, &wrapped))
		assert.JSONEq(t, string(wrapped.Message), string(m), "message %d is the service's Message resource", i)
	}
	assert.Equal(t, "Submitted", messageField(t, all[0], "Status"))
	assert.Equal(t, "", messageField(t, all[0], "ErrorCode"), "ErrorCode is always there, as the service writes it")

	for query, want := range map[string][]int{
		"?property_sid=" + srv.PropertySid:                      {0, 2, 3},
		"?property_sid=" + other.PropertySid:                    {1},
		"?property_sid=" + strings.ToLower(srv.PropertySid):     {},
		"?direction=Transmit":                                   {0, 1, 2},
		"?direction=receive":                                    {3},
		"?external_id=order-1":                                  {0, 1},
		"?external_id=Order-1":                                  {2},
		"?external_id=order-1&property_sid=" + srv.PropertySid:  {0},
		"?direction=RECEIVE&property_sid=" + other.PropertySid:  {},
		"?external_id=&property_sid=" + other.PropertySid + "&": {1},
	} {
		got := listMessages(t, srv, query)
		var gotSids []string
		for _, m := range got {
			gotSids = append(gotSids, messageField(t, m, "MessageSid").(string))
		}
		var wantSids []string
		for _, i := range want {
			wantSids = append(wantSids, sids[i])
		}
		assert.Equal(t, wantSids, gotSids, query)
	}
	for query, want := range map[string]string{
		"?direction=Sideways":                   `direction must be Transmit or Receive`,
		"?propertySid=" + srv.PropertySid:       `unknown query parameter "propertySid"`,
		"?direction=Transmit&direction=Receive": `direction is given twice`,
	} {
		r := admin(t, srv, http.MethodGet, "messages"+query, "")
		assert.Equal(t, http.StatusBadRequest, r.Status, query)
		assert.Contains(t, adminErr(t, r), want, query)
	}
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodDelete, "messages", "").Status)
}

// adminErr is the message of an admin API error: {"error": "..."}.
func adminErr(t *testing.T, r rawResp) string {
	t.Helper()
	var e struct{ Error string }
	require.NoError(t, json.Unmarshal(r.Body, &e), "%s", r.Body)
	require.NotEmpty(t, e.Error, "%s", r.Body)
	return e.Error
}

// POST /__telcotest/inbound is Server.Receive over HTTP: the message is
// stored and answered, and the number's webhook fires as configured.
func TestAdmin_Inbound(t *testing.T) {
	t.Parallel()
	srv, _ := newClockServer(t, telcotest.WithAdmin())
	rc := newReceiver(t, http.StatusOK)
	srv.AddNumber(srv.PropertySid, "+61255550001")
	_, err := srv.Client().Numbers.Configure(testCtx(t), "+61255550001",
		&telco.NumberConfigParams{WebhookURL: rc.URL + "/inbound", WebhookMethod: "POST"})
	require.NoError(t, err)

	r := admin(t, srv, http.MethodPost, "inbound",
		`{"property_sid": "`+srv.PropertySid+`", "from": "+61400000001", "to": "+61255550001", "text": "hello number"}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	var m telco.Message
	require.NoError(t, json.Unmarshal(r.Body, &m))
	assert.Equal(t, telco.DirectionReceive, m.Direction)
	assert.Equal(t, telco.MessageReceived, m.Status)
	assert.Equal(t, "+61400000001", m.From)
	assert.Equal(t, "+61255550001", m.To)
	assert.Equal(t, "hello number", m.Text)
	assert.Equal(t, srv.PropertySid, m.PropertySid)

	stored := srv.Messages(srv.PropertySid)
	require.Len(t, stored, 1)
	assert.Equal(t, stored[0], m)
	listed := listMessages(t, srv, "?direction=Receive")
	require.Len(t, listed, 1)
	assert.JSONEq(t, string(bytesTrim(r.Body)), string(listed[0]), "answered as the list writes it")

	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 1, "the number's webhook fired")
	assert.Equal(t, "/inbound", hits[0].Path)
	assert.Equal(t, m.MessageSid, hits[0].message(t).MessageSid)

	for body, want := range map[string]string{
		``:   "one JSON object",
		`[]`: "one JSON object",
		`{"property_sid": "` + srv.PropertySid + `", "from": "+61400000001", "to": "+61255550001", "text": "x", "colour": 1}`: `unknown field "colour"`,
		`{"from": "+61400000001", "to": "+61255550001", "text": "x"}`:                                                         "property_sid is required",
		`{"property_sid": "PR0000000000000000000000000NONE", "from": "+61400000001", "to": "+61255550001", "text": "x"}`:      "no project PR0000000000000000000000000NONE",
		`{"property_sid": "` + srv.PropertySid + `", "to": "+61255550001", "text": "x"}`:                                      "from is required",
		`{"property_sid": "` + srv.PropertySid + `", "from": "+61400000001", "text": "x"}`:                                    "to is required",
		`{"property_sid": "` + srv.PropertySid + `", "from": "+61400000001", "to": "61255550001", "text": "x"}`:               "to must be an E.164 number with +",
		`{"property_sid": "` + srv.PropertySid + `", "from": "not a sender!", "to": "+61255550001", "text": "x"}`:             "from must be an E.164 number with + or an alphanumeric sender ID",
		`{"property_sid": "` + srv.PropertySid + `", "from": "+61400000001", "to": "+61255550001", "text": 5}`:                "text",
	} {
		r := admin(t, srv, http.MethodPost, "inbound", body)
		assert.Equal(t, http.StatusBadRequest, r.Status, body)
		assert.Contains(t, adminErr(t, r), want, body)
	}
	assert.Len(t, srv.Messages(srv.PropertySid), 1, "nothing refused was stored")
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodGet, "inbound", "").Status)
}

func bytesTrim(b []byte) []byte { return []byte(strings.TrimSpace(string(b))) }

// clockNow is GET or POST /__telcotest/clock's "now".
func clockNow(t *testing.T, r rawResp) time.Time {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out struct{ Now string }
	require.NoError(t, json.Unmarshal(r.Body, &out), "%s", r.Body)
	now, err := time.Parse(time.RFC3339, out.Now)
	require.NoError(t, err)
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, out.Now, "UTC, milliseconds")
	return now
}

// A server with WithAdmin and no WithClock runs on a running clock: time
// goes on by itself, and POST /__telcotest/clock moves it ahead, so that a
// message scheduled 30 minutes ahead goes out (its delivery receipt sent
// without anyone reading it) once the clock has moved 30 minutes.
func TestAdmin_ClockSendsAScheduledMessage(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	rc := newReceiver(t, http.StatusOK)
	now := clockNow(t, admin(t, srv, http.MethodGet, "clock", ""))
	assert.WithinDuration(t, time.Now(), now, time.Second, "the real time, to begin with")

	at := now.Truncate(time.Second).Add(30 * time.Minute)
	m, err := srv.Client().Messages.Send(testCtx(t), srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "later",
		Schedule: at, DeliveryReceiptWebhookURI: rc.URL + "/receipt"})
	require.NoError(t, err)
	status := func() string {
		list := listMessages(t, srv, "?external_id=")
		require.Len(t, list, 1)
		return messageField(t, list[0], "Status").(string)
	}
	assert.Equal(t, "Processing", status())

	moved := clockNow(t, admin(t, srv, http.MethodPost, "clock", `{"advance_ms": 1740000}`)) // 29 minutes
	assert.GreaterOrEqual(t, moved.Sub(now), 29*time.Minute)
	assert.Less(t, moved.Sub(now), 30*time.Minute)
	assert.Equal(t, "Processing", status(), "a minute early")
	assert.Empty(t, rc.got())

	clockNow(t, admin(t, srv, http.MethodPost, "clock", `{"advance_ms": 60000}`))
	require.Eventually(t, func() bool { return len(rc.got()) == 1 }, 10*time.Second, 10*time.Millisecond,
		"the delivery receipt goes out by itself once the message is due")
	got := srv.Messages(srv.PropertySid)[0]
	assert.Equal(t, m.MessageSid, got.MessageSid)
	assert.Equal(t, telco.MessageDelivered, got.Status)
	assert.Equal(t, telco.TimestampOf(at), got.Submitted, "submitted at its schedule, on the fake's clock")
	assert.Equal(t, "Delivered", status())

	after := clockNow(t, admin(t, srv, http.MethodGet, "clock", ""))
	assert.GreaterOrEqual(t, time.Until(after), 30*time.Minute-time.Second, "the clock stays ahead")
	d, err := http.ParseTime(raw(t, srv, http.MethodGet, "/v2/Properties", "").Header.Get("Date"))
	require.NoError(t, err)
	assert.WithinDuration(t, after, d, 2*time.Second, "the service's Date header tells the fake's time")
}

// Under WithClock, POST /__telcotest/clock moves that Clock, as Advance.
func TestAdmin_ClockMovesAManualClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clk := telcotest.NewClock(start)
	srv := newServer(t, telcotest.WithAdmin(), telcotest.WithClock(clk))
	assert.Equal(t, start, clockNow(t, admin(t, srv, http.MethodGet, "clock", "")))
	assert.Equal(t, start.Add(1500*time.Millisecond), clockNow(t, admin(t, srv, http.MethodPost, "clock", `{"advance_ms": 1500}`)))
	assert.Equal(t, start.Add(1500*time.Millisecond), clk.Now())
	assert.Equal(t, start.Add(1500*time.Millisecond), clockNow(t, admin(t, srv, http.MethodPost, "clock", `{"advance_ms": 0}`)))

	for body, want := range map[string]string{
		`{}`:                          "advance_ms is required",
		`{"advance_ms": -1}`:          "advance_ms must be whole milliseconds, 0 to 31536000000",
		`{"advance_ms": 31536000001}`: "advance_ms must be whole milliseconds, 0 to 31536000000",
		`{"advance_ms": 1.5}`:         "advance_ms",
		`{"advance_ms": "10"}`:        "advance_ms",
		`{"advance_ms": 1, "by": 2}`:  `unknown field "by"`,
		`5`:                           "one JSON object",
	} {
		r := admin(t, srv, http.MethodPost, "clock", body)
		assert.Equal(t, http.StatusBadRequest, r.Status, body)
		assert.Contains(t, adminErr(t, r), want, body)
	}
	assert.Equal(t, start.Add(1500*time.Millisecond), clk.Now(), "nothing refused moved it")
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodDelete, "clock", "").Status)
}

// POST /__telcotest/porting-status is SetPortingStatus over HTTP: the
// request and its numbers move on, the history grows, the webhook fires,
// and the answer is the request as the service writes it.
func TestAdmin_PortingStatus(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	rc := newReceiver(t, http.StatusOK)
	p := portingParams("+61298765432")
	p.WebhookURL = rc.URL + "/porting"
	req := submit(t, srv.Client(), srv.PropertySid, p)

	r := admin(t, srv, http.MethodPost, "porting-status", `{"porting_no": "`+req.PortingNo+`", "status": "Approved"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var got telco.PortingRequest
	require.NoError(t, json.Unmarshal(r.Body, &got))
	assert.Equal(t, req.PortingNo, got.PortingNo)
	assert.Equal(t, "Approved", got.Status)
	require.Len(t, got.PortingNumbers, 1)
	assert.Equal(t, "Approved", got.PortingNumbers[0].Status)
	assert.Len(t, got.PortingNumbers[0].StatusHistory, 2)

	page, err := srv.Client().Porting.StatusByProperty(testCtx(t), srv.PropertySid, portingWindow())
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, got, page.Items[0], "the service reads the same request")
	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 1, "the porting webhook fired")
	assert.Equal(t, "/porting", hits[0].Path)

	for body, want := range map[string]string{
		`{"status": "Approved"}`:                                 "porting_no is required",
		`{"porting_no": "` + req.PortingNo + `"}`:                "status is required",
		`{"porting_no": "PN-NONE", "status": "Approved"}`:        "no porting request PN-NONE",
		`{"porting_no": "` + req.PortingNo + `", "status": 3}`:   "status",
		`{"porting_no": "` + req.PortingNo + `", "state": "Ok"}`: `unknown field "state"`,
	} {
		r := admin(t, srv, http.MethodPost, "porting-status", body)
		assert.Equal(t, http.StatusBadRequest, r.Status, body)
		assert.Contains(t, adminErr(t, r), want, body)
	}
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodGet, "porting-status", "").Status)
}

// POST /__telcotest/message-failures is FailMessagesTo over HTTP: a
// message to the number not yet submitted fails with UNDELIVERABLE, a
// message to another number does not; GET lists the numbers.
func TestAdmin_MessageFailures(t *testing.T) {
	t.Parallel()
	srv, clk := newClockServer(t, telcotest.WithAdmin())
	list := func() []string {
		t.Helper()
		r := admin(t, srv, http.MethodGet, "message-failures", "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var out struct {
			MessageFailures []struct {
				To string `json:"to"`
			} `json:"message_failures"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &out), "%s", r.Body)
		require.NotNil(t, out.MessageFailures, "an empty list is [], not null: %s", r.Body)
		var to []string
		for _, f := range out.MessageFailures {
			to = append(to, f.To)
		}
		return to
	}
	assert.Empty(t, list())
	c := srv.Client()
	doomed, err := c.Messages.Send(testCtx(t), srv.PropertySid, &telco.SendMessageParams{To: "+61400000013", Text: "x"})
	require.NoError(t, err)
	fine, err := c.Messages.Send(testCtx(t), srv.PropertySid, &telco.SendMessageParams{To: "+61400000014", Text: "y"})
	require.NoError(t, err)

	r := admin(t, srv, http.MethodPost, "message-failures", `{"to": "+61400000013"}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"to": "+61400000013"}`, string(r.Body))
	r = admin(t, srv, http.MethodPost, "message-failures", `{"to": "+61400000012"}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, []string{"+61400000012", "+61400000013"}, list(), "sorted")

	clk.Advance(time.Second)
	byID := map[string]telco.Message{}
	for _, m := range srv.Messages(srv.PropertySid) {
		byID[m.MessageSid] = m
	}
	assert.Equal(t, telco.MessageFailed, byID[doomed.MessageSid].Status)
	assert.Equal(t, "UNDELIVERABLE", byID[doomed.MessageSid].ErrorCode)
	assert.Equal(t, telco.MessageDelivered, byID[fine.MessageSid].Status)

	for body, want := range map[string]string{
		`{}`:                             "to is required",
		`{"to": "61400000013"}`:          "to must be an E.164 number with +",
		`{"to": "+61400000013", "x": 1}`: `unknown field "x"`,
	} {
		r := admin(t, srv, http.MethodPost, "message-failures", body)
		assert.Equal(t, http.StatusBadRequest, r.Status, body)
		assert.Contains(t, adminErr(t, r), want, body)
	}
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodDelete, "message-failures", "").Status)
}

// seedState is what a client reads of the resources optest.Setup made,
// and of the accounts' projects: what a reset must give back.
type seedState struct {
	Projects, OtherProjects []telco.Property
	Number                  *telco.Number
	Blocks                  []telco.NumberBlock
	Flows                   []telco.Flow
	Calls                   []telco.Call
	Login                   *telco.OnlineLogin
	Trunk                   *telco.SipTrunk
	Porting                 []telco.PortingRequest
	Addresses               []telco.Address
	Counts                  telcotest.Counts
}

func readSeedState(t *testing.T, srv *telcotest.Server, clk *telcotest.Clock, ids optest.IDs, other telcotest.Account) seedState {
	t.Helper()
	ctx := testCtx(t)
	c := srv.Client()
	var st seedState
	projects, err := c.Properties.List(ctx, nil)
	require.NoError(t, err)
	st.Projects = projects.Items
	otherProjects, err := srv.ClientFor(other.AccountSid).Properties.List(ctx, nil)
	require.NoError(t, err)
	st.OtherProjects = otherProjects.Items
	st.Number, err = c.Numbers.Get(ctx, ids.Number)
	require.NoError(t, err)
	blocks, err := c.NumberBlocks.ListByProperty(ctx, ids.PropertySid, nil)
	require.NoError(t, err)
	st.Blocks = blocks.Data
	flows, err := c.Flows.List(ctx, ids.PropertySid, nil)
	require.NoError(t, err)
	st.Flows = flows.Items
	calls, err := c.Calls.ListByProperty(ctx, ids.PropertySid, nil)
	require.NoError(t, err)
	st.Calls = calls.Calls
	st.Login, err = c.OnlineLogins.Get(ctx, ids.OnlineLoginSid)
	require.NoError(t, err)
	st.Trunk, err = c.SipTrunks.GetByProperty(ctx, ids.PropertySid, ids.SipTrunkSid)
	require.NoError(t, err)
	porting, err := c.Porting.StatusByProperty(ctx, ids.PropertySid,
		&telco.PortingStatusParams{From: clk.Now().Add(-time.Hour), To: clk.Now().Add(time.Hour)})
	require.NoError(t, err)
	st.Porting = porting.Items
	addresses, err := c.Addresses.List(ctx, srv.AccountSid, nil)
	require.NoError(t, err)
	st.Addresses = addresses.Items
	st.Counts = srv.Counts()
	return st
}

// POST /__telcotest/reset puts back what the server held at its
// checkpoint: every resource changed, added or deleted since is as it was
// (twice over: the checkpoint itself is never changed), the messages sent
// since are gone, and so are the requests, faults, message failures and
// callbacks.
func TestAdmin_ResetRestoresTheCheckpoint(t *testing.T) {
	t.Parallel()
	clk := telcotest.NewClock(time.Time{})
	srv := newServer(t, telcotest.WithAdmin(), telcotest.WithClock(clk))
	other := srv.AddAccount("", "")
	ids, err := optest.Setup(srv)
	require.NoError(t, err)
	srv.Checkpoint()
	before := readSeedState(t, srv, clk, ids, other)
	setupMessage := listMessages(t, srv, "")
	require.Len(t, setupMessage, 1, "Setup sends one message, scheduled")

	ctx := testCtx(t)
	c := srv.Client()
	rc := newReceiver(t, http.StatusOK)
	change := func(round string) {
		t.Helper()
		require.NoError(t, c.Properties.Update(ctx, ids.PropertySid, &telco.UpdatePropertyParams{Name: telco.Ptr("Renamed " + round)}))
		_, err := c.Numbers.Configure(ctx, ids.Number, &telco.NumberConfigParams{Friendly: "changed " + round,
			WebhookURL: rc.URL + "/inbound", WebhookMethod: "POST"})
		require.NoError(t, err)
		_, err = c.NumberBlocks.Configure(ctx, ids.NumberBlockSid, &telco.ConfigureNumberBlockParams{
			RoutingMethod: telco.BlockRoutingEndpoint, EndpointNumber: "+61299990001"})
		require.NoError(t, err)
		require.NoError(t, c.OnlineLogins.Update(ctx, ids.OnlineLoginSid, &telco.UpdateOnlineLoginParams{FirstName: telco.Ptr(round),
			Permissions: []telco.Permission{{PropertySid: ids.PropertySid, Scopes: telco.Scopes{telco.ScopeAdmin}}}}))
		require.NoError(t, c.SipTrunks.Update(ctx, ids.PropertySid, ids.SipTrunkSid, &telco.UpdateSipTrunkParams{
			Name: telco.Ptr(round), IPAddresses: []string{"52.62.10.8"}, AllowedCountries: []string{"GB"}}))
		require.True(t, srv.SetPortingStatus(ids.PortingNo, "Approved "+round))
		_, err = c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: round, MainDomain: "example.com", TimeZone: "UTC"})
		require.NoError(t, err)
		_, err = c.Messages.Send(ctx, ids.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: round})
		require.NoError(t, err)
		admin(t, srv, http.MethodPost, "inbound", `{"property_sid": "`+ids.PropertySid+`", "from": "+61400000002", "to": "`+ids.Number+`", "text": "in"}`)
		admin(t, srv, http.MethodPost, "message-failures", `{"to": "+61400000001"}`)
		require.True(t, srv.SetAccountSmsEnabled(other.AccountSid, false))
		arm(t, srv, `{"op": "Lookup.NumberDetails", "kind": "status"}`)
		srv.Flush()
		require.NotEmpty(t, srv.Callbacks(), "the inbound webhook")
		require.NotEqual(t, before, readSeedState(t, srv, clk, ids, other), "round %s changed the state", round)
	}

	change("one")
	require.NoError(t, c.Addresses.Delete(ctx, ids.AddressSid))
	r := admin(t, srv, http.MethodPost, "reset", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var cleared struct {
		Cleared struct{ Messages, Requests, Callbacks, Faults int }
	}
	require.NoError(t, json.Unmarshal(r.Body, &cleared), "%s", r.Body)
	assert.Equal(t, 2, cleared.Cleared.Messages, "the send and the inbound")
	assert.Equal(t, 1, cleared.Cleared.Faults)
	assert.Equal(t, 2, cleared.Cleared.Callbacks, "the inbound webhook and the porting one")
	assert.Greater(t, cleared.Cleared.Requests, 10)

	requests, total := listRequests(t, srv)
	assert.Empty(t, requests)
	assert.Zero(t, total)
	assert.Zero(t, srv.Requests())
	assert.Empty(t, listFaults(t, srv))
	assert.Empty(t, srv.Callbacks())
	assert.JSONEq(t, `{"message_failures": []}`, string(admin(t, srv, http.MethodGet, "message-failures", "").Body))
	assert.Equal(t, setupMessage, listMessages(t, srv, ""), "the checkpoint's message, no other")
	assert.Equal(t, before, readSeedState(t, srv, clk, ids, other))
	_, err = srv.ClientFor(other.AccountSid).Messages.Send(ctx, other.PropertySid, &telco.SendMessageParams{To: "+61400000003", Text: "on"})
	assert.NoError(t, err, "SMS is enabled again")

	change("two")
	srv.Reset()
	assert.Equal(t, before, readSeedState(t, srv, clk, ids, other), "the checkpoint is never changed by what follows")
	assert.Equal(t, http.StatusMethodNotAllowed, admin(t, srv, http.MethodGet, "reset", "").Status)
}

// A server that was never checkpointed resets to its state at start, with
// no messages; requests count from 1 again.
func TestAdmin_ResetWithoutCheckpoint(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	seeded := srv.Counts()
	for i := 0; i < 3; i++ {
		_, _, err := rawSend(t, srv, strconv.Itoa(i))
		require.NoError(t, err)
	}
	srv.Receive(srv.PropertySid, "+61400000001", "+61299990000", "in")
	require.Equal(t, 4, srv.Counts().Messages)
	require.Equal(t, http.StatusOK, admin(t, srv, http.MethodPost, "reset", "").Status)
	assert.Equal(t, seeded, srv.Counts())
	assert.Empty(t, listMessages(t, srv, ""))
	assert.Equal(t, http.StatusOK, raw(t, srv, http.MethodGet, "/v2/Properties/"+srv.PropertySid, "").Status,
		"the seeded project is there, under its SID")
	requests, total := listRequests(t, srv)
	assert.Len(t, requests, 1)
	assert.Equal(t, 1, total)
}

// Resets while clients send and read: nothing races (under -race), no
// request fails for it, and after a last reset nothing is left.
func TestAdmin_ResetWhileBusy(t *testing.T) {
	t.Parallel()
	srv := newServer(t, telcotest.WithAdmin())
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 15; j++ {
				resp, _, err := rawSend(t, srv, strconv.Itoa(j))
				if assert.NoError(t, err) {
					assert.Equal(t, http.StatusOK, resp.StatusCode)
				}
				listMessages(t, srv, "")
				listRequests(t, srv)
			}
		}()
	}
	for j := 0; j < 10; j++ {
		assert.Equal(t, http.StatusOK, admin(t, srv, http.MethodPost, "reset", "").Status)
	}
	wg.Wait()
	srv.Reset()
	assert.Empty(t, listMessages(t, srv, ""))
	assert.Zero(t, srv.Counts().Messages)
}
