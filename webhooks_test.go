package telco

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a WebhookHandler whose functions record what they were given.
type recorder struct {
	mu       sync.Mutex
	messages []*MessageEvent
	porting  []*PortingEvent
	err      error // returned by every function
}

func (rc *recorder) msg(_ context.Context, ev *MessageEvent) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.messages = append(rc.messages, ev)
	return rc.err
}

func (rc *recorder) port(_ context.Context, ev *PortingEvent) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.porting = append(rc.porting, ev)
	return rc.err
}

func (rc *recorder) all() *WebhookHandler {
	return &WebhookHandler{DeliveryReceipt: rc.msg, InboundMessage: rc.msg, LeaseResponse: rc.msg, PortingUpdate: rc.port}
}

func serveWebhook(h http.Handler, method, target, contentType, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

const receiptJSON = `{"MessageSid":"MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","AccountSid":"ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL",
 "PropertySid":"PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS","From":"+61400000001","To":"+61499999999","Text":"hi",
 "DeliveryReceipt":true,"NumSegments":1,"Status":"Delivered","Direction":"Transmit",
 "Created":1763780000,"Submitted":1763780001,"Delivered":1763780002,"ExternalId":"order-1"}`

var receiptQuery = url.Values{
	"MessageSid": {"MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, "AccountSid": {"ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL"},
	"PropertySid": {"PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS"}, "From": {"+61400000001"}, "To": {"+61499999999"},
	"Text": {"hi"}, "DeliveryReceipt": {"true"}, "NumSegments": {"1"}, "Status": {"Delivered"},
	"Direction": {"Transmit"}, "Created": {"1763780000"}, "Submitted": {"1763780001"},
	"Delivered": {"1763780002"}, "ExternalId": {"order-1"},
}.Encode()

var wantReceipt = Message{
	MessageSid: "MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", AccountSid: "ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL",
	PropertySid: "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", From: "+61400000001", To: "+61499999999", Text: "hi",
	DeliveryReceipt: true, NumSegments: 1, Status: MessageDelivered, Direction: DirectionTransmit,
	Created: 1763780000, Submitted: 1763780001, Delivered: 1763780002, ExternalID: "order-1",
}

func TestWebhookEncodings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, target, contentType, body string
	}{
		{"GET query", "GET", "/hook?" + receiptQuery, "", ""},
		{"Get in the service SDKs' case", "Get", "/hook?" + receiptQuery, "", ""},
		{"POST JSON", "POST", "/hook", "application/json", receiptJSON},
		{"POST JSON with charset", "Post", "/hook", "application/json; charset=utf-8", receiptJSON},
		{"POST JSON without a type", "POST", "/hook", "", receiptJSON},
		{"POST form", "POST", "/hook", "application/x-www-form-urlencoded", receiptQuery},
		{"POST JSON with quoted numbers and booleans", "POST", "/hook", "application/json",
			strings.NewReplacer(`"NumSegments":1`, `"NumSegments":"1"`, `"DeliveryReceipt":true`, `"DeliveryReceipt":"true"`,
				`"Created":1763780000`, `"Created":"1763780000"`).Replace(receiptJSON)},
		{"POST JSON with unknown fields", "POST", "/hook", "application/json",
			strings.Replace(receiptJSON, "{", `{"Price":{"Amount":0.08},"Carrier":"X","Tags":[1,2],`, 1)},
		{"GET with unknown and repeated fields", "GET", "/hook?" + receiptQuery + "&Price=0.08&secret=s3&Text=second", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rc recorder
			w := serveWebhook(rc.all(), tc.method, tc.target, tc.contentType, tc.body)
			require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
			require.Len(t, rc.messages, 1)
			ev := rc.messages[0]
			assert.Equal(t, WebhookDeliveryReceipt, ev.Kind)
			assert.Equal(t, wantReceipt, ev.Message)
			assert.NotNil(t, ev.Request)
		})
	}
}

func TestWebhookAbsentAndEmptyValues(t *testing.T) {
	t.Parallel()
	var rc recorder
	q := "MessageSid=MGB&Direction=Receive&Status=Received&NumSegments=&DeliveryReceipt=&Received=1763780000&Text=%2B1"
	w := serveWebhook(rc.all(), "GET", "/in?"+q, "", "")
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Len(t, rc.messages, 1)
	m := rc.messages[0].Message
	assert.Equal(t, Message{MessageSid: "MGB", Direction: DirectionReceive, Status: MessageReceived,
		Received: 1763780000, Text: "+1"}, m)

	// JSON nulls and a number where a string is expected.
	w = serveWebhook(rc.all(), "POST", "/in", "application/json",
		`{"MessageSid":"MGC","Direction":"Receive","Text":12345,"NumSegments":null,"Created":null,"ExternalId":7}`)
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Len(t, rc.messages, 2)
	assert.Equal(t, Message{MessageSid: "MGC", Direction: DirectionReceive, Text: "12345", ExternalID: "7"}, rc.messages[1].Message)
}

func TestWebhookClassification(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		query  string
		set    func(h *WebhookHandler, rc *recorder) // which functions are set
		status int
		kind   WebhookKind
	}{
		{"receipt by direction", "MessageSid=MG1&Direction=Transmit&Status=Failed&ErrorCode=UNDELIVERABLE", nil, 204, WebhookDeliveryReceipt},
		{"receipt by status alone", "MessageSid=MG1&Status=delivered", nil, 204, WebhookDeliveryReceipt},
		{"inbound by direction", "MessageSid=MG1&Direction=receive", nil, 204, WebhookInboundMessage},
		{"inbound by status alone", "MessageSid=MG1&Status=Received", nil, 204, WebhookInboundMessage},
		{"inbound goes to LeaseResponse when InboundMessage is nil", "MessageSid=MG1&Direction=Receive",
			func(h *WebhookHandler, rc *recorder) { h.InboundMessage = nil }, 204, WebhookLeaseResponse},
		{"porting", "PortingNo=P-1&Status=Completed", nil, 204, WebhookPortingUpdate},
		{"no function for the kind", "MessageSid=MG1&Direction=Transmit",
			func(h *WebhookHandler, rc *recorder) { h.DeliveryReceipt = nil }, 404, 0},
		{"no function for porting", "PortingNo=P-1",
			func(h *WebhookHandler, rc *recorder) { h.PortingUpdate = nil }, 404, 0},
		{"no inbound nor lease function", "MessageSid=MG1&Direction=Receive",
			func(h *WebhookHandler, rc *recorder) { h.InboundMessage, h.LeaseResponse = nil, nil }, 404, 0},
		{"neither message nor porting", "Foo=bar", nil, 400, 0},
		{"message of no telling kind", "MessageSid=MG1", nil, 400, 0},
		{"unknown direction", "MessageSid=MG1&Direction=Sideways", nil, 400, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rc recorder
			h := rc.all()
			if tc.set != nil {
				tc.set(h, &rc)
			}
			w := serveWebhook(h, "GET", "/hook?"+tc.query, "", "")
			require.Equal(t, tc.status, w.Code, w.Body.String())
			switch {
			case tc.status != 204:
				assert.Empty(t, rc.messages)
				assert.Empty(t, rc.porting)
			case tc.kind == WebhookPortingUpdate:
				require.Len(t, rc.porting, 1)
				assert.Equal(t, "P-1", rc.porting[0].PortingRequest.PortingNo)
			default:
				require.Len(t, rc.messages, 1)
				assert.Equal(t, tc.kind, rc.messages[0].Kind)
			}
		})
	}
}

func TestWebhookPerKindHandlers(t *testing.T) {
	t.Parallel()
	var rc recorder
	// A per-kind URL needs no Direction: the URL says what it is.
	for _, tc := range []struct {
		h    *WebhookHandler
		kind WebhookKind
	}{
		{DeliveryReceiptHandler(rc.msg), WebhookDeliveryReceipt},
		{InboundMessageHandler(rc.msg), WebhookInboundMessage},
		{LeaseResponseHandler(rc.msg), WebhookLeaseResponse},
	} {
		w := serveWebhook(tc.h, "POST", "/x", "application/json", `{"MessageSid":"MG9","Direction":"Receive"}`)
		require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
		assert.Equal(t, tc.kind, rc.messages[len(rc.messages)-1].Kind, tc.kind.String())

		w = serveWebhook(tc.h, "POST", "/x", "application/json", `{"PortingNo":"P-1"}`)
		assert.Equal(t, http.StatusBadRequest, w.Code, "a porting body on a message URL")
	}

	ph := PortingUpdateHandler(rc.port)
	w := serveWebhook(ph, "POST", "/p", "application/json",
		`{"PortingNo":"P-7","Status":"Submitted","Created":"1763780000","PreferredPortDate":"2026-12-01",
		  "PortingNumbers":[{"Number":"+61299999999","Status":"Pending","Extra":1}],"Unknown":{"a":1}}`)
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Len(t, rc.porting, 1)
	pr := rc.porting[0].PortingRequest
	assert.Equal(t, "P-7", pr.PortingNo)
	assert.Equal(t, "Submitted", pr.Status)
	assert.Equal(t, Timestamp(1763780000), pr.Created)
	assert.Equal(t, "2026-12-01", pr.PreferredPortDate.Time().Format("2006-01-02"))
	require.Len(t, pr.PortingNumbers, 1)
	assert.Equal(t, "+61299999999", pr.PortingNumbers[0].Number)

	// A form carries the list as JSON text.
	form := url.Values{"PortingNo": {"P-8"}, "PortingNumbers": {`[{"Number":"+61288888888"}]`}}.Encode()
	w = serveWebhook(ph, "POST", "/p", "application/x-www-form-urlencoded", form)
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Len(t, rc.porting, 2)
	assert.Equal(t, "+61288888888", rc.porting[1].PortingRequest.PortingNumbers[0].Number)

	// A list flattened in a way we cannot read is dropped, not refused.
	w = serveWebhook(ph, "GET", "/p?PortingNo=P-9&Status=Completed&PortingNumbers=%2B61288888888", "", "")
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Len(t, rc.porting, 3)
	assert.Equal(t, "Completed", rc.porting[2].PortingRequest.Status)
	assert.Empty(t, rc.porting[2].PortingRequest.PortingNumbers)

	w = serveWebhook(ph, "POST", "/p", "application/json", `{"MessageSid":"MG1","Direction":"Receive"}`)
	assert.Equal(t, http.StatusBadRequest, w.Code, "a message on the porting URL")
}

func TestWebhookRejects(t *testing.T) {
	t.Parallel()
	big := `{"MessageSid":"MG1","Direction":"Transmit","Text":"` + strings.Repeat("x", 1100) + `"}`
	cases := []struct {
		name, method, target, contentType, body string
		status                                  int
	}{
		{"PUT", "PUT", "/h", "application/json", receiptJSON, 405},
		{"DELETE", "DELETE", "/h", "", "", 405},
		{"body over the limit", "POST", "/h", "application/json", big, 413},
		{"form over the limit", "POST", "/h", "application/x-www-form-urlencoded", "MessageSid=MG1&Text=" + strings.Repeat("x", 1100), 413},
		{"query over the limit", "GET", "/h?MessageSid=MG1&Text=" + strings.Repeat("x", 1100), "", "", 414},
		{"malformed JSON", "POST", "/h", "application/json", `{"MessageSid":`, 400},
		{"JSON array", "POST", "/h", "application/json", `[` + receiptJSON + `]`, 400},
		{"JSON null", "POST", "/h", "application/json", `null`, 400},
		{"two JSON objects", "POST", "/h", "application/json", receiptJSON + receiptJSON, 400},
		{"empty body", "POST", "/h", "application/json", ``, 400},
		{"bad form", "POST", "/h", "application/x-www-form-urlencoded", "MessageSid=%zz", 400},
		{"bad query", "GET", "/h?MessageSid=%zz", "", "", 400},
		{"XML", "POST", "/h", "text/xml", "<Message/>", 415},
		{"bad content type", "POST", "/h", "a/b/c;;", receiptJSON, 415},
		{"number field not a number", "POST", "/h", "application/json", `{"MessageSid":"MG1","Direction":"Transmit","NumSegments":"two"}`, 400},
		{"bool field not a bool", "GET", "/h?MessageSid=MG1&Direction=Transmit&DeliveryReceipt=maybe", "", "", 400},
		{"timestamp not a time", "GET", "/h?MessageSid=MG1&Direction=Transmit&Created=yesterday", "", "", 400},
		{"object for a string", "POST", "/h", "application/json", `{"MessageSid":{"a":1},"Direction":"Transmit"}`, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rc recorder
			h := rc.all()
			h.MaxBodyBytes = 1024
			var reported atomic.Int32
			h.OnError = func(r *http.Request, status int, err error) {
				reported.Store(int32(status))
				assert.Error(t, err)
			}
			w := serveWebhook(h, tc.method, tc.target, tc.contentType, tc.body)
			assert.Equal(t, tc.status, w.Code, w.Body.String())
			assert.Equal(t, int32(tc.status), reported.Load(), "OnError is told")
			assert.Empty(t, rc.messages, "no function is called")
			if tc.status == 405 {
				assert.Equal(t, "GET, POST", w.Header().Get("Allow"))
			}
		})
	}
}

func TestWebhookDefaultLimit(t *testing.T) {
	t.Parallel()
	var rc recorder
	text := strings.Repeat("x", DefaultMaxWebhookBody)
	body, err := json.Marshal(map[string]string{"MessageSid": "MG1", "Direction": "Transmit", "Text": text})
	require.NoError(t, err)
	w := serveWebhook(rc.all(), "POST", "/h", "application/json", string(body))
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)

	body, err = json.Marshal(map[string]string{"MessageSid": "MG1", "Direction": "Transmit", "Text": text[:60<<10]})
	require.NoError(t, err)
	w = serveWebhook(rc.all(), "POST", "/h", "application/json", string(body))
	assert.Equal(t, http.StatusNoContent, w.Code, "under the default limit")
}

func TestWebhookUserErrorIs500WithoutDetail(t *testing.T) {
	t.Parallel()
	rc := recorder{err: errors.New("database down: password=hunter2")}
	var got error
	h := rc.all()
	h.OnError = func(_ *http.Request, status int, err error) {
		assert.Equal(t, http.StatusInternalServerError, status)
		got = err
	}
	w := serveWebhook(h, "POST", "/h", "application/json", receiptJSON)
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.NotContains(t, w.Body.String(), "database")
	assert.NotContains(t, w.Body.String(), "hunter2")
	assert.ErrorIs(t, got, rc.err, "OnError receives the function's own error")

	rc.err = nil
	w = serveWebhook(h, "POST", "/h", "application/json", receiptJSON)
	assert.Equal(t, http.StatusNoContent, w.Code)
}

func TestWebhookContextIsTheRequests(t *testing.T) {
	t.Parallel()
	type key struct{}
	h := DeliveryReceiptHandler(func(ctx context.Context, ev *MessageEvent) error {
		if ctx.Value(key{}) != "v" {
			return errors.New("not the request's context")
		}
		return nil
	})
	req := httptest.NewRequest("POST", "/h", strings.NewReader(receiptJSON))
	req = req.WithContext(context.WithValue(req.Context(), key{}, "v"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	assert.Equal(t, http.StatusNoContent, w.Code)
}

func TestWebhookKindString(t *testing.T) {
	t.Parallel()
	for k, want := range map[WebhookKind]string{WebhookUnknown: "unknown", WebhookDeliveryReceipt: "delivery receipt",
		WebhookInboundMessage: "inbound message", WebhookLeaseResponse: "lease response", WebhookPortingUpdate: "porting update",
		WebhookKind(99): "unknown"} {
		assert.Equal(t, want, k.String())
	}
}

func TestWebhookConcurrent(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	var seen sync.Map
	h := &WebhookHandler{
		DeliveryReceipt: func(_ context.Context, ev *MessageEvent) error {
			n.Add(1)
			seen.Store(ev.Message.MessageSid, true)
			return nil
		},
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				sid := fmt.Sprintf("MG%d-%d", w, i)
				var resp *http.Response
				var err error
				if i%2 == 0 {
					resp, err = http.Post(srv.URL, "application/json",
						strings.NewReader(`{"MessageSid":"`+sid+`","Direction":"Transmit"}`))
				} else {
					resp, err = http.Get(srv.URL + "?MessageSid=" + sid + "&Status=Delivered")
				}
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, http.StatusNoContent, resp.StatusCode)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(workers*each), n.Load())
	count := 0
	seen.Range(func(_, _ any) bool { count++; return true })
	assert.Equal(t, workers*each, count, "every callback arrived once, with its own fields")
}

// sendCallback calls a webhook as the wire contract says the service does:
// the resource's fields as a JSON object in a POST, or as query parameters
// (timestamps as Unix seconds, booleans true/false) in a GET, with the
// method in any case.
func sendCallback(t *testing.T, method, target string, resource any) *http.Response {
	t.Helper()
	b, err := json.Marshal(resource)
	require.NoError(t, err)
	var req *http.Request
	if strings.EqualFold(method, "GET") {
		var fields map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&fields))
		q := url.Values{}
		for k, v := range fields {
			switch v := v.(type) {
			case string:
				q.Set(k, v)
			case json.Number:
				q.Set(k, v.String())
			case bool:
				q.Set(k, strconv.FormatBool(v))
			default: // lists: JSON text
				raw, err := json.Marshal(v)
				require.NoError(t, err)
				q.Set(k, string(raw))
			}
		}
		req, err = http.NewRequest(method, target+"?"+q.Encode(), nil)
	} else {
		req, err = http.NewRequest(method, target, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
	}
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestWebhookEndToEnd serves the handler on a real listener and calls it as
// the service does, for every kind of callback and both methods, on one URL
// and on per-kind URLs.
func TestWebhookEndToEnd(t *testing.T) {
	t.Parallel()
	var rc recorder
	mux := http.NewServeMux()
	// The same callbacks are delivered by each method on purpose.
	mux.Handle("/all", &WebhookHandler{DeliveryReceipt: rc.msg, InboundMessage: rc.msg, PortingUpdate: rc.port,
		Once: EveryDelivery})
	lease := LeaseResponseHandler(rc.msg)
	lease.Once = EveryDelivery
	mux.Handle("/lease", lease)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	inbound := Message{MessageSid: "MGIIIIIIIIIIIIIIIIIIIIIIIIIIIIII", AccountSid: wantReceipt.AccountSid,
		PropertySid: wantReceipt.PropertySid, From: "+61411111111", To: "+61400000001", Text: "STOP",
		NumSegments: 1, Status: MessageReceived, Direction: DirectionReceive, Created: 1763780100, Received: 1763780100}
	porting := PortingRequest{PortingNo: "PN-42", AccountSid: wantReceipt.AccountSid, PropertySid: wantReceipt.PropertySid,
		Status: "Completed", PreferredPortSchedule: PortASAP, Created: 1763700000, WebhookURL: srv.URL + "/all",
		PortingNumbers: []PortingNumber{{Number: "+61299999999", PortType: PortTypeCatA, Status: "Ported"}}}

	for _, method := range []string{"POST", "Get", "GET", "Post"} {
		before := len(rc.messages)
		assert.Equal(t, 204, sendCallback(t, method, srv.URL+"/all", wantReceipt).StatusCode)
		assert.Equal(t, 204, sendCallback(t, method, srv.URL+"/all", inbound).StatusCode)
		assert.Equal(t, 204, sendCallback(t, method, srv.URL+"/lease", inbound).StatusCode)
		assert.Equal(t, 204, sendCallback(t, method, srv.URL+"/all", porting).StatusCode)

		require.Len(t, rc.messages, before+3, method)
		got := rc.messages[before:]
		assert.Equal(t, WebhookDeliveryReceipt, got[0].Kind)
		assert.Equal(t, wantReceipt, got[0].Message, method)
		assert.Equal(t, WebhookInboundMessage, got[1].Kind)
		assert.Equal(t, inbound, got[1].Message, method)
		assert.Equal(t, WebhookLeaseResponse, got[2].Kind)
		assert.Equal(t, inbound, got[2].Message, method)
		assert.Equal(t, porting, rc.porting[len(rc.porting)-1].PortingRequest, method)
	}
}

func TestWebhookPostWithQueryOnly(t *testing.T) {
	t.Parallel()
	var rc recorder
	w := serveWebhook(rc.all(), "POST", "/h?"+receiptQuery, "", "")
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Len(t, rc.messages, 1)
	assert.Equal(t, wantReceipt, rc.messages[0].Message)
}

// FuzzWebhookHandler feeds the handler arbitrary callbacks: it must never
// panic, and must answer one of the documented statuses.
func FuzzWebhookHandler(f *testing.F) {
	f.Add("POST", "application/json", receiptJSON, "")
	f.Add("POST", "application/x-www-form-urlencoded", receiptQuery, "")
	f.Add("GET", "", "", receiptQuery)
	f.Add("POST", "application/json", `{"PortingNo":"P","PortingNumbers":[{"Number":1}]}`, "")
	f.Add("POST", "", `{"MessageSid":"MG","Status":"Received","NumSegments":"1e3","Created":"2026-01-01"}`, "")
	f.Fuzz(func(t *testing.T, method, contentType, body, query string) {
		if method != "GET" && method != "POST" && method != "Post" {
			method = "POST"
		}
		req := httptest.NewRequest("POST", "/h", strings.NewReader(body))
		req.Method = method
		req.URL.RawQuery = query
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		var rc recorder
		h := rc.all()
		h.MaxBodyBytes = 4096
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 204, 400, 404, 413, 414, 415:
		default:
			t.Fatalf("status %d", w.Code)
		}
		if w.Code == 204 {
			require.Equal(t, 1, len(rc.messages)+len(rc.porting), "one function was called")
		}
	})
}

// A text of spaces is a real SMS and is kept; space around a number is
// still noise.
func TestWebhookWhitespaceText(t *testing.T) {
	t.Parallel()
	var rc recorder
	w := serveWebhook(rc.all(), "POST", "/in", "application/json",
		`{"MessageSid":"MGS","Direction":"Receive","Text":"   ","NumSegments":" 1 "}`)
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Len(t, rc.messages, 1)
	assert.Equal(t, "   ", rc.messages[0].Message.Text)
	assert.Equal(t, 1, rc.messages[0].Message.NumSegments)

	w = serveWebhook(rc.all(), "GET", "/in?MessageSid=MGT&Direction=Receive&Text=%20%20", "", "")
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Len(t, rc.messages, 2)
	assert.Equal(t, "  ", rc.messages[1].Message.Text)
}

// Status and Direction in any case are the SDK's constants, so that
// ev.Message.Status == MessageDelivered holds for a lower-case query.
func TestWebhookCanonicalEnums(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query     string
		status    MessageStatus
		direction Direction
	}{
		{"MessageSid=MG1&Status=delivered", MessageDelivered, ""},
		{"MessageSid=MG2&Status=FAILED&Direction=transmit", MessageFailed, DirectionTransmit},
		{"MessageSid=MG3&Status=received&Direction=RECEIVE", MessageReceived, DirectionReceive},
		{"MessageSid=MG4&Status=%20Submitted%20", MessageSubmitted, ""},
	} {
		var rc recorder
		w := serveWebhook(rc.all(), "GET", "/hook?"+tc.query, "", "")
		require.Equal(t, http.StatusNoContent, w.Code, "%s: %s", tc.query, w.Body.String())
		require.Len(t, rc.messages, 1, tc.query)
		assert.Equal(t, tc.status, rc.messages[0].Message.Status, tc.query)
		assert.Equal(t, tc.direction, rc.messages[0].Message.Direction, tc.query)
	}
}

// Keys that differ only in case decode the same on every run: the one
// spelled as the field wins, else the first in sorted order.
func TestWebhookDuplicateKeysDeterministic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, text, status string }{
		{`{"MessageSid":"MG1","Direction":"Receive","text":"lower","Text":"exact","TEXT":"upper"}`, "exact", ""},
		{`{"MessageSid":"MG1","Direction":"Receive","text":"lower","TEXT":"upper","tExt":"mixed"}`, "upper", ""},
		{`{"MessageSid":"MG1","status":"Failed","STATUS":"Delivered"}`, "", "Delivered"},
	} {
		for range 20 { // map order varies from run to run
			var rc recorder
			w := serveWebhook(rc.all(), "POST", "/hook", "application/json", tc.body)
			require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
			require.Len(t, rc.messages, 1)
			assert.Equal(t, tc.text, rc.messages[0].Message.Text, tc.body)
			assert.Equal(t, MessageStatus(tc.status), rc.messages[0].Message.Status, tc.body)
		}
	}
}

// trickle opens a raw connection to addr, sends a POST's headers
// announcing a body of n bytes, and then one byte every gap until told to
// stop or the server closes the connection. It returns the connection and
// a function that stops the trickle.
func trickle(t *testing.T, addr string, n int, gap time.Duration) (net.Conn, func()) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = fmt.Fprintf(conn, "POST /hook HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", addr, n)
	require.NoError(t, err)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(gap)
		defer tick.Stop()
		for i := 1; i < n; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	var once sync.Once
	return conn, func() {
		once.Do(func() { close(stop) })
		<-done
		conn.Close()
	}
}

// A sender that trickles its body a byte at a time is cut off after
// ReadTimeout with 408, instead of holding a handler for as long as it
// likes (50 of 50 such senders held one after 6 s before the deadline).
func TestWebhookReadTimeoutCutsTricklingSender(t *testing.T) {
	t.Parallel()
	var reported atomic.Int32
	var called atomic.Bool
	h := &WebhookHandler{
		DeliveryReceipt: func(context.Context, *MessageEvent) error { called.Store(true); return nil },
		ReadTimeout:     300 * time.Millisecond,
		OnError:         func(_ *http.Request, status int, _ error) { reported.Store(int32(status)) },
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	const senders = 5
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 1,000 bytes at 50 ms each would take 50 s.
			conn, stop := trickle(t, srv.Listener.Addr().String(), 1000, 50*time.Millisecond)
			defer stop()
			start := time.Now()
			_ = conn.SetReadDeadline(start.Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if !assert.NoError(t, err, "the server answers before the body is complete") {
				return
			}
			resp.Body.Close()
			assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
			assert.Less(t, time.Since(start), 3*time.Second)
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(http.StatusRequestTimeout), reported.Load(), "OnError is told")
	assert.False(t, called.Load())
}

// The handler's longer default does not loosen a server's shorter
// ReadTimeout: SetReadDeadline would otherwise replace it.
func TestWebhookReadTimeoutKeepsServersShorterOne(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(DeliveryReceiptHandler(func(context.Context, *MessageEvent) error { return nil }))
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	conn, stop := trickle(t, srv.Listener.Addr().String(), 1000, 50*time.Millisecond)
	defer stop()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	assert.Less(t, time.Since(start), 3*time.Second, "well before the handler's own 10 s")
}

// The deadline covers the body only: a function slower than ReadTimeout
// keeps its context and its answer.
func TestWebhookReadTimeoutSparesSlowFunction(t *testing.T) {
	t.Parallel()
	h := DeliveryReceiptHandler(func(ctx context.Context, _ *MessageEvent) error {
		select {
		case <-time.After(400 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return errors.New("context ended while the function ran")
		}
	})
	h.ReadTimeout = 100 * time.Millisecond
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := srv.Client()
	for range 2 { // the second on the kept-alive connection
		resp, err := c.Post(srv.URL, "application/json", strings.NewReader(receiptJSON))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	}
}

// countingBody records whether anything read it.
type countingBody struct {
	io.Reader
	reads atomic.Int32
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.reads.Add(1)
	return b.Reader.Read(p)
}

func TestWebhookAuthorizeRunsFirst(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, contentType, body string
	}{
		{"JSON POST", "POST", "application/json", receiptJSON},
		{"GET", "GET", "", ""},
		{"a method it would refuse", "PUT", "application/json", receiptJSON},
		{"a body it could not decode", "POST", "text/xml", "<x/>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rc recorder
			h := rc.all()
			var status atomic.Int32
			h.OnError = func(_ *http.Request, s int, _ error) { status.Store(int32(s)) }
			h.Authorize = func(*http.Request) bool { return false }
			body := &countingBody{Reader: strings.NewReader(tc.body)}
			req := httptest.NewRequest(tc.method, "/hook?"+receiptQuery, body)
			req.Header.Set("Content-Type", tc.contentType)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			assert.Equal(t, http.StatusUnauthorized, w.Code)
			assert.Equal(t, int32(http.StatusUnauthorized), status.Load())
			assert.Zero(t, body.reads.Load(), "the body is not read")
			assert.Empty(t, rc.messages)

			h.Authorize = func(*http.Request) bool { return true }
			if tc.method == "POST" && tc.contentType == "application/json" {
				w = serveWebhook(h, tc.method, "/hook", tc.contentType, tc.body)
				assert.Equal(t, http.StatusNoContent, w.Code)
			}
		})
	}
}

func TestWebhookQuerySecret(t *testing.T) {
	t.Parallel()
	const current, previous = "k8Jd0-current-9Qz", "p3Lm2-previous-7Xc"
	var rc recorder
	h := rc.all()
	h.Once = EveryDelivery // one callback, delivered again on purpose
	h.Authorize = WebhookQuerySecret("", current, previous)
	var refusedURL string
	h.OnError = func(r *http.Request, _ int, _ error) { refusedURL = r.URL.String() + " " + r.RequestURI }
	cases := []struct {
		name, query string
		status      int
	}{
		{"no secret", "", 401},
		{"wrong secret", "secret=nope", 401},
		{"empty secret", "secret=", 401},
		{"a prefix of the secret", "secret=k8Jd0", 401},
		{"the secret under another name", "token=" + current, 401},
		{"current secret", "secret=" + current, 204},
		{"previous secret during rotation", "secret=" + previous, 204},
		{"escaped secret", "secret=k8Jd0%2Dcurrent%2D9Qz", 204},
		{"secret after other parameters", "tenant=7&secret=" + current, 204},
		{"first of two values counts", "secret=" + current + "&secret=nope", 204},
		{"first of two values counts, wrong first", "secret=nope&secret=" + current, 401},
	}
	for _, tc := range cases {
		before := len(rc.messages)
		refusedURL = ""
		w := serveWebhook(h, "POST", "/hook?"+tc.query, "application/json", receiptJSON)
		require.Equal(t, tc.status, w.Code, tc.name)
		if strings.HasPrefix(tc.query, "secret=") {
			assert.NotContains(t, refusedURL, "secret=", "%s: stripped on refusal too", tc.name)
		}
		if tc.status != 204 {
			assert.Len(t, rc.messages, before, tc.name)
			continue
		}
		require.Len(t, rc.messages, before+1, tc.name)
		r := rc.messages[before].Request
		assert.NotContains(t, r.URL.RawQuery, "secret", tc.name)
		assert.NotContains(t, r.RequestURI, "secret", tc.name)
		assert.NotContains(t, r.URL.String(), current, tc.name)
		if strings.HasPrefix(tc.query, "tenant=7") {
			assert.Equal(t, "tenant=7", r.URL.RawQuery, "the other parameters are kept as sent")
		}
	}

	// A GET carries the secret among the callback's own fields; the fields
	// still decode, and the server's request is not modified.
	req := httptest.NewRequest("GET", "/hook?secret="+current+"&"+receiptQuery, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	assert.Equal(t, wantReceipt, rc.messages[len(rc.messages)-1].Message)
	assert.Contains(t, req.URL.RawQuery, "secret=", "the handler works on its own copy")

	// No usable secret refuses everything.
	none := WebhookQuerySecret("key", "", "")
	assert.False(t, none(httptest.NewRequest("GET", "/h?key=", nil)))
	assert.False(t, none(httptest.NewRequest("GET", "/h", nil)))
	named := WebhookQuerySecret("key", current)
	assert.True(t, named(httptest.NewRequest("GET", "/h?key="+current, nil)))
	assert.False(t, named(httptest.NewRequest("GET", "/h?secret="+current, nil)))
}

// A function that panics gets the caller a 500, not a dropped
// connection, and OnError hears of it; the server goes on serving.
func TestWebhookPanicAnswers500(t *testing.T) {
	t.Parallel()
	var reported atomic.Value
	h := &WebhookHandler{
		DeliveryReceipt: func(context.Context, *MessageEvent) error { panic("boom: password=hunter2") },
		PortingUpdate:   func(context.Context, *PortingEvent) error { return nil },
		OnError: func(_ *http.Request, status int, err error) {
			reported.Store(fmt.Sprint(status, " ", err))
		},
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(receiptJSON))
	require.NoError(t, err, "the connection is not dropped")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.NotContains(t, string(b), "hunter2", "the panic's text stays out of the answer")
	got, _ := reported.Load().(string)
	assert.Contains(t, got, "500")
	assert.Contains(t, got, "panic")

	resp, err = srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"PortingNo":"P-1"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)

	// http.ErrAbortHandler still aborts, as net/http documents.
	abort := DeliveryReceiptHandler(func(context.Context, *MessageEvent) error { panic(http.ErrAbortHandler) })
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() {
		serveWebhook(abort, "POST", "/h", "application/json", receiptJSON)
	})
}

// A key given twice counts at its first occurrence in every encoding.
func TestWebhookDuplicateKeysFirstWins(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, method, target, contentType, body string }{
		{"JSON", "POST", "/h", "application/json",
			`{"MessageSid":"MG1","Direction":"Receive","Text":"first","NumSegments":1,"Text":"second","NumSegments":2}`},
		{"JSON without a type", "POST", "/h", "",
			`{"MessageSid":"MG1","Direction":"Receive","Text":"first","NumSegments":1,"Text":"second","NumSegments":2}`},
		{"form", "POST", "/h", "application/x-www-form-urlencoded",
			"MessageSid=MG1&Direction=Receive&Text=first&NumSegments=1&Text=second&NumSegments=2"},
		{"query", "GET", "/h?MessageSid=MG1&Direction=Receive&Text=first&NumSegments=1&Text=second&NumSegments=2", "", ""},
	} {
		var rc recorder
		w := serveWebhook(rc.all(), tc.method, tc.target, tc.contentType, tc.body)
		require.Equal(t, http.StatusNoContent, w.Code, "%s: %s", tc.name, w.Body.String())
		require.Len(t, rc.messages, 1, tc.name)
		assert.Equal(t, "first", rc.messages[0].Message.Text, tc.name)
		assert.Equal(t, 1, rc.messages[0].Message.NumSegments, tc.name)
	}
	// The object is still checked whole.
	for _, body := range []string{`{"MessageSid":"MG1","Text":}`, `{"MessageSid":"MG1",}`, `{"a":1}{}`, `{"a":1`, `[]`, `"x"`} {
		w := serveWebhook((&recorder{}).all(), "POST", "/h", "application/json", body)
		assert.Equal(t, http.StatusBadRequest, w.Code, body)
	}
}
