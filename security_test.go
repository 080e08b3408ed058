package telco

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	loginSecret = "Login-Secret-0rchid!"
	sipSecret   = "Sip-Secret-M4rigold!"
)

// secretHolders are values that carry a secret, alone and nested.
func secretHolders(t *testing.T) map[string]any {
	c, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	lp := CreateOnlineLoginParams{Email: "a@example.com", Password: loginSecret, FirstName: "A", LastName: "B",
		Scopes: Scopes{ScopeManageSms}}
	sc := SipCredentials{Realm: "realm.example.com", Password: sipSecret}
	tp := CreateSipTrunkParams{Name: "PBX", DefaultCallerID: "+61299999999", Type: SipTrunkAuthenticated,
		Credentials: &sc}
	return map[string]any{
		"*Client":                  c,
		"Client":                   *c,
		"CreateOnlineLoginParams":  lp,
		"*CreateOnlineLoginParams": &lp,
		"SipCredentials":           sc,
		"*SipCredentials":          &sc,
		"CreateSipTrunkParams":     tp,
		"*CreateSipTrunkParams":    &tp,
		"unexported fields": struct {
			c  Client
			pc *Client
			l  CreateOnlineLoginParams
		}{*c, c, CreateOnlineLoginParams{Email: "a@example.com"}},
		"nested": struct {
			Login CreateOnlineLoginParams
			Creds SipCredentials
			List  []any
		}{lp, sc, []any{lp, &sc, c}},
	}
}

// secrets are what must never appear: the token, the Basic credentials
// built from it, and the passwords.
func secrets() []string {
	return []string{testToken, base64.StdEncoding.EncodeToString([]byte(testSid + ":" + testToken)),
		loginSecret, sipSecret}
}

func assertNoSecret(t *testing.T, out, what string) {
	t.Helper()
	for _, s := range secrets() {
		// The failure message names the value, never the output, which
		// would print the secret.
		assert.False(t, strings.Contains(out, s), "%s leaks a secret", what)
	}
}

func TestSecretsNeverPrint(t *testing.T) {
	t.Parallel()
	for name, v := range secretHolders(t) {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v"} {
			out := fmt.Sprintf(verb, v)
			assertNoSecret(t, out, name+" "+verb)
			if (verb == "%v" || verb == "%+v" || verb == "%#v") && !strings.Contains(name, "SipTrunk") &&
				name != "unexported fields" { // fmt cannot call methods on unexported fields
				assert.Contains(t, out, "[REDACTED]", "%s %s", name, verb)
			}
		}
		assertNoSecret(t, fmt.Sprint(v), name+" Sprint")
		assertNoSecret(t, fmt.Sprintln(v), name+" Sprintln")
	}
}

func TestSecretsNeverReachSlog(t *testing.T) {
	t.Parallel()
	for _, mk := range []struct {
		name string
		h    func(io.Writer) slog.Handler
	}{
		{"text", func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) }},
		{"json", func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, nil) }},
	} {
		for name, v := range secretHolders(t) {
			var buf bytes.Buffer
			slog.New(mk.h(&buf)).Info("value", "v", v)
			slog.New(mk.h(&buf)).Info("group", slog.Group("g", "v", v))
			out := buf.String()
			assertNoSecret(t, out, mk.name+" "+name)
			if name == "Client" || name == "*Client" || strings.Contains(name, "Login") || strings.HasPrefix(name, "SipCred") ||
				strings.HasPrefix(name, "*SipCred") {
				assert.Contains(t, out, "[REDACTED]", "%s %s", mk.name, name)
			}
		}
	}
}

func TestValidationErrorsNeverEchoPasswords(t *testing.T) {
	t.Parallel()
	const short = "Qz9!"
	err := (&CreateOnlineLoginParams{Email: "a@example.com", Password: short, FirstName: "A", LastName: "B",
		Scopes: Scopes{ScopeManageSms}}).Validate()
	require.Error(t, err)
	assert.False(t, strings.Contains(err.Error(), short), "the login password is echoed")
	err = (&CreateSipTrunkParams{Name: "PBX", DefaultCallerID: "+61299999999", Type: SipTrunkAuthenticated,
		Credentials: &SipCredentials{Realm: "r.example.com", Password: short}}).Validate()
	require.Error(t, err)
	assert.False(t, strings.Contains(err.Error(), short), "the SIP password is echoed")
}

// TestAuthorizationNeverLogged logs every attempt of successful, failed,
// retried and broken calls at Debug, as text and as JSON, and finds
// neither the token nor the Basic credentials nor the header's name.
func TestAuthorizationNeverLogged(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			// Echo the header back in an error body: it must not reach
			// the log through the error either.
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"ResponseStatus":{"ErrorCode":"X","Message":"got %s"}}`, r.Header.Get("Authorization"))
		case 3:
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
		default:
			_, _ = w.Write([]byte(`{"Property":{"PropertySid":"` + testProp + `"}}`))
		}
	}))
	defer srv.Close()
	for _, h := range []func(io.Writer) slog.Handler{
		func(w io.Writer) slog.Handler {
			return slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
		func(w io.Writer) slog.Handler {
			return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
	} {
		n.Store(0)
		var buf bytes.Buffer
		var mu sync.Mutex
		logger := slog.New(h(&lockedWriter{w: &buf, mu: &mu}))
		c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithLogger(logger), WithRetryPolicy(fastRetries))
		require.NoError(t, err)
		ctx := context.Background()
		_, err = c.Properties.Get(ctx, testProp) // 503, then 400 echoing the header
		require.Error(t, err)
		assertNoSecret(t, fmt.Sprintf("%v %+v %#v", err, err, err), "the echoed error")
		var ae *APIError
		require.ErrorAs(t, err, &ae)
		// Compared as a bool: a failure must not print the secret.
		assert.True(t, ae.Message == "got [REDACTED]", "the echoed header is replaced")
		logger.Debug("the call failed", "error", err)
		_, err = c.Properties.Get(ctx, testProp) // a dropped connection, then 200
		require.NoError(t, err)
		logger.Debug("the client itself", "client", c)

		mu.Lock()
		out := buf.String()
		mu.Unlock()
		assert.Contains(t, out, "op=Properties.Get"+"", "records were written") // text form
		assertNoSecret(t, out, "the debug log")
		assert.NotContains(t, strings.ToLower(out), "authorization")
		assert.NotContains(t, out, "Basic ")
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// JSON records say "op":"Properties.Get"; normalise so one assertion
	// fits both handlers.
	return l.w.Write(bytes.ReplaceAll(p, []byte(`"op":"`), []byte(`op=`)))
}

// redirectPair starts a server that redirects every request to target
// with code, and a target that records the Authorization it sees.
func redirectTarget(t *testing.T) (*httptest.Server, *atomic.Int32, *atomic.Value) {
	t.Helper()
	var hits atomic.Int32
	var auth atomic.Value
	auth.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		auth.Store(r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(`{"Property":{"PropertySid":"` + testProp + `"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits, &auth
}

func TestRedirectToAnotherHostCarriesNoCredentials(t *testing.T) {
	t.Parallel()
	target, hits, auth := redirectTarget(t)
	targetURL, err := url.Parse(target.URL)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		code   int
		target string
	}{
		{"302 to another port", http.StatusFound, target.URL},
		{"307 to another port", http.StatusTemporaryRedirect, target.URL},
		{"308 to another port", http.StatusPermanentRedirect, target.URL},
		{"301 to another host name", http.StatusMovedPermanently, "http://localhost:" + targetURL.Port()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var origin atomic.Int32
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				origin.Add(1)
				http.Redirect(w, r, tc.target+r.URL.RequestURI(), tc.code)
			}))
			defer first.Close()
			c, err := NewClient(testSid, testToken, WithBaseURL(first.URL))
			require.NoError(t, err)
			hits.Store(0)

			_, err = c.Properties.Get(context.Background(), testProp)
			var ae *APIError
			require.ErrorAs(t, err, &ae, "the redirect is not followed; its answer is the error")
			assert.Equal(t, tc.code, ae.StatusCode)
			_, err = c.Messages.Send(context.Background(), testProp, &SendMessageParams{To: "+61400000001", Text: "hi"})
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.code, ae.StatusCode)

			assert.EqualValues(t, 2, origin.Load())
			assert.Zero(t, hits.Load(), "the other host saw no request, so neither credentials nor body")
			assert.Equal(t, "", auth.Load())
		})
	}
}

func TestRedirectWithinTheOriginKeepsCredentials(t *testing.T) {
	t.Parallel()
	var auths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/old") {
			http.Redirect(w, r, "/v2/Properties/"+testProp, http.StatusMovedPermanently)
			return
		}
		_, _ = w.Write([]byte(`{"Property":{"PropertySid":"` + testProp + `"}}`))
	}))
	defer srv.Close()
	var userHook atomic.Int32
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithHTTPClient(&http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { userHook.Add(1); return nil },
	}))
	require.NoError(t, err)
	p, err := c.Properties.Get(context.Background(), "old")
	require.NoError(t, err)
	assert.Equal(t, testProp, p.PropertySid)
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(testSid+":"+testToken))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, auths, 2)
	assert.True(t, auths[0] == basic && auths[1] == basic, "same origin: credentials are kept")
	assert.EqualValues(t, 1, userHook.Load(), "the caller's CheckRedirect still decides within the origin")
}

func TestRedirectLoopStops(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	_, err = c.Properties.Get(context.Background(), testProp)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redirects")
	assert.EqualValues(t, 10, n.Load())
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://api.example.com/x", "https://API.example.com:443/y", true},
		{"http://127.0.0.1:80/x", "http://127.0.0.1/y", true},
		{"https://api.example.com/x", "http://api.example.com/x", false}, // a downgrade
		{"https://api.example.com/x", "https://api.example.com:8443/x", false},
		{"https://api.example.com/x", "https://evil.example.com/x", false},
		{"https://api.example.com/x", "https://api.example.com.evil.test/x", false},
	} {
		a, err := url.Parse(tc.a)
		require.NoError(t, err)
		b, err := url.Parse(tc.b)
		require.NoError(t, err)
		assert.Equal(t, tc.want, sameOrigin(a, b), "%s vs %s", tc.a, tc.b)
	}
}

func TestMaxResponseBytes(t *testing.T) {
	t.Parallel()
	body := []byte(`{"Property":{"PropertySid":"` + testProp + `","Name":"` + strings.Repeat("n", 200) + `"}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			_, _ = w.Write([]byte(`{"Message":{"MessageSid":"MG1","Text":"` + strings.Repeat("t", 400) + `"}}`))
			return
		}
		_, _ = w.Write(body)
	}))
	defer srv.Close()

	// At the cap, the body is read.
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithMaxResponseBytes(int64(len(body))))
	require.NoError(t, err)
	_, err = c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err)

	// One byte over, a clear error that keeps the status; not retried.
	c, err = NewClient(testSid, testToken, WithBaseURL(srv.URL), WithMaxResponseBytes(int64(len(body)-1)))
	require.NoError(t, err)
	_, err = c.Properties.Get(context.Background(), testProp)
	require.ErrorIs(t, err, ErrResponseTooLarge)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusOK, ae.StatusCode)
	assert.Contains(t, err.Error(), fmt.Sprint(len(body)-1))
	assert.False(t, errors.Is(err, ErrMaybeSent))

	// A send whose answer is too large did take effect.
	_, err = c.Messages.Send(context.Background(), testProp, &SendMessageParams{To: "+61400000001", Text: "hi"})
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.ErrorIs(t, err, ErrMaybeSent)

	for _, n := range []int64{0, -1} {
		_, err = NewClient(testSid, testToken, WithMaxResponseBytes(n))
		assert.Error(t, err, "%d", n)
	}
	c, err = NewClient(testSid, testToken)
	require.NoError(t, err)
	assert.EqualValues(t, DefaultMaxResponseBytes, c.maxBody)
}

// TestEverySuccessBodyReadIsBounded: an endless success body is read up to
// the cap and no further (error bodies: TestErrorBodyIsBounded's kin in
// errors_test.go).
func TestEverySuccessBodyReadIsBounded(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	body := &countingReader{left: 1 << 40}
	c, mt := newMockClient(t, WithMaxResponseBytes(limit))
	mt.RegisterResponder("GET", testBase+"/v2/Properties/"+testProp, func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: body, Header: http.Header{}}, nil
	})
	_, err := c.Properties.Get(context.Background(), testProp)
	require.ErrorIs(t, err, ErrResponseTooLarge, "an endless body ends")
	assert.LessOrEqual(t, body.n, int64(limit+1), "read %d bytes", body.n)
}

// TestErrorBodiesEchoingTheRequestKeepNoSecret: a proxy or WAF error page
// may echo the request, headers and body. What the client keeps of it
// (APIError.Body and Message) has the token, the Basic credentials, the
// Authorization value and the call's password replaced, in their raw,
// JSON-escaped and HTML-escaped forms.
func TestErrorBodiesEchoingTheRequestKeepNoSecret(t *testing.T) {
	t.Parallel()
	const odd = `Odd<Pass>&"word"1!` // changed by JSON and HTML escaping
	echo := map[string]func(w http.ResponseWriter, r *http.Request, body []byte){
		"HTML page": func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "<html><pre>Authorization: %s\n%s\n%s</pre></html>",
				r.Header.Get("Authorization"), body, html.EscapeString(string(body)))
		},
		"JSON error": func(w http.ResponseWriter, r *http.Request, body []byte) {
			msg, _ := json.Marshal("refused " + r.Header.Get("Authorization") + " " + string(body))
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"ResponseStatus":{"ErrorCode":"X","Message":%s,"Errors":[{"FieldName":"Password","Message":%s}]}}`,
				msg, msg)
		},
	}
	for name, f := range echo {
		for _, pw := range []string{loginSecret, odd} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				f(w, r, body)
			}))
			c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithClientValidation(false))
			require.NoError(t, err)
			_, err1 := c.OnlineLogins.Create(context.Background(), testProp, &CreateOnlineLoginParams{
				Email: "a@example.com", Password: pw, FirstName: "A", LastName: "B", Scopes: Scopes{ScopeManageSms}})
			_, err2 := c.SipTrunks.Create(context.Background(), testProp, &CreateSipTrunkParams{Name: "PBX",
				DefaultCallerID: "+61299999999", Type: SipTrunkAuthenticated,
				Credentials: &SipCredentials{Realm: "r.example.com", Password: pw}})
			srv.Close()
			for i, err := range []error{err1, err2} {
				what := fmt.Sprintf("%s, call %d, password %d", name, i, len(pw))
				var ae *APIError
				require.ErrorAs(t, err, &ae, what)
				js, jerr := json.Marshal(ae)
				require.NoError(t, jerr)
				var fields strings.Builder
				for _, fe := range ae.Fields {
					fields.WriteString(fe.Message)
				}
				out := fmt.Sprintf("%v|%+v|%#v|%s|%s|%s|%s", err, err, err, ae.Body, ae.Message, fields.String(), js)
				assertNoSecret(t, out, what)
				for _, form := range []string{pw, html.EscapeString(pw), strings.Trim(string(must(json.Marshal(pw))), `"`)} {
					assert.False(t, strings.Contains(out, form), "%s: a form of the password is kept", what)
				}
				assert.True(t, strings.Contains(out, "[REDACTED]"), "%s: nothing was redacted", what)
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A short token is no real secret and would match ordinary words: an
// error message that happens to contain it is kept as the service wrote it.
func TestShortTokenLeavesErrorMessagesAlone(t *testing.T) {
	mt := httpmock.NewMockTransport()
	c, err := NewClient(testSid, "token", WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: mt}),
		WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	mt.RegisterResponder(http.MethodGet, testBase+"/v2/Properties/"+testProp, httpmock.NewStringResponder(401,
		`{"ResponseStatus":{"ErrorCode":"UNAUTHORIZED","Message":"Invalid token","Errors":[{"FieldName":"token","Message":"token expired"}]}}`))
	_, err = c.Properties.Get(context.Background(), testProp)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "Invalid token", ae.Message)
	require.Len(t, ae.Fields, 1)
	assert.Equal(t, FieldError{FieldName: "token", Message: "token expired"}, ae.Fields[0])
}
