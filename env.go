package telco

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// The environment variables NewClientFromEnv reads.
const (
	EnvAccountSid        = "TELCO_ACCOUNT_SID"
	EnvToken             = "TELCO_TOKEN"
	EnvBaseURL           = "TELCO_BASE_URL"
	EnvAllowInsecureHTTP = "TELCO_ALLOW_INSECURE_HTTP"
)

// NewClientFromEnv is NewClient with its settings read from the
// environment, as the telco CLI and the examples read them:
// TELCO_ACCOUNT_SID and TELCO_TOKEN (both required), TELCO_BASE_URL
// (WithBaseURL; unset or empty for the public service) and
// TELCO_ALLOW_INSECURE_HTTP (1 or true for WithInsecureHTTP, 0, false or
// empty for none). opts are applied after those, so an explicit option
// wins: NewClientFromEnv(telco.WithBaseURL(u)) ignores TELCO_BASE_URL. So a
// program that builds its Client this way runs unchanged against `telco
// mock` once the mock's variables are exported (`telco mock --env` prints
// them). The error names the variable at fault, never a value of
// TELCO_TOKEN.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	return newClientFromEnv(os.Getenv, opts...)
}

func newClientFromEnv(getenv func(string) string, opts ...Option) (*Client, error) {
	sid, token := strings.TrimSpace(getenv(EnvAccountSid)), getenv(EnvToken)
	var missing []string
	if sid == "" {
		missing = append(missing, EnvAccountSid)
	}
	if token == "" {
		missing = append(missing, EnvToken)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("telco: NewClientFromEnv: %s not set", strings.Join(missing, " and "))
	}
	var env []Option
	if u := strings.TrimSpace(getenv(EnvBaseURL)); u != "" {
		env = append(env, WithBaseURL(u))
	}
	switch v := strings.ToLower(strings.TrimSpace(getenv(EnvAllowInsecureHTTP))); v {
	case "", "0", "false":
	case "1", "true":
		env = append(env, WithInsecureHTTP())
	default:
		return nil, fmt.Errorf("telco: NewClientFromEnv: %s must be 1 or 0 (true or false), not %q", EnvAllowInsecureHTTP, v)
	}
	c, err := NewClient(sid, token, append(env, opts...)...)
	if err != nil {
		msg := strings.Replace(err.Error(), "telco: NewClient:", "telco: NewClientFromEnv:", 1)
		// The option the environment sets is its variable.
		msg = strings.Replace(msg, "WithInsecureHTTP for a mock", EnvAllowInsecureHTTP+"=1 for a mock", 1)
		if u := getenv(EnvBaseURL); u != "" {
			msg += " (" + EnvBaseURL + " is set)"
		}
		return nil, errors.New(msg)
	}
	return c, nil
}
