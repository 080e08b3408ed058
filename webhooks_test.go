package telco

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

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
	mux.Handle("/all", &WebhookHandler{DeliveryReceipt: rc.msg, InboundMessage: rc.msg, PortingUpdate: rc.port})
	mux.Handle("/lease", LeaseResponseHandler(rc.msg))
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
