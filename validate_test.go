package telco

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco/internal/rules"
)

// The shared rules report the service's codes; they must be the very
// strings the exported constants promise.
func TestRuleCodesAreThePublicCodes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, CodeParameterRequired, rules.CodeParameterRequired)
	assert.Equal(t, CodeInvalidPhoneNumberFormat, rules.CodeInvalidPhoneNumberFormat)
	assert.Equal(t, CodeParameterInvalid, rules.CodeParameterInvalid)
}

// Each field helper of fieldErrs: what it accepts (nothing recorded) and
// what it refuses, with the code and field it records.
func TestFieldErrsHelpers(t *testing.T) {
	t.Parallel()
	type helper = func(f *fieldErrs, v string)
	required := func(f *fieldErrs, v string) { f.required("F", v) }
	phone := func(f *fieldErrs, v string) { f.phone("F", v) }
	number := func(f *fieldErrs, v string) { f.number("F", v) }
	email := func(f *fieldErrs, v string) { f.email("F", v) }
	method := func(f *fieldErrs, v string) { f.webhookMethod("F", v) }
	url := func(f *fieldErrs, v string) { f.url("F", v) }
	for _, tc := range []struct {
		name string
		h    helper
		v    string
		code string // "" when v passes
		why  string
	}{
		{"required", required, "x", "", "a value"},
		{"required", required, "", CodeParameterRequired, "empty"},
		{"required", required, " \t", CodeParameterRequired, "blank counts as missing"},
		{"phone", phone, "", "", "an empty optional number is not checked"},
		{"phone", phone, "+61412345678", "", "E.164"},
		{"phone", phone, "61412345678", CodeInvalidPhoneNumberFormat, "the + is required"},
		{"number", number, "61412345678", "", "the + is optional"},
		{"number", number, "+61412345678", "", "with the +"},
		{"number", number, "", "", "empty is not checked"},
		{"number", number, "0412345678", CodeInvalidPhoneNumberFormat, "local form"},
		{"number", number, "++61412345678", CodeInvalidPhoneNumberFormat, "two +"},
		{"email", email, "a@b.example", "", "an address"},
		{"email", email, "", "", "empty is not checked"},
		{"email", email, "a@b", CodeParameterInvalid, "an undotted domain"},
		{"webhookMethod", method, "post", "", "any case"},
		{"webhookMethod", method, "", "", "empty is not checked"},
		{"webhookMethod", method, "PUT", CodeParameterInvalid, "not GET or POST"},
		{"url", url, "https://h.example/x", "", "absolute"},
		{"url", url, "", "", "empty is not checked"},
		{"url", url, "/x", CodeParameterInvalid, "relative"},
	} {
		var f fieldErrs
		tc.h(&f, tc.v)
		if tc.code == "" {
			assert.Empty(t, f, "%s(%q): %s", tc.name, tc.v, tc.why)
			continue
		}
		if assert.Len(t, f, 1, "%s(%q): %s", tc.name, tc.v, tc.why) {
			assert.Equal(t, tc.code, f[0].Code, "%s(%q): %s", tc.name, tc.v, tc.why)
			assert.Equal(t, "F", f[0].FieldName, "%s(%q): the field is named", tc.name, tc.v)
			assert.Contains(t, f[0].Message, "F", "%s(%q): the message names the field", tc.name, tc.v)
		}
	}
}

func TestFieldErrsRequiredSaysWhetherPresent(t *testing.T) {
	t.Parallel()
	var f fieldErrs
	assert.True(t, f.required("A", "x"))
	assert.False(t, f.required("B", " "))
	assert.Equal(t, fieldErrs{{Code: CodeParameterRequired, FieldName: "B", Message: "B is required"}}, f)
}

func TestListParamsCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lp     ListParams
		fields []string
		why    string
	}{
		{ListParams{}, nil, "zero asks for the defaults"},
		{ListParams{Count: 1, Skip: 100}, nil, "a position"},
		{ListParams{Count: -1}, []string{"Results_Count"}, "a negative count"},
		{ListParams{Skip: -1}, []string{"Results_Skip"}, "a negative skip"},
		{ListParams{Count: -1, Skip: -2}, []string{"Results_Count", "Results_Skip"}, "both are reported"},
	} {
		var got []string
		for _, fe := range tc.lp.check() {
			assert.Equal(t, CodeParameterInvalid, fe.Code, tc.why)
			got = append(got, fe.FieldName)
		}
		assert.Equal(t, tc.fields, got, tc.why)
	}
}

func TestFieldErrsErr(t *testing.T) {
	t.Parallel()
	var f fieldErrs
	assert.NoError(t, f.err("Svc.Op"), "no problems, no error")
	f.invalid("A", "A is bad")
	f.add(CodeParameterRequired, "B", "B is required")
	var ve *ValidationError
	require.ErrorAs(t, f.err("Svc.Op"), &ve)
	assert.Equal(t, "Svc.Op", ve.Op)
	assert.Equal(t, []FieldError{
		{Code: CodeParameterInvalid, FieldName: "A", Message: "A is bad"},
		{Code: CodeParameterRequired, FieldName: "B", Message: "B is required"},
	}, ve.Fields, "every problem, in order")
}

func TestPathParam(t *testing.T) {
	t.Parallel()
	assert.NoError(t, pathParam("Svc.Op", "Sid", "S1"))
	for _, v := range []string{"", " ", "\t\n"} {
		var ve *ValidationError
		require.ErrorAs(t, pathParam("Svc.Op", "Sid", v), &ve, "%q", v)
		assert.Equal(t, &ValidationError{Op: "Svc.Op", Fields: []FieldError{
			{Code: CodeParameterRequired, FieldName: "Sid", Message: "Sid is required"}}}, ve)
	}
}

func TestNilParams(t *testing.T) {
	t.Parallel()
	var ve *ValidationError
	require.ErrorAs(t, nilParams("Svc.Op"), &ve)
	assert.Equal(t, "Svc.Op", ve.Op)
	require.Len(t, ve.Fields, 1)
	assert.Equal(t, CodeParameterRequired, ve.Fields[0].Code)
	assert.Empty(t, ve.Fields[0].FieldName, "the params as a whole, not one field")
}

// precheck checks in order: the path identifier, then that params were
// given (both even with validation off), then the rules (only with
// validation on, and only then is check called).
func TestPrecheck(t *testing.T) {
	t.Parallel()
	failing := func(calls *int) func() fieldErrs {
		return func() fieldErrs {
			*calls++
			var f fieldErrs
			f.invalid("P", "P is bad")
			return f
		}
	}
	for _, tc := range []struct {
		validate bool
		id       string
		given    bool
		field    string // "" with code "": no error
		code     string
		checked  bool // check was called
		why      string
	}{
		{true, "", false, "Sid", CodeParameterRequired, false, "the identifier first"},
		{false, " ", true, "Sid", CodeParameterRequired, false, "the identifier even with validation off"},
		{true, "S1", false, "", CodeParameterRequired, false, "then the params"},
		{false, "S1", false, "", CodeParameterRequired, false, "params even with validation off"},
		{true, "S1", true, "P", CodeParameterInvalid, true, "then the rules"},
		{false, "S1", true, "", "", false, "no rules with validation off"},
	} {
		c, _ := newMockClient(t, WithClientValidation(tc.validate))
		calls := 0
		err := c.precheck("Svc.Op", "Sid", tc.id, tc.given, failing(&calls))
		assert.Equal(t, tc.checked, calls == 1, "%s: check called", tc.why)
		if tc.code == "" {
			assert.NoError(t, err, tc.why)
			continue
		}
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, tc.why) && assert.Len(t, ve.Fields, 1, tc.why) {
			assert.Equal(t, "Svc.Op", ve.Op, tc.why)
			assert.Equal(t, tc.field, ve.Fields[0].FieldName, tc.why)
			assert.Equal(t, tc.code, ve.Fields[0].Code, tc.why)
		}
	}
}

func TestValidateParams(t *testing.T) {
	t.Parallel()
	calls := 0
	bad := func() fieldErrs {
		calls++
		return fieldErrs{{Code: CodeParameterInvalid, FieldName: "P", Message: "P is bad"}}
	}
	on, _ := newMockClient(t)
	var ve *ValidationError
	require.ErrorAs(t, on.validateParams("Svc.Op", bad), &ve)
	assert.Equal(t, "Svc.Op", ve.Op)
	assert.NoError(t, on.validateParams("Svc.Op", func() fieldErrs { return nil }))

	off, _ := newMockClient(t, WithClientValidation(false))
	calls = 0
	assert.NoError(t, off.validateParams("Svc.Op", bad))
	assert.Zero(t, calls, "the rules are not even run with validation off")
}
