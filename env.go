package telco

import (
	"errors"
	"fmt"
	"net"
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
		if fix := schemeSuggestion(u); fix != "" {
			return nil, fmt.Errorf("telco: NewClientFromEnv: %s %q has no scheme: did you mean %s=%s?", EnvBaseURL, u, EnvBaseURL, fix)
		}
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

// schemeSuggestion returns the base URL raw most likely meant when it was
// given without a scheme ("localhost:8080", "api.example.com/prefix"):
// http:// before a loopback host, which the SDK reaches over plain http,
// else https://. It returns "" when raw has a scheme, or does not start
// with something that can be a host (a space, user info: the usual
// message is clearer, and never quotes a password).
func schemeSuggestion(raw string) string {
	raw = strings.TrimSpace(raw)
	if strings.Contains(raw, "://") {
		return ""
	}
	hostport, _, _ := strings.Cut(raw, "/")
	if hostport == "" || strings.Trim(hostport, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:[]") != "" {
		return ""
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return ""
	}
	if isLoopbackHost(host) {
		return "http://" + raw
	}
	return "https://" + raw
}
