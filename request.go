package telco

// The request path: how a service method becomes an HTTP exchange and the
// exchange a typed result or an error.
//
// Every service method reads like the interface document and has no HTTP
// code of its own:
//
//  1. Path identifiers are checked with pathParam, even with validation
//     off, since an empty segment would address another operation.
//     Required params are checked with precheck (a path identifier too) or
//     requireParams (none): nil is a *ValidationError, then the rules run
//     when validation is on. Optional params are taken with deref: nil is
//     the zero value.
//  2. Params become wire values: a params type is the caller's, never the
//     wire format. Each method converts its params into an unexported wire
//     value (wireX for a JSON body; a wireX struct with url tags for a
//     query) and sends that; no method encodes a params value as it is.
//  3. The path is built by escapedPath from the document's own pattern,
//     "/v2/Properties/{PropertySid}/Messages", each identifier escaped as
//     one segment.
//  4. The call runs through one helper that returns the typed result or a
//     clear error: getOne (a resource), getList (a page), getID (an answer
//     that only names the resource) or, for answers without a resource,
//     c.do itself.
//
// do is the one chokepoint. It encodes the query (encodeQuery, below,
// the one query encoder) and the body, authenticates, and hands the
// request to the retry loop (retry.go). For a non-idempotent call it
// clears Request.GetBody, so that net/http cannot resend the body by
// itself, and traces whether an attempt got a connection. The last
// answer's body is read by retry.go's readAnswer, the one place a body is
// read; decodeResponse then turns it into the result:
//
//   - a non-2xx is an *APIError decoded from the service's error envelope,
//     read up to 1 MiB and redacted (redact.go); for a call with a goneCode
//     it is a success once an earlier attempt may have acted;
//   - a 2xx body, read up to the WithMaxResponseBytes cap, is handed to
//     the call's decoder (decode.go); a body over the cap, cut short or
//     undecodable is an *APIError, matching ErrMaybeSent for a
//     non-idempotent call, which took effect;
//   - a 2xx holding only the service's error envelope is that error, for
//     every call, those that expect no body included.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"

	"github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// call describes one operation for do.
type call struct {
	op         string // "Messages.Send", for errors and logs
	method     string
	path       string // escaped, beginning with /v2/ (escapedPath)
	query      any    // a wire query, a struct with url tags (encodeQuery); nil for none
	rawQuery   string // Client.Do's query, as the caller wrote it (re-encoded); "" for none
	body       any    // a wire value, JSON-encoded when non-nil
	idempotent bool   // repeating it is harmless
	// noUnsafeRetry keeps a non-idempotent call from being retried after
	// it may have reached the service even with RetryPolicy.RetryUnsafe:
	// SendOnce's sends, which look the message up instead.
	noUnsafeRetry bool
	emptyOK       bool // a 2xx with no body is a success even when there is a decoder
	// goneCode, when set, makes a 4xx with this service error code (for
	// example ADDRESS_NOT_FOUND) a success once an earlier attempt may have
	// reached the service: for a DELETE, that attempt removed the resource.
	// It keys on the code, not the status: the service answers errors 400,
	// and a 404 from elsewhere (a proxy, a wrong prefix) says nothing.
	goneCode string
	// secrets are values the request carries that must not be kept from
	// an error answer echoing it (a login or SIP password).
	secrets []string
}

// ctxOrBackground is ctx, or context.Background for a nil one.
func ctxOrBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// do runs r and decodes a 2xx body with out, which may be nil when the
// answer carries nothing the caller needs.
func (c *Client) do(ctx context.Context, r *call, out bodyDecoder) error {
	ctx = ctxOrBackground(ctx)
	u, err := c.requestURL(r)
	if err != nil {
		return fmt.Errorf("telco: %s: encoding query: %w", r.op, err)
	}
	var body any // untyped nil when there is none, so GETs carry no body
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return fmt.Errorf("telco: %s: encoding body: %w", r.op, err)
		}
		body = b
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("telco: %s: %w", r.op, err)
	}

	st := &attemptState{ctx: ctx, client: c, call: r}
	ctx = context.WithValue(ctx, attemptKey{}, st)
	if !r.idempotent {
		// Only a call that is not retried after it may have reached the
		// service needs to know whether an attempt got that far.
		st.traced = true
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: st.gotConn})
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return fmt.Errorf("telco: %s: %w", r.op, err)
	}
	req.SetResponseHandler(st.readAnswer)
	if !r.idempotent {
		// Without GetBody net/http cannot resend the body by itself (see
		// retry.go); the SDK's own retries rewind through retryablehttp's
		// body function. A side effect: a 307/308 to a send is not
		// followed but returned as an *APIError.
		req.Request.GetBody = nil
	}
	h := req.Header
	h.Set("Authorization", c.auth())
	h.Set("Accept", "application/json")
	h.Set("User-Agent", c.userAgent)
	if body != nil {
		if r.method == http.MethodPatch {
			h.Set("Content-Type", "application/merge-patch+json")
		} else {
			h.Set("Content-Type", "application/json")
		}
	}

	if err := c.waitLimiter(ctx); err != nil { // the first attempt's; prepareRetry waits for the others
		recordResponse(ctx, r.op, 0, nil)
		return fmt.Errorf("telco: %s: %w", r.op, err)
	}
	resp, err := c.rc.Do(req)
	recordResponse(ctx, r.op, st.n+1, resp) // CaptureResponse, below
	if resp != nil {
		defer resp.Body.Close()
	}
	if err != nil {
		err = fmt.Errorf("telco: %s: %w", r.op, err)
		if !r.idempotent && st.maybeSent {
			err = &maybeSentError{err}
		}
		return err
	}
	return c.decodeResponse(r, st, resp, out)
}

// decodeResponse turns the last answer, whose body readAnswer read, into
// out or an error.
func (c *Client) decodeResponse(r *call, st *attemptState, resp *http.Response, out bodyDecoder) error {
	maybe := !r.idempotent
	if !is2xx(resp.StatusCode) {
		ae := c.redactAPIError(r, decodeAPIError(r.op, resp.StatusCode, c.redact(r, st.body)))
		ae.RetryAfter = retryAfterOf(resp)
		if r.goneCode != "" && st.reached && resp.StatusCode >= 400 && resp.StatusCode <= 499 && ae.Code == r.goneCode {
			return nil
		}
		ae.maybeSent = maybe && st.maybeSent
		return ae
	}
	if st.tooLarge {
		return &APIError{Op: r.op, StatusCode: resp.StatusCode,
			Message: fmt.Sprintf("response body exceeds %d bytes (WithMaxResponseBytes)", c.maxBody),
			err:     ErrResponseTooLarge, maybeSent: maybe}
	}
	data := st.body
	empty := len(trimJSONSpace(data)) == 0
	var err error
	switch {
	case out == nil:
		err = refusedIn(data) // nil for an empty body
	case empty && r.emptyOK:
		return nil
	case empty:
		return &APIError{Op: r.op, StatusCode: resp.StatusCode, Message: "empty response body", maybeSent: maybe}
	default:
		err = out.decodeBody(data)
	}
	if err == nil {
		return nil
	}
	var rf *refusal
	if errors.As(err, &rf) {
		// The service says it did not act: no ErrMaybeSent.
		return c.redactAPIError(r, &APIError{Op: r.op, StatusCode: resp.StatusCode,
			Code: rf.s.ErrorCode, Message: rf.s.Message, Fields: rf.s.Errors})
	}
	return &APIError{Op: r.op, StatusCode: resp.StatusCode, Message: "undecodable response body",
		Body: boundedCopy(c.redact(r, data)), err: err, maybeSent: maybe}
}

// getOne runs r and returns the resource its answer holds, or an
// *APIError when the answer holds none.
func getOne[T any](ctx context.Context, c *Client, r *call, shape *resourceShape[T]) (*T, error) {
	out := oneAnswer[T]{shape: shape}
	if err := c.do(ctx, r, &out); err != nil {
		return nil, err
	}
	if !out.ok {
		return nil, missing(r, shape.keys[0])
	}
	return out.val, nil
}

// getList runs r and returns the page its answer holds; a listing without
// its array is an empty page.
func getList[T any](ctx context.Context, c *Client, r *call, shape *listShape[T]) (*Page[T], error) {
	out := listAnswer[T]{shape: shape}
	if err := c.do(ctx, r, &out); err != nil {
		return nil, err
	}
	return out.page(), nil
}

// getID runs r and returns the identifier its answer holds under key, or
// an *APIError when it holds none.
func getID(ctx context.Context, c *Client, r *call, key string) (string, error) {
	out := idAnswer{key: key}
	if err := c.do(ctx, r, &out); err != nil {
		return "", err
	}
	if out.id == "" {
		return "", missing(r, key)
	}
	return out.id, nil
}

// missing reports a 2xx answer without the expected resource. A
// non-idempotent call took effect all the same.
func missing(r *call, key string) error {
	return &APIError{Op: r.op, StatusCode: http.StatusOK, maybeSent: !r.idempotent,
		Message: "response has no " + key}
}

// requireParams is precheck for a method without a path identifier.
func (c *Client) requireParams(op string, given bool, check func() fieldErrs) error {
	if !given {
		return nilParams(op)
	}
	return c.validateParams(op, check)
}

// deref returns *p, or the zero value for nil optional params.
func deref[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// escapedPath fills the document's path pattern, each {Name} in turn with
// the next of ids escaped as one path segment.
func escapedPath(pattern string, ids ...string) string {
	var b strings.Builder
	b.Grow(len(pattern) + 40)
	for {
		i := strings.IndexByte(pattern, '{')
		j := strings.IndexByte(pattern, '}')
		if i < 0 || j < i || len(ids) == 0 {
			b.WriteString(pattern)
			return b.String()
		}
		b.WriteString(pattern[:i])
		b.WriteString(pathSegment(ids[0]))
		pattern, ids = pattern[j+1:], ids[1:]
	}
}

// pathSegment escapes s as one path segment. Dot segments are escaped too,
// since a server or proxy that cleans paths would otherwise read "/x/.."
// as "/".
func pathSegment(s string) string {
	if s == "." || s == ".." {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

// The query string. Every wire query is a struct with url tags beside its
// params type (wireFindMessages, wireListCalls, ...), and encodeQuery is
// the one encoder of all of them: go-querystring's url.Values, whose
// Encode sorts the keys and escapes keys and values with url.QueryEscape.
// A field whose zero means "not set" carries omitempty, so the service's
// default applies. A multi-value filter is one comma-separated value,
// never repeated keys (the service's notes): a commaList.

// encodeQuery returns q, a wire query, encoded.
func encodeQuery(q any) (string, error) {
	v, err := query.Values(q)
	if err != nil {
		return "", err
	}
	return v.Encode(), nil
}

// requestURL is r's URL: the base URL, the path and the encoded query,
// without a ? when the query is empty.
func (c *Client) requestURL(r *call) (string, error) {
	q := r.rawQuery
	if r.query != nil {
		var err error
		if q, err = encodeQuery(r.query); err != nil {
			return "", err
		}
	}
	if q == "" {
		return c.baseURL + r.path, nil
	}
	return c.baseURL + r.path + "?" + q, nil
}

// commaList is a multi-value filter: one value, its elements joined with
// commas. A list whose elements are all empty joins to "" and, like an
// empty string, is not sent.
type commaList[T ~string] []T

// EncodeValues sets key to the joined list, for go-querystring.
func (l commaList[T]) EncodeValues(key string, v *url.Values) error {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(e))
	}
	if b.Len() > 0 {
		v.Set(key, b.String())
	}
	return nil
}

// Response metadata: CaptureResponse records the last answer of a call
// made with a context (status, headers, a request id, the attempts made),
// without changing any method's signature.

// ResponseInfo is what the last attempt of a call answered. Methods keep
// their signatures; a caller who wants this passes a context made by
// CaptureResponse.
type ResponseInfo struct {
	Op         string      // the SDK operation of the call
	StatusCode int         // the last answer's status; 0 when no attempt got one
	Header     http.Header // the last answer's headers; nil when no attempt got one
	// RequestID is the answer's request identifier, read from the first of
	// X-Request-Id, Request-Id, X-Correlation-Id, X-Amzn-RequestId and
	// X-Ms-Request-Id that is set; "" when none is. The service's documents
	// name no such header, so whether it sends one is not known.
	RequestID string
	Attempts  int // attempts made, retries included
}

// requestIDHeaders are the headers RequestID is read from, in order.
var requestIDHeaders = []string{"X-Request-Id", "Request-Id", "X-Correlation-Id", "X-Amzn-Requestid", "X-Ms-Request-Id"}

type responseInfoKey struct{}

// CaptureResponse returns a context that makes each call made with it
// record its ResponseInfo, and the value it records into, overwritten by
// each call whether it succeeds or fails. A method that makes several
// requests (an ...All iterator, SendOnce) records its last. The value must
// not be shared by calls that run at the same time.
// (CallInfo, by contrast, tells a RoundTripper which call and attempt a
// request belongs to.)
//
//	ctx, info := telco.CaptureResponse(ctx)
//	err := client.Properties.Update(ctx, sid, p)
//	log.Printf("status %d, request id %q", info.StatusCode, info.RequestID)
func CaptureResponse(ctx context.Context) (context.Context, *ResponseInfo) {
	info := new(ResponseInfo)
	return withResponseInfo(ctx, info), info
}

// WithResponseInfo is CaptureResponse recording into info.
//
// Deprecated: use CaptureResponse; the With prefix is for Options. It
// stays for one release.
func WithResponseInfo(ctx context.Context, info *ResponseInfo) context.Context {
	return withResponseInfo(ctx, info)
}

func withResponseInfo(ctx context.Context, info *ResponseInfo) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, responseInfoKey{}, info)
}

// recordResponse fills the context's ResponseInfo, if it has one, from the
// call's last answer (resp may be nil);
// attempts is how many attempts were made.
func recordResponse(ctx context.Context, op string, attempts int, resp *http.Response) {
	info, _ := ctx.Value(responseInfoKey{}).(*ResponseInfo)
	if info == nil {
		return
	}
	*info = ResponseInfo{Op: op, Attempts: attempts}
	if resp == nil {
		return
	}
	info.StatusCode = resp.StatusCode
	info.Header = resp.Header.Clone()
	for _, h := range requestIDHeaders {
		if v := resp.Header.Get(h); v != "" {
			info.RequestID = v
			break
		}
	}
}
