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
//     echo of every secret (secretForms: the header, the Basic credentials
//     with and without their '=' padding, the token and the call's own
//     secrets, each as sent, JSON-escaped and HTML-escaped) in the body
//     before it is kept in APIError.Body or decoded. Each form is looked
//     for through escapes (echoAt): any character of it may appear as a
//     JSON or JavaScript escape (\", \/, \u0041), an HTML entity (&lt;,
//     &#65;, &#x41;) or URL encoding (%41, '+' for a space), mixed freely,
//     since an echo may have gone through any of them; the escaped forms
//     catch an escape of an escape (&#34; for the \" of a JSON body).
//     redactAPIError then cleans every string decoded from the answer,
//     codes and field names included, which may spell a secret with
//     escapes the byte search could not see through; a refusal that came
//     with a 2xx status goes through it too, so that it is redacted as the
//     same answer with a 4xx is.
//   - Secrets shorter than minRedacted are not looked for: they are no real
//     secrets, and would mostly match ordinary words of an error message.
//
// Redaction runs on error answers only, a refusal sent with a 2xx status
// included; a success body is the service's own resource.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
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
// could show one of its secrets; echoAt finds each through escapes. Longer
// forms come first, so that the whole Authorization value is replaced
// before its parts.
func (c *Client) secretForms(r *call) []string {
	var forms, plain []string
	if c.auth != nil { // always set by NewClient; tests build bare Clients
		header := c.auth()
		creds := strings.TrimPrefix(header, "Basic ")
		forms = append(forms, header, creds)
		// Without its padding the value still decodes to sid:token.
		if bare := strings.TrimRight(creds, "="); bare != creds {
			forms = append(forms, bare)
		}
		if b, err := base64.StdEncoding.DecodeString(creds); err == nil {
			if _, token, ok := strings.Cut(string(b), ":"); ok {
				plain = append(plain, token)
			}
		}
	}
	plain = append(plain, r.secrets...)
	for _, p := range plain {
		if len(p) >= minRedacted {
			forms = appendForms(forms, p)
		}
	}
	return forms
}

// appendForms appends p as sent, JSON-escaped and HTML-escaped, each once.
// echoAt sees through one layer of escapes more, so that together they
// cover an escape of an escape: &#34; for the \" of a JSON body.
func appendForms(forms []string, p string) []string {
	j, _ := json.Marshal(p)
	forms = append(forms, p)
	for _, f := range []string{string(j[1 : len(j)-1]), html.EscapeString(p)} {
		if f != p {
			forms = append(forms, f)
		}
	}
	return forms
}

// minRedacted is the shortest token or password redact looks for: the
// service's tokens are 32 characters and login passwords at least 12,
// while a test's token "token" would match "Invalid token".
const minRedacted = 8

// redact replaces in an error answer's body every echo of a secret the
// request carried.
func (c *Client) redact(r *call, b []byte) []byte {
	return redactForms(c.secretForms(r), b)
}

// redactAPIError redacts the strings decoded from an error body, codes
// and field names included: one decoded layer fewer than the body, they
// show an echo the body's search could not see through (a JSON string
// holding JSON-escaped text), and a refusal that came with a 2xx status,
// whose body was not searched, gets here all the same.
func (c *Client) redactAPIError(r *call, ae *APIError) *APIError {
	forms := c.secretForms(r)
	clean := func(s string) string { return string(redactForms(forms, []byte(s))) }
	ae.Code, ae.Message = clean(ae.Code), clean(ae.Message)
	for i := range ae.Fields {
		f := &ae.Fields[i]
		f.Code, f.FieldName, f.Message = clean(f.Code), clean(f.FieldName), clean(f.Message)
	}
	return ae
}

// redactForms replaces in b each echo of each form, one form after the
// other. It returns b itself when nothing matched.
func redactForms(forms []string, b []byte) []byte {
	for _, f := range forms {
		if f != "" {
			b = redactForm(f, b)
		}
	}
	return b
}

// redactForm replaces every echo of f in b (see echoAt).
func redactForm(f string, b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c != f[0] && c != '\\' && c != '&' && c != '%' && c != '+' {
			i++
			continue
		}
		budget := echoBudget
		end := echoAt(b, i, f, &budget)
		if end < 0 {
			i++
			continue
		}
		out = append(append(out, b[last:i]...), redacted...)
		i, last = end, end
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// echoBudget bounds how often echoAt, from one position, follows the
// escape after the character itself failed. Only a body that spells the
// secret both ways at once makes it branch; past the bound it reads
// characters as themselves only, which still finds every plain echo.
const echoBudget = 256

// echoAt returns the end of an echo of f that starts at b[i], or -1. Each
// character of f may appear as itself or as an escape (unescapeAt) that
// stands for it. When both readings fit (a secret holding '&' and a body
// holding "&amp;"), the character itself is tried first, then the escape.
func echoAt(b []byte, i int, f string, budget *int) int {
	for len(f) > 0 {
		if i >= len(b) {
			return -1
		}
		d, dn, n := unescapeAt(b[i:])
		esc := n > 0 && dn <= len(f) && string(d[:dn]) == f[:dn]
		switch {
		case b[i] != f[0] && !esc:
			return -1
		case b[i] != f[0]:
			i, f = i+n, f[dn:]
		case esc && *budget > 0:
			*budget--
			if end := echoAt(b, i+1, f[1:], budget); end >= 0 {
				return end
			}
			i, f = i+n, f[dn:]
		default:
			i, f = i+1, f[1:]
		}
	}
	return i
}

// unescapeAt decodes the escape at the start of b: the bytes it stands
// for, d[:dn], and its length n, or n == 0 when b starts with none. It
// knows JSON and JavaScript escapes (\" \\ \/ \' \b \f \n \r \t, \uXXXX
// with surrogate pairs, \xHH), HTML's named entities for the characters
// HTML escapes and numeric ones (&#65; &#x41;), and URL encoding (%41,
// '+'). It does not allocate: error pages are full of '+' and '&'.
func unescapeAt(b []byte) (d [utf8.UTFMax]byte, dn, n int) {
	one := func(c byte, n int) ([utf8.UTFMax]byte, int, int) { return [utf8.UTFMax]byte{c}, 1, n }
	char := func(r rune, n int) ([utf8.UTFMax]byte, int, int) {
		var d [utf8.UTFMax]byte
		return d, utf8.EncodeRune(d[:], r), n
	}
	if len(b) == 0 {
		return d, 0, 0
	}
	switch b[0] {
	case '+':
		return one(' ', 1)
	case '%':
		if v, ok := hexValue(b[1:], 2); ok {
			return one(byte(v), 3)
		}
	case '\\':
		if len(b) < 2 {
			break
		}
		switch c := b[1]; c {
		case '"', '\\', '/', '\'':
			return one(c, 2)
		case 'b':
			return one('\b', 2)
		case 'f':
			return one('\f', 2)
		case 'n':
			return one('\n', 2)
		case 'r':
			return one('\r', 2)
		case 't':
			return one('\t', 2)
		case 'x':
			if v, ok := hexValue(b[2:], 2); ok {
				return char(rune(v), 4)
			}
		case 'u':
			v, ok := hexValue(b[2:], 4)
			if !ok {
				break
			}
			if r := rune(v); !utf16.IsSurrogate(r) {
				return char(r, 6)
			}
			if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
				break
			}
			if lo, ok := hexValue(b[8:], 4); ok {
				if r := utf16.DecodeRune(rune(v), rune(lo)); r != utf8.RuneError {
					return char(r, 12)
				}
			}
		}
	case '&':
		if r, n := entityAt(b); n > 0 {
			return char(r, n)
		}
	}
	return d, 0, 0
}

// entityAt decodes the HTML entity at the start of b, which begins with
// '&': the character and the entity's length, or n == 0. The closing ';'
// is required.
func entityAt(b []byte) (r rune, n int) {
	end := bytes.IndexByte(b[:min(len(b), 12)], ';')
	if end < 2 {
		return 0, 0
	}
	name := b[1:end]
	if name[0] != '#' {
		switch string(name) {
		case "lt", "LT":
			return '<', end + 1
		case "gt", "GT":
			return '>', end + 1
		case "amp", "AMP":
			return '&', end + 1
		case "quot", "QUOT":
			return '"', end + 1
		case "apos":
			return '\'', end + 1
		}
		return 0, 0
	}
	digits := name[1:]
	var v uint32
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		digits = digits[1:]
		if len(digits) == 0 || len(digits) > 8 {
			return 0, 0
		}
		var ok bool
		if v, ok = hexValue(digits, len(digits)); !ok {
			return 0, 0
		}
	} else {
		if len(digits) == 0 || len(digits) > 8 {
			return 0, 0
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				return 0, 0
			}
			v = v*10 + uint32(c-'0')
		}
	}
	if v > unicode.MaxRune {
		return 0, 0
	}
	return rune(v), end + 1
}

// hexValue reads exactly n hex digits at the start of b.
func hexValue(b []byte, n int) (uint32, bool) {
	if len(b) < n {
		return 0, false
	}
	var v uint32
	for _, c := range b[:n] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(c)
	}
	return v, true
}
