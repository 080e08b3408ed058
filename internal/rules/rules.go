// Package rules holds the input rules of the service's interface document
// that the telco package and its fake, telcotest, both apply: one function
// per rule, written once, so that what the SDK refuses and what the fake
// refuses cannot drift apart. It is internal so that the rules stay
// implementation details rather than public API; users reach them through
// the Validate methods of the params types.
//
// Predicates (IsE164, IsSenderID, ...) say whether a value is acceptable.
// Functions named ...Problem say what is wrong, as a message that never
// repeats the value (passwords must not leak), or "" when nothing is.
package rules

import (
	"net/mail"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The service's error codes for broken input rules, as the interface
// document names them (PARAMETER_INVALID where it names none). They equal
// the telco package's CodeParameterRequired, CodeInvalidPhoneNumberFormat
// and CodeParameterInvalid; a test there keeps them equal.
const (
	CodeParameterRequired        = "PARAMETER_REQUIRED"
	CodeInvalidPhoneNumberFormat = "INVALID_PHONENUMBER_FORMAT"
	CodeParameterInvalid         = "PARAMETER_INVALID"
)

// IsE164 reports whether s is an E.164 number written with its leading +:
// a + and 7 to 15 digits, the first not 0.
func IsE164(s string) bool {
	return len(s) > 1 && s[0] == '+' && IsE164Digits(s[1:])
}

// IsE164Digits is IsE164 without the +, the form number paths use.
func IsE164Digits(s string) bool {
	if len(s) < 7 || len(s) > 15 || s[0] == '0' {
		return false
	}
	return allDigits(s)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IsSenderID reports whether s is an alphanumeric sender ID: 1 to 11 of
// A-Z, a-z, 0-9 and space, at least one of them a letter.
func IsSenderID(s string) bool {
	if len(s) < 1 || len(s) > 11 {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case isASCIILetter(b):
			letter = true
		case b >= '0' && b <= '9', b == ' ':
		default:
			return false
		}
	}
	return letter
}

// LooksLikeNumber reports whether s is made of digits, spaces, + and the
// punctuation of written phone numbers: what someone meant as a number, so
// that a bad one is reported as a number format problem.
func LooksLikeNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9', b == '+', b == ' ', b == '-', b == '(', b == ')':
		default:
			return false
		}
	}
	return s != ""
}

// IsEmail reports whether s is a bare address (no display name) with a
// local part and a dotted domain.
func IsEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	dom := s[at+1:]
	return at > 0 && strings.Contains(dom, ".") && !strings.HasPrefix(dom, ".") &&
		!strings.HasSuffix(dom, ".") && !strings.ContainsAny(s, " \t")
}

// IsWebhookMethod accepts GET and POST in any case: the service documents
// upper case and its own SDKs send "Get"/"Post".
func IsWebhookMethod(s string) bool {
	return strings.EqualFold(s, "GET") || strings.EqualFold(s, "POST")
}

// IsHTTPURL reports whether s is an absolute http or https URL with a host.
func IsHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// IsCountryCode reports whether s is an ISO 3166 letter code: two ASCII
// letters, or three. The document gives two-letter codes as its example
// ("e.g. two-letter") without ruling out the others; the service answers
// COUNTRY_NOT_FOUND for a code it does not know.
func IsCountryCode(s string) bool {
	if len(s) != 2 && len(s) != 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return true
}

func isASCIILetter(b byte) bool { return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' }

// IsUUID reports whether s has the 8-4-4-4-12 hexadecimal form, in either
// case.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// LoginPasswordSpecials are the special characters an online login
// password must draw one of.
const LoginPasswordSpecials = "!@#$%^&*()_+"

// LoginPasswordProblem says what an online login password lacks: at least
// 12 characters with a-z, A-Z, 0-9 and one of LoginPasswordSpecials.
func LoginPasswordProblem(pw string) string {
	var lower, upper, digit, special bool
	for _, r := range pw {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune(LoginPasswordSpecials, r):
			special = true
		}
	}
	if utf8.RuneCountInString(pw) < 12 || !lower || !upper || !digit || !special {
		return "Password must have at least 12 characters with a lower-case letter, an upper-case letter, a digit and one of " + LoginPasswordSpecials
	}
	return ""
}

// SIPPasswordProblem says what a SIP trunk password lacks: at least 10
// characters with a lower-case letter, an upper-case letter, a digit and a
// special character (anything else but a space), and no character three
// times in a row.
func SIPPasswordProblem(pw string) string {
	var lower, upper, digit, special bool
	var prev rune
	run := 0
	for _, r := range pw {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		case !unicode.IsSpace(r) && !unicode.IsLetter(r):
			special = true
		}
		if r == prev {
			run++
		} else {
			prev, run = r, 1
		}
		if run > 2 {
			return "Password must not have more than 2 identical characters in a row"
		}
	}
	if utf8.RuneCountInString(pw) < 10 || !lower || !upper || !digit || !special {
		return "Password must have at least 10 characters with a lower-case letter, an upper-case letter, a digit and a special character"
	}
	return ""
}

// nonPublicIPv4 are the ranges a SIP trunk may not name: this network,
// private, CGNAT, loopback, link-local, IETF protocol assignments,
// documentation, 6to4 relay, benchmarking, multicast, reserved and the
// broadcast address.
var nonPublicIPv4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// SIPCIDR parses a SIP trunk address: an IPv4 CIDR of /24 to /32, or a bare
// IPv4 address (taken as /32), public only. It returns the form to send and
// what is wrong, if anything, as the end of a sentence about the address
// ("must be ...").
func SIPCIDR(s string) (cidr, problem string) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return s, "must be an IPv4 CIDR such as 8.8.8.0/24"
		}
		s += "/32"
	}
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() {
		return s, "must be an IPv4 CIDR such as 8.8.8.0/24"
	}
	if p.Bits() < 24 {
		return s, "must be /24 or smaller (up to /32 for a single address)"
	}
	for _, r := range nonPublicIPv4 {
		if r.Overlaps(p) {
			return s, "must be a public address; " + r.String() + " is not"
		}
	}
	return s, ""
}

// AUCallerIDProblem says why s cannot be a SIP trunk's default caller ID,
// with the service's code: it must be an Australian E.164 number (+61)
// that is neither shared-rate (13, 1300) nor toll-free (1800, and 1802,
// which Australia's numbering plan also gives to toll-free services). Both
// are "" when s can be.
func AUCallerIDProblem(s string) (code, msg string) {
	switch {
	case !IsE164(s):
		return CodeInvalidPhoneNumberFormat, "DefaultCallerId must be an E.164 number with a leading +, e.g. +61299999999"
	case !strings.HasPrefix(s, "+61") || strings.HasPrefix(s, "+610"):
		return CodeParameterInvalid, "DefaultCallerId must be an Australian number (+61)"
	case strings.HasPrefix(s, "+6113"):
		return CodeParameterInvalid, "DefaultCallerId must not be a shared-rate (13, 1300) number"
	case strings.HasPrefix(s, "+611800"), strings.HasPrefix(s, "+611802"):
		return CodeParameterInvalid, "DefaultCallerId must not be a toll-free (1800, 1802) number"
	}
	return "", ""
}

// AUAnsweringPointProblem says why s cannot be an Australian answering
// point, the number a number block's calls are routed to: it must be an
// Australian number, +61 and 9 digits in E.164 (the + may be left out) or
// 0 and 9 digits in national form. It is "" when s can be.
func AUAnsweringPointProblem(s string) string {
	digits := strings.TrimPrefix(s, "+")
	switch {
	case strings.HasPrefix(digits, "61") && len(digits) == 11 && allDigits(digits) && digits[2] != '0':
		return ""
	case !strings.HasPrefix(s, "+") && len(s) == 10 && s[0] == '0' && s[1] != '0' && allDigits(s):
		return ""
	}
	return "must be an Australian number: +61 and 9 digits, or 0 and 9 digits, e.g. +61299999999 or 0299999999"
}

// IsLookupNumber accepts what number lookup takes: an E.164 number with +,
// or a number in local form (3 to 15 digits, possibly with a leading 0).
func IsLookupNumber(s string) bool {
	if strings.HasPrefix(s, "+") {
		return IsE164(s)
	}
	return len(s) >= 3 && len(s) <= 15 && allDigits(s)
}

// LookupNumbers checks the numbers of a lookup (operation 9): at least one,
// each an IsLookupNumber. It returns one problem per broken rule, each made
// by problem from the service's code, the wire field name and a message,
// so that the SDK and the fake each build their own error type; nil when
// the numbers are sound.
func LookupNumbers[P any](numbers []string, problem func(code, field, msg string) P) []P {
	var out []P
	if len(numbers) == 0 {
		out = append(out, problem(CodeParameterRequired, "Numbers", "Numbers needs at least one number"))
	}
	for i, n := range numbers {
		if !IsLookupNumber(n) {
			out = append(out, problem(CodeInvalidPhoneNumberFormat, "Numbers["+strconv.Itoa(i)+"]",
				strconv.Quote(n)+" is neither a number in local form (digits) nor E.164 with a leading +"))
		}
	}
	return out
}
