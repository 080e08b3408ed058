package telco

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/telcosdk/telco/internal/rules"
)

// NormalizeNumber returns a phone number, as a user holds it, in E.164
// with its leading +, the form every operation takes (Messages.Send's To,
// SIP caller IDs; Numbers.Configure and Numbers.Get drop the + themselves):
//
//   - E.164 with or without the + ("+61 412 345 678", "61412345678"), or
//     with the international prefix 00 ("0061412345678");
//   - an Australian number in its local form, a 0 and 9 digits ("0412
//     345 678", "(02) 9999 9999");
//   - the integer of a lookup result (NumberDetail.E164).
//
// Spaces, dots, dashes and parentheses are ignored. Anything else, and a
// number of a length no country uses, is a *ValidationError with the code
// INVALID_PHONENUMBER_FORMAT, whose message quotes the number.
func NormalizeNumber[N ~string | ~int64 | ~int](n N) (string, error) {
	s := fmt.Sprint(n) // the digits of an integer, or the string
	return normalizeNumber(s)
}

func normalizeNumber(raw string) (string, error) {
	var b strings.Builder
	for _, r := range strings.TrimSpace(raw) {
		switch {
		case r >= '0' && r <= '9', r == '+' && b.Len() == 0:
			b.WriteRune(r)
		case r == ' ' || r == '.' || r == '-' || r == '(' || r == ')' || r == '\u00a0':
		default:
			return "", badNumber(raw)
		}
	}
	s := b.String()
	switch {
	case strings.HasPrefix(s, "+"):
	case strings.HasPrefix(s, "00"):
		s = "+" + s[2:]
	case len(s) == 10 && s[0] == '0':
		s = "+61" + s[1:] // Australian local form
	default:
		s = "+" + s
	}
	if !rules.IsE164(s) {
		return "", badNumber(raw)
	}
	return s, nil
}

func badNumber(raw string) error {
	return &ValidationError{Op: "NormalizeNumber", Fields: []FieldError{{Code: CodeInvalidPhoneNumberFormat, FieldName: "Number",
		Message: strconv.Quote(raw) + " is not a phone number: E.164 (with or without +), or an Australian number in local form (0 and 9 digits)"}}}
}

// ValidLookupNumber reports whether Lookup.NumberDetails takes n as it is,
// by the rule the SDK applies before sending: E.164 with a leading +, or a
// number in local form (3 to 15 digits). Filter a list with it before a
// lookup; NumberDetails refuses a list with any other number, naming every
// bad one with its index.
func ValidLookupNumber(n string) bool { return rules.IsLookupNumber(n) }
