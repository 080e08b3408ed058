package telco

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClientGuards(t *testing.T) {
	cases := []struct {
		name       string
		sid, token string
		base       string
		why        string
	}{
		{"empty sid", "", testToken, testBase, "account SID"},
		{"blank sid", "  ", testToken, testBase, "account SID"},
		{"empty token", testSid, "", testBase, "token"},
		{"relative base", testSid, testToken, "/v2", "absolute"},
		{"no scheme", testSid, testToken, "api.telco.test", "absolute"},
		{"ftp", testSid, testToken, "ftp://api.telco.test", "absolute"},
		{"plain http to a public host", testSid, testToken, "http://api.telco.test", "plain http"},
		{"plain http to a private address", testSid, testToken, "http://10.0.0.1:8080", "plain http"},
		{"credentials in the URL", testSid, testToken, "https://u:p@api.telco.test", "credentials"},
		{"query in the URL", testSid, testToken, "https://api.telco.test/?x=1", "query"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(tc.sid, tc.token, WithBaseURL(tc.base))
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tc.why)
			assert.NotContains(t, err.Error(), testToken)
		})
	}
}

func TestNewClientAcceptsLoopbackHTTP(t *testing.T) {
	for _, base := range []string{"http://127.0.0.1:8080", "http://localhost:9", "http://[::1]:80/prefix", "http://127.9.9.9"} {
		c, err := NewClient(testSid, testToken, WithBaseURL(base))
		require.NoError(t, err, base)
		assert.Equal(t, strings.TrimRight(base, "/"), c.BaseURL())
	}
	c, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	assert.Equal(t, DefaultBaseURL, c.BaseURL())
}

func TestNewClientRejectsBadRetryPolicy(t *testing.T) {
	for _, p := range []RetryPolicy{
		{MaxRetries: -1},
		{MinWait: -time.Second},
		{MinWait: time.Minute, MaxWait: time.Second},
	} {
		_, err := NewClient(testSid, testToken, WithRetryPolicy(p))
		assert.Error(t, err, "%+v", p)
	}
	_, err := NewClient(testSid, testToken, WithAttemptTimeout(-time.Second))
	assert.Error(t, err)
}

func TestWithHTTPClientIsUsedAsGiven(t *testing.T) {
	jar := &nullJar{}
	hc := &http.Client{Timeout: 3 * time.Second, Jar: jar}
	c, err := NewClient(testSid, testToken, WithHTTPClient(hc))
	require.NoError(t, err)
	// Used as given, but on a copy that carries the redirect policy.
	assert.Equal(t, hc.Timeout, c.rc.HTTPClient.Timeout)
	assert.Same(t, jar, c.rc.HTTPClient.Jar)
	assert.Same(t, http.DefaultTransport, attemptLayer(t, c).next, "a nil Transport is net/http's default")
	assert.NotNil(t, c.rc.HTTPClient.CheckRedirect)
	assert.Nil(t, hc.CheckRedirect, "the caller's client is not changed")
	assert.Same(t, hc, c.pool, "CloseIdleConnections reaches the caller's client")

	// The caller's transport is wrapped, not replaced, with the attempt
	// timeout given or the default.
	mt := &http.Transport{}
	c, err = NewClient(testSid, testToken, WithHTTPClient(&http.Client{Transport: mt}), WithAttemptTimeout(time.Second))
	require.NoError(t, err)
	at := attemptLayer(t, c)
	assert.Same(t, mt, at.next)
	assert.Equal(t, time.Second, at.d)
	c, err = NewClient(testSid, testToken, WithHTTPClient(&http.Client{Transport: mt}))
	require.NoError(t, err)
	assert.Equal(t, DefaultAttemptTimeout, attemptLayer(t, c).d)
}

// attemptLayer returns the attempt-timeout layer of the transport c hands
// go-retryablehttp, under the layer that hides CloseIdleConnections.
func attemptLayer(t *testing.T, c *Client) attemptTimeoutTransport {
	t.Helper()
	k, ok := c.rc.HTTPClient.Transport.(keepIdleTransport)
	require.True(t, ok, "%T", c.rc.HTTPClient.Transport)
	at, ok := k.rt.(attemptTimeoutTransport)
	require.True(t, ok, "%T", k.rt)
	return at
}

func TestRequestHeadersAndUserAgent(t *testing.T) {
	c, mt := newMockClient(t, WithUserAgent("acme-crm/2.1"))
	got := reply(mt, "GET", "/v2/Properties/"+testProp, 200, fixture(t, "get_property.json"))
	_, err := c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err)
	assertCommonHeaders(t, got.Header)
	assert.True(t, strings.HasSuffix(got.Header.Get("User-Agent"), " acme-crm/2.1"), got.Header.Get("User-Agent"))
	assert.Empty(t, got.Header.Get("Content-Type"), "a GET has no body")
	assert.Empty(t, got.Body)
}

func TestBaseURLPrefixIsKept(t *testing.T) {
	c, mt := newMockClient(t, WithBaseURL(testBase+"/gateway/"))
	got := reply(mt, "GET", "/gateway/v2/Properties/"+testProp, 200, fixture(t, "get_property.json"))
	_, err := c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err)
	assert.Equal(t, "/gateway/v2/Properties/"+testProp, got.Path)
}

func TestClientNeverPrintsItsToken(t *testing.T) {
	c, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	basic := base64.StdEncoding.EncodeToString([]byte(testSid + ":" + testToken))
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		for _, v := range []any{c, *c} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, testToken, verb)
			assert.NotContains(t, out, basic, verb)
			assert.NotContains(t, out, fmt.Sprintf("%x", testToken), verb)
		}
	}
	assert.Contains(t, fmt.Sprint(c), "[REDACTED]")
}

func TestPtr(t *testing.T) {
	p := Ptr(false)
	require.NotNil(t, p)
	assert.False(t, *p)
	assert.Equal(t, 7, *Ptr(7))
}

func TestEmptyPathIdentifiersAreRefusedEvenWithoutValidation(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	_, err := c.Properties.Get(context.Background(), "")
	requireValidation(t, mt, err, "Properties.Get", "PropertySid", CodeParameterRequired)
	_, err = c.Messages.Get(context.Background(), " ")
	requireValidation(t, mt, err, "Messages.Get", "MessageSid", CodeParameterRequired)
}

type nullJar struct{}

func (*nullJar) SetCookies(*url.URL, []*http.Cookie) {}
func (*nullJar) Cookies(*url.URL) []*http.Cookie     { return nil }

// TestMalformedBaseURLNeverEchoesItsUserInfo: the CLI prints NewClient's
// error for TELCO_BASE_URL, and a base URL may carry a password by
// mistake, however malformed the rest is.
func TestMalformedBaseURLNeverEchoesItsUserInfo(t *testing.T) {
	t.Parallel()
	const user, pw = "ops-user", "Hunter2-Secret"
	for _, form := range []string{
		"ftp://%s:%s@api.telco.test",
		"https://%s:%s@api.telco.test/%%zz",
		"https://%s:%s@api telco.test",
		"%s:%s@api.telco.test",
		"//%s:%s@api.telco.test",
		"https://%s:%s@api.telco.test/?x=1",
		"https://%s:%s#frag@api.telco.test",
		"https://%s:%s/x@api.telco.test",
		"https://%s:%s?q@api.telco.test",
		"http://%s:%s@api.telco.test",
		"https://%s:%s@api.telco.test\x7f",
		"https:%s:%s@api.telco.test",
	} {
		raw := fmt.Sprintf(form, user, pw)
		_, err := NewClient(testSid, testToken, WithBaseURL(raw))
		require.Error(t, err, form)
		msg := err.Error()
		for _, part := range []string{pw, "Hunter2", "Secret", user} {
			assert.False(t, strings.Contains(msg, part), "%s: the error quotes the user info", form)
		}
		assert.Contains(t, msg, "base URL", form)
	}
	// Without user info, the detail is kept.
	_, err := NewClient(testSid, testToken, WithBaseURL("https://api.telco.test/%zz"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"https://api.telco.test/%zz"`)
	assert.Contains(t, err.Error(), "invalid URL escape")
}
