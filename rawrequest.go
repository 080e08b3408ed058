package telco

// The escape hatch: Client.Do sends a request the SDK has no method for
// through the same request path as every method (request.go), so that it
// gets the same authentication, retries, error decoding, redaction and
// logging. Only what a method would know is supplied from the request
// itself: whether it may be retried comes from its HTTP method, and the
// secrets to keep out of an error from the body's password fields.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"unicode"
)

// rawMethods are the methods Do sends, each with whether it is idempotent.
var rawMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodPost: false,
}

// Do sends one request for an operation the SDK does not cover, on the
// same path as its methods: HTTP Basic authentication, Accept and
// User-Agent headers, retries, *APIError for an error answer, redaction of
// secrets in errors, and one log record per attempt. Errors name the
// operation "Client.Do".
//
// method is GET, HEAD, POST, PUT, PATCH or DELETE, in any case. GET, HEAD,
// PUT, PATCH and DELETE are retried as idempotent; POST is not retried
// once it may have reached the service, and such a failure matches
// ErrMaybeSent, as a send does.
//
// path is relative to the base URL, escaped as it is to be sent, with an
// optional query: "/v2/Properties/PR.../Flows?Results_Count=10". A path
// that does not begin with a version segment gets /v2 in front, so
// "Properties" is "/v2/Properties". An absolute URL, a fragment and dot
// segments are refused with a *ValidationError, even with validation off.
//
// body, when not nil, is sent as JSON (GET and HEAD take none): []byte and json.RawMessage as they
// are (they must hold JSON), anything else encoded with encoding/json.
// PATCH bodies go as application/merge-patch+json, the others as
// application/json. The values of fields named like "Password" are kept
// out of errors, as the SDK's own methods keep passwords out.
//
// out, when not nil, receives a 2xx body: *[]byte and *json.RawMessage get
// it as sent, anything else is decoded with encoding/json. An empty body
// (a 204) leaves out unchanged. A 2xx holding only the service's error
// envelope, {"ResponseStatus": {"ErrorCode": ...}}, is an *APIError.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	const op = "Client.Do"
	m := strings.ToUpper(strings.TrimSpace(method))
	idempotent, ok := rawMethods[m]
	if !ok {
		return &ValidationError{Op: op, Fields: []FieldError{newFieldError(CodeParameterInvalid, "method",
			"method must be GET, HEAD, POST, PUT, PATCH or DELETE")}}
	}
	p, q, problem := rawPath(path)
	if problem != "" {
		code := CodeParameterInvalid
		if strings.TrimSpace(path) == "" {
			code = CodeParameterRequired
		}
		return &ValidationError{Op: op, Fields: []FieldError{newFieldError(code, "path", problem)}}
	}
	if body != nil && (m == http.MethodGet || m == http.MethodHead) {
		return &ValidationError{Op: op, Fields: []FieldError{newFieldError(CodeParameterInvalid, "body",
			m+" sends no body; put parameters in the path's query")}}
	}
	// The query is the caller's own, not a wire query of the SDK's: it is
	// sent re-encoded as url.Values writes it, keys sorted.
	r := &call{op: op, method: m, path: p, rawQuery: q.Encode(), idempotent: idempotent, emptyOK: true}
	switch b := body.(type) {
	case nil:
	case json.RawMessage:
		r.body, r.secrets = b, passwordsIn(b)
	case []byte:
		r.body, r.secrets = json.RawMessage(b), passwordsIn(b)
	default:
		r.body = body
		if enc, err := json.Marshal(body); err == nil {
			r.secrets = passwordsIn(enc)
		}
	}
	return c.do(ctx, r, &rawAnswer{out: out})
}

// rawPath checks and completes Do's path; problem is "" when it is sound.
func rawPath(s string) (path string, query url.Values, problem string) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", nil, "path is required"
	case strings.Contains(s, "://") || strings.HasPrefix(s, "//"):
		return "", nil, "path must be relative to the base URL, e.g. /v2/Properties"
	case strings.ContainsRune(s, '#'):
		return "", nil, "path must not have a fragment (#)"
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return "", nil, "path must not contain spaces or control characters; escape them"
	}
	path, rawQuery, _ := strings.Cut(s, "?")
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	if _, err := url.ParseRequestURI(path); err != nil {
		return "", nil, "path is not a valid URL path"
	}
	for _, seg := range strings.Split(path, "/") {
		if u, err := url.PathUnescape(seg); err != nil || u == "." || u == ".." {
			return "", nil, "path must not contain . or .. segments or bad escapes"
		}
	}
	if !versioned(path) {
		path = "/v2" + path
	}
	if rawQuery != "" {
		v, err := url.ParseQuery(rawQuery)
		if err != nil {
			return "", nil, "path has an unreadable query: " + err.Error()
		}
		query = v
	}
	return path, query, ""
}

// versioned reports whether the path's first segment is a version, v and
// digits, as in /v2/.
func versioned(path string) bool {
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if len(seg) < 2 || (seg[0] != 'v' && seg[0] != 'V') {
		return false
	}
	for _, r := range seg[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// passwordsIn returns the string values of the JSON object fields whose
// name contains "password" (any case), at any depth: the secrets a raw
// body carries.
func passwordsIn(b []byte) []string {
	// UseNumber: a number beyond a float64 must not stop the walk and leave
	// a password unredacted.
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				if s, ok := e.(string); ok && strings.Contains(strings.ToLower(k), "password") {
					out = append(out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// rawAnswer is Do's decoder.
type rawAnswer struct{ out any }

func (a *rawAnswer) decodeBody(b []byte) error {
	// Only the enveloped form counts as a refusal: a resource may have an
	// ErrorCode field of its own (a failed message has one).
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		var w struct{ ResponseStatus *wireStatus }
		if json.Unmarshal(t, &w) == nil && w.ResponseStatus != nil && w.ResponseStatus.ErrorCode != "" {
			return &refusal{*w.ResponseStatus}
		}
	}
	switch o := a.out.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*o = append(json.RawMessage(nil), b...) // b's buffer is reused
		return nil
	case *[]byte:
		*o = append([]byte(nil), b...)
		return nil
	}
	return json.Unmarshal(b, a.out)
}
