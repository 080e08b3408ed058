package telco_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/optest"
)

// The every-operation table is internal/optest's: one fixture per SDK
// method. Each method refuses bad input before any request with a
// *ValidationError named after it: an empty path identifier and missing
// required params always (validation on or off), a broken rule when
// validation is on. internal/optest's own test keeps the table complete.

// unansweredClient returns a client on an httpmock transport that has no
// responders, retries off, so that a test can count what it sent.
func unansweredClient(t testing.TB, opts ...telco.Option) (*telco.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	all := append([]telco.Option{
		telco.WithBaseURL("https://api.telco.test"),
		telco.WithHTTPClient(&http.Client{Transport: mt}),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}),
	}, opts...)
	c, err := telco.NewClient(optest.ValidIDs().AccountSid, "tok-S3cret-9f8e7d", all...)
	require.NoError(t, err)
	return c, mt
}

// requireRefused asserts that err is op's *telco.ValidationError naming
// field with code, and that mt saw no request.
func requireRefused(t testing.TB, mt *httpmock.MockTransport, err error, op, field, code string) {
	t.Helper()
	var ve *telco.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, op, ve.Op)
	assert.True(t, slices.ContainsFunc(ve.Fields, func(f telco.FieldError) bool { return f.FieldName == field && f.Code == code }),
		"want %s on %s, got %+v", code, field, ve.Fields)
	assert.Zero(t, mt.GetTotalCallCount(), "no request may be sent")
}

// TestEveryOperationRefusesBeforeSending: every method names itself in a
// *ValidationError and sends nothing when a path identifier is empty (even
// with params missing too, and with validation off), when required params
// are missing (validation on or off), and when params break a rule.
func TestEveryOperationRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	valid := optest.ValidIDs()
	for _, f := range optest.Fixtures() {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			for _, validate := range []bool{true, false} {
				for k, name := range f.IDs {
					blanks := []string{"", " \t"}
					if k == 0 {
						blanks = append(blanks, f.Blank...)
					}
					for _, blank := range blanks {
						for _, nilParams := range []bool{false, true} {
							t.Run(fmt.Sprintf("validation %v %s %q nil params %v", validate, name, blank, nilParams), func(t *testing.T) {
								c, mt := unansweredClient(t, telco.WithClientValidation(validate))
								ids, ok := valid.With(name, blank)
								require.True(t, ok, name)
								requireRefused(t, mt, f.Call(ctx, c, ids, nilParams), f.Name, name, telco.CodeParameterRequired)
							})
						}
					}
				}
				if f.NilRefused {
					t.Run(fmt.Sprintf("validation %v nil params", validate), func(t *testing.T) {
						c, mt := unansweredClient(t, telco.WithClientValidation(validate))
						requireRefused(t, mt, f.Call(ctx, c, valid, true), f.Name, f.NilField, telco.CodeParameterRequired)
					})
				}
			}
			if f.Bad != nil {
				t.Run("a broken rule", func(t *testing.T) {
					c, mt := unansweredClient(t)
					requireRefused(t, mt, f.Bad(ctx, c, valid), f.Name, f.BadField, f.BadCode)
				})
			}
			if f.All != nil {
				t.Run("the All twin", func(t *testing.T) {
					c, mt := unansweredClient(t)
					errs := f.All(ctx, c, valid)
					require.Len(t, errs, 1, "the refusal is yielded once")
					requireRefused(t, mt, errs[0], f.Name, f.AllField, f.AllCode)
				})
			}
		})
	}
}

// TestEveryValidateReportsItsOperation: Validate names the method its
// params type serves; a type shared by several methods names the one its
// doc comment says. A nil params value is refused where the method
// requires params and accepted where nil asks for the defaults.
func TestEveryValidateReportsItsOperation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		op    string
		bad   interface{ Validate() error } // breaks one rule
		nil   interface{ Validate() error } // a nil value of the type
		nilOK bool
		field string
	}{
		{"NumberBlocks.Search", &telco.NumberBlockSearchParams{}, (*telco.NumberBlockSearchParams)(nil), false, "AccountSid"},
		{"NumberBlocks.ListByProperty", &telco.NumberBlockListParams{SortDir: "up"}, (*telco.NumberBlockListParams)(nil), true, "SortDir"},
		{"Numbers.Configure", &telco.NumberConfigParams{Recording: "On"}, (*telco.NumberConfigParams)(nil), true, "Recording"},
		{"Messages.Send", &telco.SendMessageParams{To: "+61499999999"}, (*telco.SendMessageParams)(nil), false, "Text"},
		{"Messages.Find", &telco.FindMessagesParams{DateTo: time.Now()}, (*telco.FindMessagesParams)(nil), false, "Date_From"},
		{"Properties.Create", &telco.CreatePropertyParams{Name: "n", MainDomain: "d.example"}, (*telco.CreatePropertyParams)(nil), false, "TimeZone"},
		{"Properties.Update", &telco.UpdatePropertyParams{TimeZone: telco.Ptr("")}, (*telco.UpdatePropertyParams)(nil), false, "TimeZone"},
		{"OnlineLogins.Create", &telco.CreateOnlineLoginParams{}, (*telco.CreateOnlineLoginParams)(nil), false, "Email"},
		{"SipTrunks.Create", &telco.CreateSipTrunkParams{}, (*telco.CreateSipTrunkParams)(nil), false, "Name"},
		{"SipTrunks.List", &telco.ListSipTrunksParams{ListParams: telco.ListParams{Skip: -1}}, (*telco.ListSipTrunksParams)(nil), true, "Results_Skip"},
		{"Porting.Submit", &telco.PortingRequestParams{}, (*telco.PortingRequestParams)(nil), false, "AuthorisedContactName"},
		{"Porting.StatusByProperty", &telco.PortingStatusParams{}, (*telco.PortingStatusParams)(nil), false, "From"},
		{"Addresses.Create", &telco.CreateAddressParams{}, (*telco.CreateAddressParams)(nil), false, "Line1"},
		{"OnlineLogins.Update", &telco.UpdateOnlineLoginParams{FirstName: telco.Ptr("")}, (*telco.UpdateOnlineLoginParams)(nil), false, "FirstName"},
		{"SipTrunks.Update", &telco.UpdateSipTrunkParams{Name: telco.Ptr("")}, (*telco.UpdateSipTrunkParams)(nil), false, "Name"},
		{"NumberBlocks.Purchase", &telco.PurchaseNumberBlockParams{}, (*telco.PurchaseNumberBlockParams)(nil), false, "AnswerPoint"},
		{"NumberBlocks.Configure", &telco.ConfigureNumberBlockParams{}, (*telco.ConfigureNumberBlockParams)(nil), false, "RoutingMethod"},
		{"Addresses.List", &telco.ListAddressesParams{CountryCode: "1"}, (*telco.ListAddressesParams)(nil), true, "CountryCode"},
		{"Numbers.ListByProperty", &telco.ListNumbersParams{Types: []telco.NumberType{"Mobile"}}, (*telco.ListNumbersParams)(nil), true, "Type"},
		{"Numbers.Purchase", &telco.PurchaseNumberParams{}, (*telco.PurchaseNumberParams)(nil), false, "Number"},
		{"Calls.ListByProperty", &telco.ListCallsParams{To: []string{"a,b"}}, (*telco.ListCallsParams)(nil), true, "To"},
	} {
		t.Run(tc.op, func(t *testing.T) {
			var ve *telco.ValidationError
			require.ErrorAs(t, tc.bad.Validate(), &ve)
			assert.Equal(t, tc.op, ve.Op)
			assert.True(t, slices.ContainsFunc(ve.Fields, func(f telco.FieldError) bool { return f.FieldName == tc.field }),
				"want %s in %+v", tc.field, ve.Fields)
			err := tc.nil.Validate()
			if tc.nilOK {
				assert.NoError(t, err)
				return
			}
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.op, ve.Op)
		})
	}
}
