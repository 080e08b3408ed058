package telco

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
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
	"unicode/utf16"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedactedGoSyntaxNamesThePublicType(t *testing.T) {
	lp := CreateOnlineLoginParams{Email: "a@b.example", Password: "Secret-Passw0rd!"}
	out := fmt.Sprintf("%#v", lp)
	assert.Contains(t, out, "telco.CreateOnlineLoginParams{")
	assert.Contains(t, out, `"[REDACTED]"`)
	assert.NotContains(t, out, "Secret-Passw0rd!")

	sc := SipCredentials{Realm: "r", Password: "Aa1!Aa1!bb"}
	out = fmt.Sprintf("%#v", sc)
	assert.Contains(t, out, "telco.SipCredentials{")
	assert.NotContains(t, out, "Aa1!Aa1!bb")
}

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
	up := UpdateOnlineLoginParams{FirstName: Ptr("A"), Password: loginSecret,
		Permissions: []Permission{{AccountSid: testSid, Scopes: Scopes{ScopeManage}}}}
	ut := UpdateSipTrunkParams{Name: Ptr("PBX"), Credentials: &sc}
	return map[string]any{
		"UpdateOnlineLoginParams":  up,
		"*UpdateOnlineLoginParams": &up,
		"UpdateSipTrunkParams":     ut,
		"*UpdateSipTrunkParams":    &ut,
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

// TestSecretsNeverEncode: json and xml encoding of a value holding a
// password leave the password out.
func TestSecretsNeverEncode(t *testing.T) {
	t.Parallel()
	for name, v := range secretHolders(t) {
		j, _ := json.Marshal(v)
		assertNoSecret(t, string(j), name+" json")
		x, _ := xml.Marshal(v)
		assertNoSecret(t, string(x), name+" xml")
	}
	x, err := xml.Marshal(CreateOnlineLoginParams{Email: "a@example.com", Password: loginSecret})
	require.NoError(t, err)
	assert.Contains(t, string(x), "a@example.com", "the precondition: xml encodes the other fields")
}

// echoEncodings are ways a proxy, a firewall or an application may quote
// a value it echoes, each applied to the whole value.
var echoEncodings = map[string]func(string) string{
	"query escaped": url.QueryEscape,
	"path escaped":  url.PathEscape,
	"every byte percent-encoded": func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, "%%%02x", s[i])
		}
		return b.String()
	},
	"decimal entities": func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#%d;", r)
		}
		return b.String()
	},
	"hex entities": func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#x%x;", r)
		}
		return b.String()
	},
	"upper hex entities, zero-padded": func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#X%04X;", r)
		}
		return b.String()
	},
	"numeric entities for specials": strings.NewReplacer(`&`, "&#38;", `<`, "&#60;", `>`, "&#62;", `"`, "&#34;", `'`, "&#039;").Replace,
	"JSON with escaped slashes": func(s string) string {
		j, _ := json.Marshal(s)
		return strings.ReplaceAll(string(j[1:len(j)-1]), "/", `\/`)
	},
	"JSON, every character escaped": func(s string) string {
		var b strings.Builder
		for _, u := range utf16.Encode([]rune(s)) {
			fmt.Fprintf(&b, `\u%04X`, u)
		}
		return b.String()
	},
	"HTML of JSON": func(s string) string {
		j, _ := json.Marshal(s)
		return html.EscapeString(string(j[1 : len(j)-1]))
	},
	"query escape of JSON": func(s string) string {
		j, _ := json.Marshal(s)
		return url.QueryEscape(string(j[1 : len(j)-1]))
	},
}

// TestEscapedEchoesAreRedacted: an echo of the password, the token or the
// Basic credentials is redacted however it was escaped, and a refusal that
// comes with 200 is redacted as the same answer with 400 is: codes and
// field names included.
func TestEscapedEchoesAreRedacted(t *testing.T) {
	t.Parallel()
	const pw = `Se/cr3t "pa<s>s"&'w+rd!€`
	creds := base64.StdEncoding.EncodeToString([]byte(testSid + ":" + testToken))
	require.True(t, strings.HasSuffix(creds, "="), "the precondition: the credentials are padded")
	bare := strings.TrimRight(creds, "=")
	for encName, enc := range echoEncodings {
		for _, status := range []int{http.StatusBadRequest, http.StatusOK} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var sent struct{ Password string }
				_ = json.NewDecoder(r.Body).Decode(&sent)
				auth := strings.TrimRight(r.Header.Get("Authorization"), "=")
				echo := enc(sent.Password) + " " + enc(testToken) + " " + enc(auth) + " " + bare
				s := string(must(json.Marshal(echo)))
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"ResponseStatus":{"ErrorCode":%s,"Message":%s,"Errors":[{"ErrorCode":%s,"FieldName":%s,"Message":%s}]}}`,
					s, s, s, s, s)
			}))
			c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithClientValidation(false))
			require.NoError(t, err)
			_, err = c.OnlineLogins.Create(context.Background(), testProp, &CreateOnlineLoginParams{
				Email: "a@example.com", Password: pw, FirstName: "A", LastName: "B", Scopes: Scopes{ScopeManageSms}})
			srv.Close()

			what := fmt.Sprintf("%s, status %d", encName, status)
			var ae *APIError
			require.ErrorAs(t, err, &ae, what)
			js, jerr := json.Marshal(ae)
			require.NoError(t, jerr)
			out := fmt.Sprintf("%v|%+v|%#v|%s|%s|%s|%+v|%s", err, err, err, ae.Body, ae.Code, ae.Message, ae.Fields, js)
			for _, leak := range []string{pw, enc(pw), testToken, enc(testToken), creds, bare, enc(bare)} {
				assert.False(t, strings.Contains(out, leak), "%s: an echo is kept", what)
			}
			// Booleans, so that a failure prints no secret.
			assert.True(t, strings.Count(ae.Message, "[REDACTED]") == 4, "%s: not every echo is redacted", what)
			require.Len(t, ae.Fields, 1, what)
			f := ae.Fields[0]
			assert.True(t, ae.Code == ae.Message && f.Code == ae.Message && f.FieldName == ae.Message && f.Message == ae.Message,
				"%s: the code, the field's code and name are redacted as the message is", what)
		}
	}
}

// Escapes that happen to lie in an error message without standing for a
// secret are left as they are, and a secret spelt with an escape in
// between ordinary text is still found.
func TestRedactFormKeepsOtherText(t *testing.T) {
	t.Parallel()
	const secret = "Hunter2&Secret"
	for in, want := range map[string]string{
		"50% off &amp; 100%zz \\q \\u12":  "50% off &amp; 100%zz \\q \\u12",
		"a Hunter2&amp;Secret b":          "a [REDACTED] b",
		"Hunter2&Secret&Hunter2%26Secret": "[REDACTED]&[REDACTED]",
		"Hunter2&Secre":                   "Hunter2&Secre",
		"Hunter2&amp;amp;Secret":          "Hunter2&amp;amp;Secret",
		"H\\u0075nter2\\u0026Secret.":     "[REDACTED].",
		"Hunter2&#x26Secret":              "Hunter2&#x26Secret", // no ';': not an entity
	} {
		assert.Equal(t, want, string(redactForm(secret, []byte(in))), in)
	}
	// A secret that holds an entity is found as it is, too.
	assert.Equal(t, "x [REDACTED] y", string(redactForm("pa&amp;ss-word", []byte("x pa&amp;ss-word y"))))
	assert.Equal(t, "x [REDACTED] y", string(redactForm("pa&amp;ss-word", []byte("x pa&amp;amp;ss-word y"))))
}

// TestBatchRejectionsEchoingTheRequestKeepNoSecret: a batch answers 200
// with one element per message, some of them rejections. Those are error
// answers too and are redacted like one.
func TestBatchRejectionsEchoingTheRequestKeepNoSecret(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := string(must(json.Marshal(r.Header.Get("Authorization"))))
		_, _ = fmt.Fprintf(w, `[{"MessageSid":"MG1","Text":"ok"},{"ErrorCode":%s,"Message":%s,"Errors":[{"FieldName":%s}]}]`,
			auth, auth, auth)
	}))
	defer srv.Close()
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL))
	require.NoError(t, err)
	res, err := c.Messages.SendBatch(context.Background(), testProp, []SendMessageParams{
		{To: "+61400000001", Text: "a"}, {To: "+61400000002", Text: "b"}})
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.NotNil(t, res[1].Err)
	out := fmt.Sprintf("%v|%+v|%s|%s|%+v", res[1].Err, res[1].Err, res[1].Err.Code, res[1].Err.Message, res[1].Err.Fields)
	assertNoSecret(t, out, "a batch rejection")
	assert.True(t, strings.Contains(out, "[REDACTED]"), "nothing was redacted")
}

// TestPrintingAClientShowsNoOtherAccountsRecords: fmt walks a Client held
// in an unexported field without its Format method, and for a verb such as
// %s it dereferences the pointers it meets. The process ledger holds every
// Client's records, so it must stay out of that walk: printing one Client
// shows nothing of another account's sends, and reads nothing that another
// goroutine may be writing (the race detector's failure in CI).
func TestPrintingAClientShowsNoOtherAccountsRecords(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	other := srv.client(t, fastReconcile, WithLedger(nil)) // the process ledger
	const id = "another-accounts-external-id"
	_, err := other.Messages.SendOnce(context.Background(), testProp, onceParams(id))
	require.NoError(t, err)

	c, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	holder := struct{ c Client }{*c}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // another goroutine's sends, as in a server
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_, err := other.Messages.SendOnce(context.Background(), testProp, onceParams(fmt.Sprintf("busy-%d", i)))
			assert.NoError(t, err)
		}
	}()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		out := fmt.Sprintf(verb, holder)
		assert.NotContains(t, out, id, "%s shows another account's ExternalId", verb)
	}
	close(stop)
	<-done
}
