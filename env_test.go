package telco

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestNewClientFromEnv(t *testing.T) {
	t.Parallel()
	c, err := newClientFromEnv(envOf(map[string]string{EnvAccountSid: testSid, EnvToken: testToken,
		EnvBaseURL: "http://127.0.0.1:8080"}))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8080", c.BaseURL())

	c, err = newClientFromEnv(envOf(map[string]string{EnvAccountSid: testSid, EnvToken: testToken}))
	require.NoError(t, err)
	assert.Equal(t, DefaultBaseURL, c.BaseURL(), "no TELCO_BASE_URL: the public service")

	// Explicit options win over the environment.
	c, err = newClientFromEnv(envOf(map[string]string{EnvAccountSid: testSid, EnvToken: testToken,
		EnvBaseURL: "http://127.0.0.1:8080"}), WithBaseURL("http://127.0.0.1:9090"))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9090", c.BaseURL())
}

func TestNewClientFromEnvInsecureHTTP(t *testing.T) {
	t.Parallel()
	base := map[string]string{EnvAccountSid: testSid, EnvToken: testToken, EnvBaseURL: "http://mock:8080"}
	_, err := newClientFromEnv(envOf(base))
	require.Error(t, err, "plain http to a host that is not loopback is refused by default")
	assert.Contains(t, err.Error(), "NewClientFromEnv")
	assert.Contains(t, err.Error(), "TELCO_ALLOW_INSECURE_HTTP=1", "the error names the variable that allows it")
	for _, v := range []string{"1", "true", "TRUE", " 1 "} {
		base[EnvAllowInsecureHTTP] = v
		c, err := newClientFromEnv(envOf(base))
		require.NoError(t, err, v)
		assert.Equal(t, "http://mock:8080", c.BaseURL())
	}
	base[EnvAllowInsecureHTTP] = "0"
	_, err = newClientFromEnv(envOf(base))
	assert.Error(t, err)
	base[EnvAllowInsecureHTTP] = "yes please"
	_, err = newClientFromEnv(envOf(base))
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvAllowInsecureHTTP)
}

func TestNewClientFromEnvMissing(t *testing.T) {
	t.Parallel()
	_, err := newClientFromEnv(envOf(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TELCO_ACCOUNT_SID and TELCO_TOKEN not set")
	_, err = newClientFromEnv(envOf(map[string]string{EnvAccountSid: testSid}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TELCO_TOKEN not set")
	assert.NotContains(t, err.Error(), "TELCO_ACCOUNT_SID")
	// A bad base URL names the variable, never the token.
	_, err = newClientFromEnv(envOf(map[string]string{EnvAccountSid: testSid, EnvToken: "s3cret-token-value", EnvBaseURL: "not a url"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvBaseURL)
	assert.False(t, strings.Contains(err.Error(), "s3cret-token-value"))
}

// NewClientFromEnv reads the process's environment.
func TestNewClientFromEnvReadsTheProcessEnvironment(t *testing.T) {
	t.Setenv(EnvAccountSid, testSid)
	t.Setenv(EnvToken, testToken)
	t.Setenv(EnvBaseURL, "http://127.0.0.1:1")
	t.Setenv(EnvAllowInsecureHTTP, "")
	c, err := NewClientFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:1", c.BaseURL())
}

// Issue 36: a base URL without a scheme names TELCO_BASE_URL and the
// scheme to add, instead of url.Parse's words ("first path segment in URL
// cannot contain colon"); NewClient's WithBaseURL says the same in its
// own terms.
func TestBaseURLWithoutAScheme(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"localhost:8080":      "http://localhost:8080",
		"127.0.0.1:8080":      "http://127.0.0.1:8080",
		"[::1]:8080":          "http://[::1]:8080",
		"api.example.com":     "https://api.example.com",
		"api.example.com/v2/": "https://api.example.com/v2/",
		"telco-mock:8443":     "https://telco-mock:8443",
		" localhost:8080 ":    "http://localhost:8080",
	} {
		_, err := newClientFromEnv(envOf(map[string]string{EnvAccountSid: testSid, EnvToken: "s3cret-token-value", EnvBaseURL: raw}))
		require.Error(t, err, raw)
		msg := err.Error()
		assert.Contains(t, msg, "telco: NewClientFromEnv: "+EnvBaseURL, raw)
		assert.Contains(t, msg, "has no scheme", raw)
		assert.Contains(t, msg, want, "%q suggests its scheme", raw)
		assert.NotContains(t, msg, "first path segment", raw)
		assert.NotContains(t, msg, "s3cret-token-value", raw)

		_, err = NewClient(testSid, testToken, WithBaseURL(raw))
		require.Error(t, err, raw)
		assert.Contains(t, err.Error(), "telco: NewClient: base URL", raw)
		assert.Contains(t, err.Error(), "has no scheme", raw)
		assert.Contains(t, err.Error(), want, raw)
	}
	// Credentials in a base URL without a scheme are not echoed.
	_, err := newClientFromEnv(envOf(map[string]string{EnvAccountSid: testSid, EnvToken: testToken, EnvBaseURL: "user:pa55word@api.example.com"}))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "pa55word")
	assert.Contains(t, err.Error(), EnvBaseURL)
	// What is not a host at all keeps the general message.
	_, err = newClientFromEnv(envOf(map[string]string{EnvAccountSid: testSid, EnvToken: testToken, EnvBaseURL: "not a url"}))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "has no scheme")
}
