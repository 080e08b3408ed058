package rules

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// predicateCase is one input of a predicate: whether it passes, and why.
type predicateCase struct {
	in  string
	ok  bool
	why string
}

func runPredicate(t *testing.T, pred func(string) bool, cases []predicateCase) {
	t.Helper()
	for _, tc := range cases {
		assert.Equal(t, tc.ok, pred(tc.in), "%q: %s", tc.in, tc.why)
	}
}

func TestIsE164(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsE164, []predicateCase{
		{"+61412345678", true, "an Australian mobile"},
		{"+1234567", true, "7 digits, the shortest"},
		{"+123456789012345", true, "15 digits, the longest"},
		{"", false, "empty"},
		{"+", false, "a + alone"},
		{"61412345678", false, "no leading +"},
		{"+123456", false, "6 digits is too short"},
		{"+1234567890123456", false, "16 digits is too long"},
		{"+0412345678", false, "a country code cannot start with 0"},
		{"+61 412 345 678", false, "spaces are not digits"},
		{"++61412345678", false, "a second +"},
		{"+6141234567a", false, "a letter"},
		{"+١٢٣٤٥٦٧٨", false, "non-ASCII digits"},
	})
}

func TestIsE164Digits(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsE164Digits, []predicateCase{
		{"61299999999", true, "a number without its +"},
		{"1234567", true, "7 digits"},
		{"+61299999999", false, "the + belongs to the other form"},
		{"0299999999", false, "local form starts with 0"},
		{"123456", false, "too short"},
		{"1234567890123456", false, "too long"},
	})
}

func TestIsSenderID(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsSenderID, []predicateCase{
		{"Acme", true, "letters"},
		{"Acme 24x7", true, "letters, digits and a space"},
		{"A", true, "one letter, the shortest"},
		{"Abcdefghijk", true, "11 characters, the longest"},
		{"", false, "empty"},
		{"Abcdefghijkl", false, "12 characters is too long"},
		{"12345", false, "no letter: a number, not a sender ID"},
		{"Acme-Co", false, "a hyphen"},
		{"Acmé", false, "a non-ASCII letter"},
		{"Acme!", false, "punctuation"},
	})
}

func TestLooksLikeNumber(t *testing.T) {
	t.Parallel()
	runPredicate(t, LooksLikeNumber, []predicateCase{
		{"+61 412 345 678", true, "spaces"},
		{"(02) 9999-9999", true, "parentheses and a hyphen"},
		{"0412", true, "digits"},
		{"", false, "empty"},
		{"Acme", false, "letters"},
		{"0412 x", false, "a letter among digits"},
	})
}

func TestIsEmail(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsEmail, []predicateCase{
		{"jane@acme.example.com", true, "plain"},
		{"a@b.co", true, "short"},
		{"jane.citizen+portal@mail.acme.example.com", true, "a plus and a sub-domain"},
		{"o'brien@acme.example.com", true, "an apostrophe"},
		{"", false, "empty"},
		{"jane", false, "no @"},
		{"jane@", false, "no domain"},
		{"@acme.example.com", false, "no local part"},
		{"jane@acme", false, "an undotted domain"},
		{"Jane <jane@acme.example.com>", false, "a display name"},
		{"<jane@acme.example.com>", false, "angle brackets"},
		{"jane @acme.example.com", false, "a space in the local part"},
		{"jane@.acme.com", false, "the domain starts with a dot"},
		{"jane@acme.com.", false, "the domain ends with a dot"},
		{"jane@acme..com", false, "an empty domain label"},
		{"jane@@acme.com", false, "two @"},
		{" jane@acme.com", false, "a leading space"},
		{"jane@acme.com ", false, "a trailing space"},
	})
}

func TestIsWebhookMethod(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsWebhookMethod, []predicateCase{
		{"GET", true, "documented"},
		{"POST", true, "documented"},
		{"Post", true, "the case the service's own SDKs send"},
		{"get", true, "any case"},
		{"", false, "empty"},
		{"PUT", false, "not a webhook method"},
		{"POST ", false, "a trailing space"},
	})
}

func TestIsHTTPURL(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsHTTPURL, []predicateCase{
		{"https://acme.example/hook", true, "https"},
		{"http://acme.example:8080/hook?x=1", true, "http with a port and query"},
		{"", false, "empty"},
		{"/hook", false, "relative"},
		{"acme.example/hook", false, "no scheme"},
		{"ftp://acme.example/hook", false, "not http"},
		{"https://", false, "no host"},
		{"https://acme example", false, "unparseable"},
	})
}

func TestIsCountryCode(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsCountryCode, []predicateCase{
		{"AU", true, "two letters"},
		{"au", true, "lower case"},
		{"Nz", true, "mixed case"},
		{"zz", true, "unknown codes are the service's to refuse"},
		{"AUS", true, "three letters"},
		{"nzl", true, "three letters, lower case"},
		{"", false, "empty"},
		{"A", false, "one letter"},
		{"AUST", false, "four letters"},
		{"A1", false, "a digit"},
		{"1A", false, "a leading digit"},
		{"36", false, "a numeric code"},
		{"036", false, "a three-digit numeric code"},
		{" A", false, "a space"},
		{"A ", false, "a trailing space"},
		{"A-", false, "punctuation"},
		{"ÅU", false, "a non-ASCII letter"},
		{"Ü", false, "one non-ASCII letter of two bytes"},
		{"AU1", false, "letters and a digit"},
	})
}

func TestIsUUID(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsUUID, []predicateCase{
		{"3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c40", true, "lower case"},
		{"ABCDEF01-2345-6789-ABCD-EF0123456789", true, "upper case"},
		{"00000000-0000-0000-0000-000000000000", true, "the nil UUID"},
		{"", false, "empty"},
		{"not-a-uuid", false, "words"},
		{"3f2b8c1e7a4d4e9b9c2f5d8e1a6b7c40", false, "no hyphens"},
		{"3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c4", false, "one digit short"},
		{"3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c400", false, "one digit too many"},
		{"3f2b8c1e-7a4d-4e9b-9c2f_5d8e1a6b7c40", false, "an underscore for a hyphen"},
		{"3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7cz0", false, "a non-hex letter"},
		{"3f2b8c1e--a4d-4e9b-9c2f-5d8e1a6b7c40", false, "a hyphen for a digit"},
		{" 3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c4", false, "a leading space"},
		{"3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c4é", false, "a non-ASCII letter"},
	})
}

func TestIsLookupNumber(t *testing.T) {
	t.Parallel()
	runPredicate(t, IsLookupNumber, []predicateCase{
		{"123", true, "3 digits, the shortest local form"},
		{"0299999999", true, "local form with its 0"},
		{"123456789012345", true, "15 digits, the longest local form"},
		{"+6831234", true, "a short E.164 number"},
		{"+123456789012345", true, "the longest E.164 number"},
		{"+61412345678", true, "E.164"},
		{"", false, "empty"},
		{"12", false, "2 digits is too short"},
		{"1234567890123456", false, "16 digits is too long"},
		{"+", false, "a + alone"},
		{"+0412", false, "E.164 cannot start with 0"},
		{"+683123", false, "E.164 with 6 digits"},
		{"+1234567890123456", false, "E.164 with 16 digits"},
		{"04-1234", false, "a hyphen"},
		{"abc", false, "letters"},
		{"+61 412 345 678", false, "spaces"},
		{"(02) 9999 9999", false, "written form"},
		{"0299999999 ", false, "a trailing space"},
		{"++61412345678", false, "two +"},
		{"١٢٣٤", false, "non-ASCII digits"},
	})
}

// problemCase is one input of a ...Problem function: "" when it passes,
// otherwise a part of the message it must give.
type problemCase struct {
	in   string
	want string
	why  string
}

// runProblem checks each case and that no message repeats its password.
func runProblem(t *testing.T, problem func(string) string, cases []problemCase) {
	t.Helper()
	for _, tc := range cases {
		msg := problem(tc.in)
		if tc.want == "" {
			assert.Empty(t, msg, "%s", tc.why)
			continue
		}
		assert.Contains(t, msg, tc.want, "%s", tc.why)
		if tc.in != "" {
			assert.NotContains(t, msg, tc.in, "%s: the message repeats the password", tc.why)
		}
	}
}

func TestLoginPasswordProblem(t *testing.T) {
	t.Parallel()
	const short = "at least 12 characters"
	cases := []problemCase{
		{"Abcdefgh1!xy", "", "12 characters with all four classes"},
		{"Sup3r$ecretPw!", "", "longer"},
		{"Abcdefgh1!xyé", "", "a non-ASCII letter besides the classes"},
		{"(Abcdefgh1)x", "", "parentheses are specials"},
		{"", short, "empty"},
		{"Abcdefg1!xy", short, "11 characters"},
		{"Abcdéfg1!xy", short, "11 characters even though 12 bytes"},
		{"ABCDEFGH1!XY", short, "no lower-case letter"},
		{"abcdefgh1!xy", short, "no upper-case letter"},
		{"Äbcdefgh1!xy", short, "Ä is not A-Z: no upper-case letter"},
		{"Abcdefghi!xy", short, "no digit"},
		{"Abcdefgh1xyz", short, "no special"},
		{"Abcdefgh1-xyz", short, "a hyphen is not one of the specials"},
		{"Abcdefgh1.xyz", short, "a dot is not one of the specials"},
		{"Abcdefgh1 xyz", short, "a space is not one of the specials"},
		{"Abcdefgh1~xyz", short, "a tilde is not one of the specials"},
		{"Abcdefgh1€xyz", short, "a euro sign is not one of the specials"},
	}
	for _, sp := range LoginPasswordSpecials {
		cases = append(cases, problemCase{"Abcdefgh1" + string(sp) + "xy", "", fmt.Sprintf("the special %q", sp)})
	}
	runProblem(t, LoginPasswordProblem, cases)
}

func TestSIPPasswordProblem(t *testing.T) {
	t.Parallel()
	const short = "at least 10 characters"
	runProblem(t, SIPPasswordProblem, []problemCase{
		{"Aa1!Aa1!bb", "", "10 characters with all four classes"},
		{"Tr0ub4dor&3x", "", "longer"},
		{"Aa1~Bb2-Cc", "", "any non-letter, non-space character is special"},
		{"xY9.zW8,vU7", "", "dots and commas are specials"},
		{"Aa1!Aa1!bbc", "", "two identical characters in a row are allowed"},
		{"", short, "empty"},
		{"Aa1!Aa1!b", "10", "9 characters"},
		{"AB1!CD2@EF", short, "no lower-case letter"},
		{"ab1!cd2@ef", short, "no upper-case letter"},
		{"Ab!Cd@Ef#G", short, "no digit"},
		{"Ab1Cd2Ef3G", short, "no special"},
		{"Ab1 Cd2 Ef3", short, "a space is not a special"},
		{"Xy1!aaabcd", "in a row", "three identical characters in a row"},
		{"Xy1!abcdEEE", "in a row", "three identical characters at the end"},
	})
}

func TestSIPCIDR(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, cidr, want, why string
	}{
		{"8.8.8.0/24", "8.8.8.0/24", "", "a public /24"},
		{"8.8.8.8/32", "8.8.8.8/32", "", "a public /32"},
		{"8.8.8.8", "8.8.8.8/32", "", "a bare address is a /32"},
		{" 1.1.1.1 ", "1.1.1.1/32", "", "surrounding spaces are trimmed"},
		{"100.128.0.0/24", "100.128.0.0/24", "", "just past the CGNAT range"},
		{"8.8.8.0/23", "8.8.8.0/23", "/24", "wider than /24"},
		{"2001:db8::/64", "2001:db8::/64", "IPv4 CIDR", "IPv6"},
		{"2001:db8::1", "2001:db8::1", "IPv4 CIDR", "a bare IPv6 address"},
		{"garbage", "garbage", "IPv4 CIDR", "not an address"},
		{"8.8.8.0/33", "8.8.8.0/33", "IPv4 CIDR", "a prefix past 32 bits"},
		{"10.0.0.0/24", "10.0.0.0/24", "10.0.0.0/8", "private"},
		{"172.20.0.0/24", "172.20.0.0/24", "172.16.0.0/12", "private, inside the /12: the message names the range"},
		{"100.64.1.0/24", "100.64.1.0/24", "100.64.0.0/10", "CGNAT"},
		{"127.0.0.1", "127.0.0.1/32", "127.0.0.0/8", "loopback"},
		{"192.88.99.0/24", "192.88.99.0/24", "192.88.99.0/24", "the 6to4 relay"},
		{"224.0.0.1", "224.0.0.1/32", "224.0.0.0/4", "multicast"},
		{"255.255.255.255", "255.255.255.255/32", "240.0.0.0/4", "the broadcast address"},
	} {
		cidr, msg := SIPCIDR(tc.in)
		assert.Equal(t, tc.cidr, cidr, "%q: %s", tc.in, tc.why)
		if tc.want == "" {
			assert.Empty(t, msg, "%q: %s", tc.in, tc.why)
		} else {
			assert.Contains(t, msg, tc.want, "%q: %s", tc.in, tc.why)
		}
	}
}

func TestNonPublicRangesAreCanonical(t *testing.T) {
	t.Parallel()
	for _, r := range nonPublicIPv4 {
		assert.True(t, r.Addr().Is4(), r.String())
		assert.Equal(t, r.Masked(), r, "%s is written as its network", r)
	}
}

func TestAUCallerIDProblem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, code, want, why string
	}{
		{"+61299999999", "", "", "a Sydney number"},
		{"+61412345678", "", "", "a mobile"},
		{"+61889999999", "", "", "an Adelaide number"},
		{"0299999999", CodeInvalidPhoneNumberFormat, "E.164", "local form"},
		{"+61", CodeInvalidPhoneNumberFormat, "E.164", "a country code alone"},
		{"+14155550100", CodeParameterInvalid, "Australian", "a US number"},
		{"+610299999999", CodeParameterInvalid, "Australian", "+61 followed by a trunk 0"},
		{"+61130000", CodeParameterInvalid, "shared-rate", "a 13 number"},
		{"+61131450", CodeParameterInvalid, "shared-rate", "another 13 number"},
		{"+611300123456", CodeParameterInvalid, "shared-rate", "a 1300 number"},
		{"+611800123456", CodeParameterInvalid, "toll-free (1800, 1802)", "an 1800 number"},
		{"+611802123456", CodeParameterInvalid, "toll-free (1800, 1802)", "an 1802 number, toll-free too"},
		{"+61180212", CodeParameterInvalid, "toll-free (1800, 1802)", "a short 1802 number"},
		{"+611300123456", CodeParameterInvalid, "shared-rate (13, 1300)", "the shared-rate rule stays"},
		{"+61180112345", "", "", "1801 is neither"},
		{"+611803123456", "", "", "1803 is neither"},
	} {
		code, msg := AUCallerIDProblem(tc.in)
		assert.Equal(t, tc.code, code, "%q: %s", tc.in, tc.why)
		if tc.want == "" {
			assert.Empty(t, msg, "%q: %s", tc.in, tc.why)
			continue
		}
		assert.Contains(t, msg, tc.want, "%q: %s", tc.in, tc.why)
		assert.Contains(t, msg, "DefaultCallerId", "%q: the message names the field", tc.in)
	}
}

func TestLookupNumbers(t *testing.T) {
	t.Parallel()
	type problem struct{ code, field string }
	mk := func(code, field, msg string) problem {
		assert.NotEmpty(t, msg, "%s on %s", code, field)
		return problem{code, field}
	}
	for _, tc := range []struct {
		numbers []string
		want    []problem
		why     string
	}{
		{[]string{"0299999999", "+61412345678"}, nil, "local form and E.164"},
		{nil, []problem{{CodeParameterRequired, "Numbers"}}, "no numbers"},
		{[]string{}, []problem{{CodeParameterRequired, "Numbers"}}, "an empty list"},
		{[]string{"0299999999", "abc", "12"}, []problem{
			{CodeInvalidPhoneNumberFormat, "Numbers[1]"}, {CodeInvalidPhoneNumberFormat, "Numbers[2]"}},
			"each bad number is named by its index"},
		{append(make([]string, 10), "0299999999"), func() []problem {
			var out []problem
			for i := 0; i < 10; i++ {
				out = append(out, problem{CodeInvalidPhoneNumberFormat, fmt.Sprintf("Numbers[%d]", i)})
			}
			return out
		}(), "indexes past one digit"},
	} {
		assert.Equal(t, tc.want, LookupNumbers(tc.numbers, mk), tc.why)
	}
}
