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
