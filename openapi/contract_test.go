package openapi_test

// The contract's machinery: load telco.yaml, make its answer schemas
// strict, and a RoundTripper that checks every exchange against it.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/telcosdk/telco"
)

// specFile is the contract under test.
const specFile = "telco.yaml"

// loadContract loads and validates the contract. Each call returns a
// document of its own, so that a test may alter it.
func loadContract(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(specFile)
	if err != nil {
		t.Fatalf("loading %s: %v", specFile, err)
	}
	// Patterns are ECMA-262, as JSON Schema says; some of the contract's
	// are beyond Go's regexp.
	if err := doc.Validate(loader.Context, openapi3.SetRegexCompiler(ecmaRegexp)); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", specFile, err)
	}
	return doc
}

// strict closes every object schema of the contract that lists its
// properties and leaves additionalProperties unsaid. The contract keeps
// answers open, since the service may add fields and the SDK ignores
// unknown ones; the fake and the SDK, though, must use only the names the
// contract declares. Without this a field renamed in an answer (ExternalId
// written as ExternalID) would pass, and the SDK would silently read it as
// empty.
//
// It does not descend into if/then/else: an if that lists one field to
// test must stay open, or it would be false for every object with other
// fields, and its then would never apply.
func strict(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef)
	walkAll := func(refs openapi3.SchemaRefs) {
		for _, r := range refs {
			walk(r)
		}
	}
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			closed := false
			s.AdditionalProperties.Has = &closed
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		walkAll(s.AnyOf)
		walkAll(s.OneOf)
		walkAll(s.AllOf)
	}
	for _, s := range doc.Components.Schemas {
		walk(s)
	}
	for _, r := range doc.Components.Responses {
		for _, mt := range r.Value.Content {
			walk(mt.Schema)
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody != nil {
				for _, mt := range op.RequestBody.Value.Content {
					walk(mt.Schema)
				}
			}
			for _, r := range op.Responses.Map() {
				for _, mt := range r.Value.Content {
					walk(mt.Schema)
				}
			}
		}
	}
}

// ecmaRegexp compiles a pattern in the dialect JSON Schema gives patterns,
// ECMA-262. The contract's password rules need it: lookaheads, and a
// backreference for "no 3 identical characters in a row", which Go's
// regexp (RE2) cannot compile.
func ecmaRegexp(expr string) (openapi3.RegexMatcher, error) {
	re, err := regexp2.Compile(expr, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	// The contract's patterns run in linear time on their short strings;
	// the timeout only keeps a wrong one from hanging the test.
	re.MatchTimeout = 5 * time.Second
	return ecmaMatcher{re}, nil
}

// ecmaMatcher is a regexp2 pattern as kin-openapi's RegexMatcher.
type ecmaMatcher struct{ re *regexp2.Regexp }

// MatchString reports a match; a timed-out match is none.
func (m ecmaMatcher) MatchString(s string) bool {
	ok, err := m.re.MatchString(s)
	return err == nil && ok
}

// ecmaFormat prefixes the name of a format that ecmaPatterns makes of a
// pattern; the pattern follows it.
const ecmaFormat = "ECMA-262 pattern "

// ecmaPatterns prepares doc for kin-openapi, which validates the schemas
// of an OpenAPI 3.1 document with a JSON Schema 2020-12 validator
// (santhosh-tekuri/jsonschema) that compiles patterns with Go's regexp;
// kin-openapi (v0.152.0) gives no way to change that engine: its
// RegexCompiler option reaches only its own OpenAPI 3.0 validator. When a
// schema holds a pattern Go's regexp cannot compile, kin-openapi falls
// back to that validator, which ignores if/then: a SIP trunk's password
// pattern would silently drop the rules on its Type. So each such pattern becomes a format of its own,
// named ecmaFormat and the pattern, which the option returned checks with
// an ECMA-262 engine; the 2020-12 validator then compiles every schema and
// applies every keyword. It alters doc and may be called again on it.
func ecmaPatterns(doc *openapi3.T) (openapi3.SchemaValidationOption, error) {
	formats := map[string]openapi3.StringFormatValidator{}
	err := doc.WalkSchemas(func(ptr string, ref *openapi3.SchemaRef) error {
		s := ref.Value
		if s.Pattern != "" {
			if _, err := regexp.Compile(s.Pattern); err == nil {
				return nil
			}
			if s.Format != "" {
				return fmt.Errorf("%s: a format and a pattern beyond Go's regexp: the pattern has no format to go to", ptr)
			}
			s.Format, s.Pattern = ecmaFormat+s.Pattern, ""
		}
		pattern, ok := strings.CutPrefix(s.Format, ecmaFormat)
		if !ok {
			return nil
		}
		re, err := ecmaRegexp(pattern)
		if err != nil {
			return fmt.Errorf("%s: %w", ptr, err)
		}
		formats[s.Format] = openapi3.NewCallbackValidator(func(v string) error {
			if !re.MatchString(v) {
				return errors.New("no match")
			}
			return nil
		})
		return nil
	})
	return openapi3.WithStringFormatValidators(formats), err
}

// schemaOptions are the options the checker validates a request body
// against doc with: an OpenAPI 3.1 document's JSON Schema 2020-12 (if/then,
// const), as openapi3filter chooses for such a document, and its ECMA-262
// patterns (ecmaPatterns, which alters doc).
func schemaOptions(t testing.TB, doc *openapi3.T) []openapi3.SchemaValidationOption {
	t.Helper()
	ecma, err := ecmaPatterns(doc)
	if err != nil {
		t.Fatalf("preparing the patterns: %v", err)
	}
	opts := []openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.VisitAsRequest(), ecma}
	if doc.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	return opts
}

// exchange is one request the SDK sent and the answer it got, checked.
type exchange struct {
	op     string // the contract's operationId, "" when no route matched
	method string
	path   string
	status int // 0 when no answer came (a dropped connection)
	// request lists how the request breaks the contract, answer how the
	// answer does.
	request, answer []string
}

func (e exchange) String() string {
	return fmt.Sprintf("%s %s -> %d (%s)", e.method, e.path, e.status, e.op)
}

// checker is an http.RoundTripper that sends through next and checks each
// request and each answer against the contract: the route (method and
// path, and that its operationId is the SDK's name for the call), the query (every parameter declared, each value of its schema),
// the body, the status, the content type and the answer's body. It
// records what it saw; the test reads it with take.
type checker struct {
	next    http.RoundTripper
	router  routers.Router
	ecma    openapi3.SchemaValidationOption // the contract's ECMA-262 patterns (ecmaPatterns)
	secrets []string                        // replaced in problems: validator messages quote values
	// host is where the contract's server is, contractHost when nil;
	// plain is set for requests that do not come from the SDK (the admin
	// API's), which carry no telco.CallInfo to check.
	host  *url.URL
	plain bool

	mu   sync.Mutex
	seen []exchange
}

// newChecker checks against doc (made strict by the caller, as a rule).
// The router is built for the contract's own server, and requests are
// matched as if sent there.
func newChecker(t testing.TB, doc *openapi3.T, next http.RoundTripper, secrets ...string) *checker {
	t.Helper()
	ecma, err := ecmaPatterns(doc)
	if err != nil {
		t.Fatalf("preparing the patterns: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("building the router: %v", err)
	}
	return &checker{next: next, router: router, ecma: ecma, secrets: secrets}
}

// contractHost is where the contract's server is; requests are matched as
// if sent there.
var contractHost = func() *url.URL {
	u, _ := url.Parse("https://api.fonedynamics.com")
	return u
}()

func (c *checker) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	ex := exchange{method: req.Method, path: req.URL.EscapedPath()}

	// The request as the contract sees it: at the contract's host.
	host := contractHost
	if c.host != nil {
		host = c.host
	}
	creq := req.Clone(context.Background())
	creq.URL.Scheme, creq.URL.Host, creq.Host = host.Scheme, host.Host, host.Host
	creq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, pathParams, err := c.router.FindRoute(creq)
	var in *openapi3filter.RequestValidationInput
	if err != nil {
		ex.request = append(ex.request, "route: "+err.Error())
	} else {
		ex.op = route.Operation.OperationID
		// The SDK names the operation of every attempt (CallInfo): it must
		// be the one the contract routes the request to.
		if !c.plain {
			if info, ok := telco.CallInfo(req.Context()); !ok {
				ex.request = append(ex.request, "the request carries no telco.CallInfo")
			} else if info.Op != ex.op {
				ex.request = append(ex.request, fmt.Sprintf("the SDK calls it %s, the contract routes it to %s", info.Op, ex.op))
			}
		}
		// SkipSettingDefaults: the request is checked as sent, not with
		// the contract's defaults filled in.
		in = &openapi3filter.RequestValidationInput{Request: creq, PathParams: pathParams, Route: route,
			Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: basicAuth, SkipSettingDefaults: true,
				SchemaValidationOptions: []openapi3.SchemaValidationOption{c.ecma}}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			ex.request = append(ex.request, err.Error())
		}
		ex.request = append(ex.request, undeclaredQuery(route, req.URL.Query())...)
	}

	resp, rerr := c.next.RoundTrip(req)
	if rerr == nil && in != nil {
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			ex.answer = append(ex.answer, "reading the answer: "+err.Error())
		} else {
			ex.answer = append(ex.answer, checkAnswer(in, resp, body, c.ecma)...)
		}
	}
	if rerr == nil {
		ex.status = resp.StatusCode
	}
	for _, ps := range [][]string{ex.request, ex.answer} {
		for i := range ps {
			ps[i] = c.scrub(ps[i])
		}
	}
	c.mu.Lock()
	c.seen = append(c.seen, ex)
	c.mu.Unlock()
	return resp, rerr
}

// checkAnswer checks an answer to a request that matched a route.
func checkAnswer(in *openapi3filter.RequestValidationInput, resp *http.Response, body []byte, ecma openapi3.SchemaValidationOption) []string {
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{ecma}},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return []string{fmt.Sprintf("answer %d: %v", resp.StatusCode, err)}
	}
	return nil
}

// basicAuth accepts the contract's security scheme when the request
// carries HTTP Basic credentials, both parts given.
func basicAuth(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	user, pass, ok := in.RequestValidationInput.Request.BasicAuth()
	if !ok || user == "" || pass == "" {
		return fmt.Errorf("no HTTP Basic credentials")
	}
	return nil
}

// undeclaredQuery lists query parameters the operation does not declare:
// kin-openapi checks those declared, and would let a misspelt name pass.
func undeclaredQuery(route *routers.Route, q url.Values) []string {
	declared := map[string]bool{}
	for _, ps := range []openapi3.Parameters{route.PathItem.Parameters, route.Operation.Parameters} {
		for _, p := range ps {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared[p.Value.Name] = true
			}
		}
	}
	var out []string
	for k := range q {
		if !declared[k] {
			out = append(out, fmt.Sprintf("query parameter %q is not declared by %s", k, route.Operation.OperationID))
		}
	}
	sort.Strings(out)
	return out
}

// scrub hides the secrets in a validator's message.
func (c *checker) scrub(s string) string {
	for _, sec := range c.secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
	}
	return s
}

// take returns the exchanges seen since the last take.
func (c *checker) take() []exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.seen
	c.seen = nil
	return out
}
