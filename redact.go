package telco

// Secrets and how the SDK keeps them out of sight.
//
// The secrets are the account token and the passwords a request may carry
// (an online login's, a SIP trunk's credentials). They must never appear in
// logs, errors, %v output or test failures. Three mechanisms see to it:
//
//   - Values that hold a secret print it as [REDACTED] whatever the verb:
//     Client, CreateOnlineLoginParams and SipCredentials implement Format
//     (through formatRedacted, which prints a method-less copy whose secret
//     is already replaced) and LogValue, so slog handlers never reach their
//     fields either. The Client keeps its Authorization header only inside
//     a closure (basicAuth), which even reflection-based printing shows as
//     an address.
//   - An error answer may echo the request: a proxy's or a WAF's error page
//     quoting the Authorization header or the body. redact replaces every
//     form of every secret (secretForms: the header, the Basic credentials,
//     the token and the call's own secrets, each raw, JSON-escaped and
//     HTML-escaped) in the body before it is kept in APIError.Body or
//     decoded; redactAPIError then cleans the decoded strings, which may
//     have spelt a secret with escapes the byte search could not see.
//     Codes and field names are the service's identifiers and are left
//     alone.
//   - Secrets shorter than minRedacted are not looked for: they are no real
//     secrets, and would mostly match ordinary words of an error message.
//
// Redaction runs on error answers only; a success body is the service's
// own resource.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

// redacted replaces a secret in printed values.
const redacted = "[REDACTED]"

// formatRedacted prints v, a method-less copy of a value whose secret is
// already replaced, and names it as the public type under %#v.
func formatRedacted(f fmt.State, verb rune, v any, name string) {
	s := fmt.Sprintf(fmt.FormatString(f, verb), v)
	if verb == 'v' && f.Flag('#') {
		s = strings.Replace(s, "telco.plain", name, 1)
	}
	_, _ = io.WriteString(f, s)
}

// secretForms returns every form in which an answer echoing the request
// could show one of its secrets. Longer forms come first, so that the
// whole Authorization value is replaced before its parts.
func (c *Client) secretForms(r *call) []string {
	var forms, plain []string
	if c.auth != nil { // always set by NewClient; tests build bare Clients
		header := c.auth()
		creds := strings.TrimPrefix(header, "Basic ")
		forms = append(forms, header, creds)
		if b, err := base64.StdEncoding.DecodeString(creds); err == nil {
			if _, token, ok := strings.Cut(string(b), ":"); ok {
				plain = append(plain, token)
			}
		}
	}
	plain = append(plain, r.secrets...)
	for _, p := range plain {
		if len(p) < minRedacted {
			continue
		}
		j, _ := json.Marshal(p)
		js := string(j[1 : len(j)-1])
		forms = append(forms, p, js, html.EscapeString(p), html.EscapeString(js))
	}
	return forms
}

// minRedacted is the shortest token or password redact looks for: the
// service's tokens are 32 characters and login passwords at least 12,
// while a test's token "token" would match "Invalid token".
const minRedacted = 8

// redact replaces in an error answer's body every secret the request
// carried.
func (c *Client) redact(r *call, b []byte) []byte {
	for _, f := range c.secretForms(r) {
		if f != "" && bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
		}
	}
	return b
}

// redactAPIError redacts the strings decoded from an error body.
func (c *Client) redactAPIError(r *call, ae *APIError) *APIError {
	forms := c.secretForms(r)
	clean := func(s string) string {
		for _, f := range forms {
			if f != "" && strings.Contains(s, f) {
				s = strings.ReplaceAll(s, f, redacted)
			}
		}
		return s
	}
	ae.Message = clean(ae.Message)
	for i := range ae.Fields {
		ae.Fields[i].Message = clean(ae.Fields[i].Message)
	}
	return ae
}
