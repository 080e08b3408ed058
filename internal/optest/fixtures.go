// Package optest is the one table of how to call each method of the SDK,
// for the tests that must call every one: a valid call (which the SDK's
// rules and telcotest both accept), what a success does to the fake's
// store, a call that breaks one rule and what the refusal names, whether
// nil params are refused, and the method's ...All twin on input it
// refuses. The every-operation refusal test and the catalogue test at the
// root, the retry matrix and the OpenAPI conformance test all read it;
// its own test fails, by name, for an SDK method without a fixture and a
// fixture without a method. The operations themselves (method, path,
// idempotency) are internal/catalog's; a fixture only says how to call
// them.
package optest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/catalog"
	"github.com/telcosdk/telco/telcotest"
)

// Fixture says how to call one SDK method.
type Fixture struct {
	// Name is the SDK method, "Service.Method": for an operation of the
	// catalogue, the operation's name.
	Name string
	// Ops are the catalogue operations the method's requests may use:
	// Name itself for an operation of the catalogue, the operations a
	// method composed of others calls (SendOnce: Send, then Find).
	Ops []string
	// IDs are the wire names of the method's path identifiers, in argument
	// order: those of the path of its first operation.
	IDs []string
	// Blank are further values that leave the first identifier empty.
	Blank []string
	// Call calls the method with ids and, unless nilParams, params that
	// pass the SDK's rules and the fake's; methods without params ignore
	// nilParams. With ids from Setup it succeeds on the fake.
	Call func(ctx context.Context, c *telco.Client, ids IDs, nilParams bool) error
	// Effect is what one success of Call (with params) adds to the fake's
	// store, or with negative counts removes.
	Effect telcotest.Counts
	// Check, when set, verifies on the fake what a success of Call (with
	// params) did beyond Effect.
	Check func(ctx context.Context, srv *telcotest.Server, ids IDs) error
	// NilRefused says that a call without params is refused, naming
	// NilField ("" for the params as a whole).
	NilRefused bool
	NilField   string
	// Bad calls the method with params that break one rule; the
	// *telco.ValidationError names BadField with BadCode.
	Bad               func(ctx context.Context, c *telco.Client, ids IDs) error
	BadField, BadCode string
	// Paramless says that the method takes no params, so has no rule to
	// break.
	Paramless bool
	// All runs the method's ...All twin with ids on input it refuses and
	// returns the errors it yields; the refusal names AllField (the first
	// identifier unless set) with AllCode (PARAMETER_REQUIRED unless set).
	All               func(ctx context.Context, c *telco.Client, ids IDs) []error
	AllField, AllCode string
}

// Fixtures returns one fixture per SDK method, with Ops, IDs, AllField and
// AllCode filled in where the table leaves them to their defaults. The
// slice is the caller's.
func Fixtures() []Fixture {
	out := table()
	for i := range out {
		f := &out[i]
		if len(f.Ops) == 0 {
			f.Ops = []string{f.Name}
		}
		if op, ok := catalog.Lookup(f.Ops[0]); ok {
			f.IDs = op.IDs()
		}
		if f.All != nil {
			if f.AllField == "" && len(f.IDs) > 0 {
				f.AllField = f.IDs[0]
			}
			if f.AllCode == "" {
				f.AllCode = telco.CodeParameterRequired
			}
		}
	}
	return out
}

// pick returns p, or nil when nilParams.
func pick[T any](nilParams bool, p *T) *T {
	if nilParams {
		return nil
	}
	return p
}

// errsOf runs seq and returns the errors it yields, stopping after a few
// so that a runaway iterator cannot hang a test.
func errsOf[T any](seq iter.Seq2[T, error]) []error {
	var out []error
	for _, err := range seq {
		if err != nil {
			out = append(out, err)
		}
		if len(out) > 3 {
			break
		}
	}
	return out
}

// same returns an error naming what when got is not want.
func same(what string, got, want any) error {
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s is %#v, want %#v", what, got, want)
	}
	return nil
}

// batchErr is the first failure of a batch: err, or an element refused or
// answered with no message.
func batchErr(res []telco.BatchResult, err error) error {
	if err != nil {
		return err
	}
	for i, r := range res {
		if r.Err != nil {
			return r.Err
		}
		if r.Message == nil {
			return fmt.Errorf("element %d: no message", i)
		}
	}
	return nil
}

// sendAllErr is the first error SendAll yields, or the first refusal of
// a message, as batchErr for one batch.
func sendAllErr(seq iter.Seq2[telco.BatchResult, error]) error {
	var res []telco.BatchResult
	for r, err := range seq {
		if err != nil {
			return err
		}
		res = append(res, r)
	}
	return batchErr(res, nil)
}

// table is the fixtures as written, grouped by service.
func table() []Fixture {
	// Fixed times for rules that do not look at the clock.
	from, to := time.Unix(1_700_000_000, 0), time.Unix(1_700_086_400, 0)
	return []Fixture{
		// Number blocks.
		{Name: "NumberBlocks.Search",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.NumberBlocks.Search(ctx, pick(n, &telco.NumberBlockSearchParams{PropertySid: ids.PropertySid, Text: ids.Text,
					NumberBlockListParams: telco.NumberBlockListParams{Sms: telco.Ptr(true), IncludeAssociations: true,
						PageSize: 5, IncludeTotalCount: telco.Ptr(true), SortBy: "Id", SortDir: "desc"}}))
				return err
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, _ IDs) error {
				_, err := c.NumberBlocks.Search(ctx, &telco.NumberBlockSearchParams{})
				return err
			}, BadField: "AccountSid", BadCode: telco.CodeParameterRequired,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.NumberBlocks.SearchAll(ctx, nil))
			}, AllField: "AccountSid"},
		{Name: "NumberBlocks.SearchText",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.NumberBlocks.SearchText(ctx, ids.Text, pick(n, &telco.NumberBlockListParams{Active: telco.Ptr(true), PageSize: 5}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.NumberBlocks.SearchText(ctx, ids.Text, &telco.NumberBlockListParams{SortDir: "up"})
				return err
			}, BadField: "SortDir", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.NumberBlocks.SearchTextAll(ctx, "", nil))
			}},
		{Name: "NumberBlocks.ListByProperty",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.NumberBlocks.ListByProperty(ctx, ids.PropertySid, pick(n, &telco.NumberBlockListParams{
					Voice: telco.Ptr(true), PageIndex: 1, PageSize: 1}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.NumberBlocks.ListByProperty(ctx, ids.PropertySid, &telco.NumberBlockListParams{PageSize: -1})
				return err
			}, BadField: "PageSize", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.NumberBlocks.ListByPropertyAll(ctx, "", nil))
			}},
		{Name: "NumberBlocks.ListByAccount",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.NumberBlocks.ListByAccount(ctx, ids.AccountSid, pick(n, &telco.NumberBlockListParams{PageSize: 5}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.NumberBlocks.ListByAccount(ctx, ids.AccountSid, &telco.NumberBlockListParams{PageIndex: -1})
				return err
			}, BadField: "PageIndex", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.NumberBlocks.ListByAccountAll(ctx, " ", nil))
			}},
		{Name: "NumberBlocks.Purchase",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.NumberBlocks.Purchase(ctx, ids.PropertySid, pick(n, &telco.PurchaseNumberBlockParams{
					AnswerPoint: "+61299990001", GroupType: telco.Ptr(0), Preamble: telco.Ptr(1), RoutingAction: telco.Ptr(2),
					Dialplan: "AU", Extra: map[string]any{"Quantity": 100}}))
				return err
			},
			Effect:     telcotest.Counts{NumberBlocks: 1},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.NumberBlocks.Purchase(ctx, ids.PropertySid, &telco.PurchaseNumberBlockParams{})
				return err
			}, BadField: "AnswerPoint", BadCode: telco.CodeParameterRequired},
		{Name: "NumberBlocks.Configure",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.NumberBlocks.Configure(ctx, ids.NumberBlockSid, pick(n, &telco.ConfigureNumberBlockParams{
					RoutingMethod: telco.BlockRoutingEndpoint, EndpointNumber: "+61299990001"}))
				return err
			},
			Check: func(ctx context.Context, srv *telcotest.Server, ids IDs) error {
				for b, err := range srv.Client().NumberBlocks.ListByPropertyAll(ctx, ids.PropertySid, nil) {
					if err != nil {
						return err
					}
					if b.NumberBlockSid == ids.NumberBlockSid {
						return same("the block's TerminationNumber", b.TerminationNumber, "61299990001")
					}
				}
				return errors.New("the configured block is not listed")
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.NumberBlocks.Configure(ctx, ids.NumberBlockSid, &telco.ConfigureNumberBlockParams{
					RoutingMethod: telco.BlockRoutingEndpoint})
				return err
			}, BadField: "EndpointNumber", BadCode: telco.CodeParameterRequired},

		// Numbers and look-ups.
		{Name: "Numbers.Configure", Blank: []string{"+"},
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Numbers.Configure(ctx, ids.Number, pick(n, &telco.NumberConfigParams{Friendly: "Front desk",
					AddressSid: ids.AddressSid, AttributionSource: "google", AttributionMedium: "cpc", AttributionCampaign: "spring",
					AttributionContent: "ad1", RoutingMethod: telco.RoutingEndpoint, EndpointNumber: "+61299990001",
					Recording: telco.RecordingCall, SendSmsFrom: ids.Number, SendSmsTo: "+61499990000",
					SendEmailFrom: "noreply@example.com", SendEmailTo: "desk@example.com",
					WebhookURL: "https://hooks.example.com/sms", WebhookMethod: "post",
					DeliveryReceiptWebhookURL: "https://hooks.example.com/dr", DeliveryReceiptWebhookMethod: "GET"}))
				return err
			},
			Check: func(ctx context.Context, srv *telcotest.Server, ids IDs) error {
				num, err := srv.Client().Numbers.Get(ctx, ids.Number)
				if err != nil {
					return err
				}
				return errors.Join(same("the number's Friendly", num.Friendly, "Front desk"),
					same("the number's AddressSid", num.AddressSid, ids.AddressSid))
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Numbers.Configure(ctx, ids.Number, &telco.NumberConfigParams{RoutingMethod: "Phone"})
				return err
			}, BadField: "RoutingMethod", BadCode: telco.CodeParameterInvalid},
		{Name: "Numbers.Get", Blank: []string{"+"},
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.Numbers.Get(ctx, ids.Number)
				return err
			},
			// Its one rule is on the identifier itself.
			Bad: func(ctx context.Context, c *telco.Client, _ IDs) error {
				_, err := c.Numbers.Get(ctx, "0299999999")
				return err
			}, BadField: "Number", BadCode: telco.CodeInvalidPhoneNumberFormat},
		{Name: "Numbers.ListByProperty",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Numbers.ListByProperty(ctx, ids.PropertySid, pick(n, &telco.ListNumbersParams{
					Types:        []telco.NumberType{telco.NumberLocal, telco.NumberTollFree},
					Capabilities: []telco.NumberCapability{telco.CapabilityVoice, telco.CapabilitySMS},
					ListParams:   telco.ListParams{Count: 20}}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Numbers.ListByProperty(ctx, ids.PropertySid, &telco.ListNumbersParams{ListParams: telco.ListParams{Count: 201}})
				return err
			}, BadField: "Results_Count", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Numbers.ListByPropertyAll(ctx, "", nil))
			}},
		{Name: "Numbers.ListByAccount",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Numbers.ListByAccount(ctx, ids.AccountSid, pick(n, &telco.ListNumbersParams{
					Types: []telco.NumberType{telco.NumberLocal}, Capabilities: []telco.NumberCapability{telco.CapabilitySMS}}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Numbers.ListByAccount(ctx, ids.AccountSid, &telco.ListNumbersParams{Capabilities: []telco.NumberCapability{"Fax"}})
				return err
			}, BadField: "Capabilites", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Numbers.ListByAccountAll(ctx, ids.AccountSid, &telco.ListNumbersParams{Types: []telco.NumberType{"Mobile"}}))
			}, AllField: "Type", AllCode: telco.CodeParameterInvalid},
		{Name: "Numbers.Purchase",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Numbers.Purchase(ctx, ids.PropertySid, pick(n, &telco.PurchaseNumberParams{Number: "+61299990042"}))
				return err
			},
			Effect: telcotest.Counts{Numbers: 1},
			Check: func(ctx context.Context, srv *telcotest.Server, _ IDs) error {
				num, err := srv.Client().Numbers.Get(ctx, "+61299990042")
				if err != nil {
					return err
				}
				// Bought without an address: the account's Australian one
				// is assigned, and the number is active.
				return same("the bought number's Status", num.Status, telco.NumberActive)
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Numbers.Purchase(ctx, ids.PropertySid, &telco.PurchaseNumberParams{Number: "0299990001"})
				return err
			}, BadField: "Number", BadCode: telco.CodeInvalidPhoneNumberFormat},
		{Name: "Lookup.NumberDetails",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				numbers := []string{ids.Number, "0299990001"}
				if n {
					numbers = nil
				}
				_, err := c.Lookup.NumberDetails(ctx, numbers...)
				return err
			},
			NilRefused: true, NilField: "Numbers",
			Bad: func(ctx context.Context, c *telco.Client, _ IDs) error {
				_, err := c.Lookup.NumberDetails(ctx, "0299999999", "abc")
				return err
			}, BadField: "Numbers[1]", BadCode: telco.CodeInvalidPhoneNumberFormat},

		// Messages.
		{Name: "Messages.Send",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Messages.Send(ctx, ids.PropertySid, pick(n, &telco.SendMessageParams{From: "Acme", To: "+61499990000",
					Text: "Your code is 1234", DeliveryReceipt: telco.Ptr(true), ExternalID: "order-1",
					Schedule: time.Now().Add(time.Hour)}))
				return err
			},
			Effect:     telcotest.Counts{Messages: 1},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Messages.Send(ctx, ids.PropertySid, &telco.SendMessageParams{To: "0412345678", Text: "hi"})
				return err
			}, BadField: "To", BadCode: telco.CodeInvalidPhoneNumberFormat},
		{Name: "Messages.SendBatch",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				msgs := []telco.SendMessageParams{
					{From: ids.Number, To: "+61499990004", Text: "one", ExternalID: "batch-1", DeliveryReceipt: telco.Ptr(false)},
					{From: "Acme", To: "+61499990008", Text: "two", Schedule: time.Now().Add(2 * time.Hour)},
				}
				if n {
					msgs = nil
				}
				return batchErr(c.Messages.SendBatch(ctx, ids.PropertySid, msgs))
			},
			Effect: telcotest.Counts{Messages: 2},
			// A message that breaks a rule is refused in its BatchResult,
			// not with a *ValidationError (messages_test.go tests that).
			NilRefused: true, NilField: "Messages", Paramless: true},
		{Name: "Messages.SendOnce", Ops: []string{"Messages.Send", "Messages.Find"},
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Messages.SendOnce(ctx, ids.PropertySid, pick(n, &telco.SendMessageParams{From: "Acme", To: "+61499990005",
					Text: "once", ExternalID: "once-1"}))
				return err
			},
			Effect:     telcotest.Counts{Messages: 1},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Messages.SendOnce(ctx, ids.PropertySid, &telco.SendMessageParams{To: "0412345678", Text: "hi", ExternalID: "x1"})
				return err
			}, BadField: "To", BadCode: telco.CodeInvalidPhoneNumberFormat},
		{Name: "Messages.SendBatchOnce", Ops: []string{"Messages.SendBatch", "Messages.Find"},
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				msgs := []telco.SendMessageParams{
					{From: "Acme", To: "+61499990006", Text: "a", ExternalID: "bo-1"},
					{From: "Acme", To: "+61499990007", Text: "b", ExternalID: "bo-2"},
				}
				if n {
					msgs = nil
				}
				return batchErr(c.Messages.SendBatchOnce(ctx, ids.PropertySid, msgs))
			},
			Effect:     telcotest.Counts{Messages: 2},
			NilRefused: true, NilField: "Messages",
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Messages.SendBatchOnce(ctx, ids.PropertySid, []telco.SendMessageParams{{To: "+61499999999", Text: "hi"}})
				return err
			}, BadField: "Messages[0].ExternalId", BadCode: telco.CodeParameterRequired},
		{Name: "Messages.SendAll", Ops: []string{"Messages.SendBatch", "Messages.Find"},
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				msgs := []telco.SendMessageParams{
					{From: "Acme", To: "+61499990011", Text: "a", ExternalID: "sa-1"},
					{From: "Acme", To: "+61499990012", Text: "b", ExternalID: "sa-2"},
				}
				return sendAllErr(c.Messages.SendAll(ctx, ids.PropertySid, slices.Values(msgs), nil))
			},
			Effect: telcotest.Counts{Messages: 2},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				msgs := []telco.SendMessageParams{{From: "Acme", To: "+61499990011", Text: "a", ExternalID: "sa-1"}}
				return sendAllErr(c.Messages.SendAll(ctx, ids.PropertySid, slices.Values(msgs), &telco.SendAllOptions{ChunkSize: -1}))
			}, BadField: "ChunkSize", BadCode: telco.CodeParameterInvalid},
		{Name: "Messages.FindByExternalID", Ops: []string{"Messages.Find"},
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				found, err := c.Messages.FindByExternalID(ctx, ids.PropertySid, time.Now().Add(-time.Hour), ids.ExternalID)
				if err != nil {
					return err
				}
				return same("the MessageSid found by ExternalId", found[ids.ExternalID].MessageSid, ids.MessageSid)
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Messages.FindByExternalID(ctx, ids.PropertySid, time.Time{}, ids.ExternalID)
				return err
			}, BadField: "since", BadCode: telco.CodeParameterRequired},
		{Name: "Messages.ListByExternalID", Ops: []string{"Messages.Find"},
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				found, err := c.Messages.ListByExternalID(ctx, ids.PropertySid, time.Now().Add(-time.Hour), ids.ExternalID)
				if err != nil {
					return err
				}
				return same("the messages stored with the ExternalId", len(found[ids.ExternalID]), 1)
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Messages.ListByExternalID(ctx, ids.PropertySid, from)
				return err
			}, BadField: "ExternalId", BadCode: telco.CodeParameterRequired},
		{Name: "Messages.FillLedger", Ops: []string{"Messages.Find"},
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.Messages.FillLedger(ctx, ids.PropertySid, time.Now().Add(-time.Hour), time.Now().Add(time.Minute))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Messages.FillLedger(ctx, ids.PropertySid, time.Time{}, to)
				return err
			}, BadField: "Date_From", BadCode: telco.CodeParameterRequired},
		{Name: "Messages.Find",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Messages.Find(ctx, ids.PropertySid, pick(n, &telco.FindMessagesParams{DateFrom: time.Now().Add(-time.Hour),
					DateTo: time.Now().Add(24 * time.Hour), Status: telco.MessageProcessing, Direction: telco.DirectionTransmit,
					ListParams: telco.ListParams{Count: 50}}))
				return err
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Messages.Find(ctx, ids.PropertySid, &telco.FindMessagesParams{DateFrom: to, DateTo: from})
				return err
			}, BadField: "Date_To", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Messages.FindAll(ctx, "", nil))
			}},
		{Name: "Messages.Get", Paramless: true,
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.Messages.Get(ctx, ids.MessageSid)
				return err
			}},

		// Projects.
		{Name: "Properties.Create",
			Call: func(ctx context.Context, c *telco.Client, _ IDs, n bool) error {
				_, err := c.Properties.Create(ctx, pick(n, &telco.CreatePropertyParams{Name: "Spring sale", MainDomain: "example.com",
					TimeZone: "AUS Eastern Standard Time", SmsEnabled: true, Active: telco.Ptr(true)}))
				return err
			},
			Effect:     telcotest.Counts{Properties: 1},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, _ IDs) error {
				_, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{MainDomain: "d.example", TimeZone: "UTC"})
				return err
			}, BadField: "Name", BadCode: telco.CodeParameterRequired},
		{Name: "Properties.Get", Paramless: true,
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.Properties.Get(ctx, ids.PropertySid)
				return err
			}},
		{Name: "Properties.List",
			Call: func(ctx context.Context, c *telco.Client, _ IDs, n bool) error {
				_, err := c.Properties.List(ctx, pick(n, &telco.ListParams{Count: 1, Skip: 1}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, _ IDs) error {
				_, err := c.Properties.List(ctx, &telco.ListParams{Skip: -1})
				return err
			}, BadField: "Results_Skip", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Properties.ListAll(ctx, &telco.ListParams{Skip: -1}))
			}, AllField: "Results_Skip", AllCode: telco.CodeParameterInvalid},
		{Name: "Properties.Update",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				return c.Properties.Update(ctx, ids.PropertySid, pick(n, &telco.UpdatePropertyParams{Name: telco.Ptr("Winter sale"),
					CallRecordingEnabled: telco.Ptr(true), Active: telco.Ptr(false)}))
			},
			Check: func(ctx context.Context, srv *telcotest.Server, ids IDs) error {
				p, err := srv.Client().Properties.Get(ctx, ids.PropertySid)
				if err != nil {
					return err
				}
				return errors.Join(same("the project's Name", p.Name, "Winter sale"),
					same("the project's CallRecordingEnabled", p.CallRecordingEnabled, true),
					same("the project's Active", p.Active, false))
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				return c.Properties.Update(ctx, ids.PropertySid, &telco.UpdatePropertyParams{MainDomain: telco.Ptr(" ")})
			}, BadField: "MainDomain", BadCode: telco.CodeParameterInvalid},

		// Online logins.
		{Name: "OnlineLogins.Create",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.OnlineLogins.Create(ctx, ids.PropertySid, pick(n, &telco.CreateOnlineLoginParams{Email: "jane@example.com",
					Password: loginPassword, FirstName: "Jane", LastName: "Doe",
					Scopes: telco.Scopes{telco.ScopeManage, telco.ScopeReportingSms}, Enabled: true}))
				return err
			},
			Effect:     telcotest.Counts{OnlineLogins: 1},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.OnlineLogins.Create(ctx, ids.PropertySid, &telco.CreateOnlineLoginParams{Email: "jane@example.com",
					Password: loginPassword, FirstName: "Jane", LastName: "Doe"})
				return err
			}, BadField: "Scopes", BadCode: telco.CodeParameterRequired},
		{Name: "OnlineLogins.Get",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.OnlineLogins.Get(ctx, ids.OnlineLoginSid)
				return err
			},
			// Its one rule is on the identifier itself.
			Bad: func(ctx context.Context, c *telco.Client, _ IDs) error {
				_, err := c.OnlineLogins.Get(ctx, "OL1")
				return err
			}, BadField: "OnlineLoginSid", BadCode: telco.CodeParameterInvalid},
		{Name: "OnlineLogins.List",
			Call: func(ctx context.Context, c *telco.Client, _ IDs, n bool) error {
				_, err := c.OnlineLogins.List(ctx, pick(n, &telco.ListParams{Count: 10}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, _ IDs) error {
				_, err := c.OnlineLogins.List(ctx, &telco.ListParams{Count: -1})
				return err
			}, BadField: "Results_Count", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.OnlineLogins.ListAll(ctx, &telco.ListParams{Count: -1}))
			}, AllField: "Results_Count", AllCode: telco.CodeParameterInvalid},
		{Name: "OnlineLogins.Update",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				return c.OnlineLogins.Update(ctx, ids.OnlineLoginSid, pick(n, &telco.UpdateOnlineLoginParams{FirstName: telco.Ptr("Janet"),
					LastName: telco.Ptr("Dee"), Enabled: telco.Ptr(false), Password: loginPassword2,
					Permissions: loginPermissions(ids)}))
			},
			Check: func(ctx context.Context, srv *telcotest.Server, ids IDs) error {
				l, err := srv.Client().OnlineLogins.Get(ctx, ids.OnlineLoginSid)
				if err != nil {
					return err
				}
				return errors.Join(same("the login's FirstName", l.FirstName, "Janet"), same("the login's LastName", l.LastName, "Dee"),
					same("the login's Enabled", l.Enabled, false), same("the login's Permissions", l.Permissions, loginPermissions(ids)))
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				return c.OnlineLogins.Update(ctx, ids.OnlineLoginSid, &telco.UpdateOnlineLoginParams{
					Permissions: []telco.Permission{{AccountSid: ids.AccountSid, PropertySid: ids.PropertySid, Scopes: telco.Scopes{telco.ScopeManage}}}})
			}, BadField: "Permissions[0].PropertySid", BadCode: telco.CodeConflictingParameters},

		// SIP trunks.
		{Name: "SipTrunks.Create",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				p := sipTrunk(ids)
				_, err := c.SipTrunks.Create(ctx, ids.PropertySid, pick(n, &p))
				return err
			},
			Effect:     telcotest.Counts{SipTrunks: 1},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				p := sipTrunk(ids)
				p.IPAddresses = []string{"10.0.0.1"}
				_, err := c.SipTrunks.Create(ctx, ids.PropertySid, &p)
				return err
			}, BadField: "SipTrunkIpAddresses[0].IpAddress", BadCode: telco.CodeParameterInvalid},
		{Name: "SipTrunks.List",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.SipTrunks.List(ctx, ids.PropertySid, pick(n, &telco.ListSipTrunksParams{Type: telco.Ptr(telco.SipTrunkIPToIP),
					Active: telco.Ptr(true), ProvisioningState: telco.Ptr(telco.ProvisioningActive), ListParams: telco.ListParams{Count: 5}}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.SipTrunks.List(ctx, ids.PropertySid, &telco.ListSipTrunksParams{Type: telco.Ptr(telco.SipTrunkType(7))})
				return err
			}, BadField: "Type", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.SipTrunks.ListAll(ctx, "", nil))
			}},
		{Name: "SipTrunks.GetByProperty", Paramless: true,
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.SipTrunks.GetByProperty(ctx, ids.PropertySid, ids.SipTrunkSid)
				return err
			}},
		{Name: "SipTrunks.GetByAccount", Paramless: true,
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.SipTrunks.GetByAccount(ctx, ids.AccountSid, ids.SipTrunkSid)
				return err
			}},
		{Name: "SipTrunks.Update",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				return c.SipTrunks.Update(ctx, ids.PropertySid, ids.SipTrunkSid, pick(n, &telco.UpdateSipTrunkParams{
					Name: telco.Ptr("Office PBX 2"), IPAddresses: []string{"20.36.65.0/24"}, AllowedCountries: []string{"au"},
					ChannelLimit: telco.Ptr(8)}))
			},
			Check: func(ctx context.Context, srv *telcotest.Server, ids IDs) error {
				tr, err := srv.Client().SipTrunks.GetByProperty(ctx, ids.PropertySid, ids.SipTrunkSid)
				if err != nil {
					return err
				}
				return errors.Join(same("the trunk's Name", tr.Name, "Office PBX 2"), same("the trunk's ChannelLimit", tr.ChannelLimit, 8))
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				return c.SipTrunks.Update(ctx, ids.PropertySid, ids.SipTrunkSid, &telco.UpdateSipTrunkParams{ChannelLimit: telco.Ptr(0)})
			}, BadField: "ChannelLimit", BadCode: telco.CodeParameterInvalid},
		{Name: "SipTrunks.UpdateByAccount",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				return c.SipTrunks.UpdateByAccount(ctx, ids.AccountSid, ids.SipTrunkSid, pick(n, &telco.UpdateSipTrunkParams{
					Name: telco.Ptr("PBX 2"), CustomerReference: telco.Ptr("PBX-2"), DefaultCallerID: telco.Ptr("+61299990000")}))
			},
			Check: func(ctx context.Context, srv *telcotest.Server, ids IDs) error {
				tr, err := srv.Client().SipTrunks.GetByAccount(ctx, ids.AccountSid, ids.SipTrunkSid)
				if err != nil {
					return err
				}
				return errors.Join(same("the trunk's Name", tr.Name, "PBX 2"),
					same("the trunk's CustomerReference", tr.CustomerReference, "PBX-2"))
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				return c.SipTrunks.UpdateByAccount(ctx, ids.AccountSid, ids.SipTrunkSid, &telco.UpdateSipTrunkParams{
					DefaultCallerID: telco.Ptr("+611800123456")})
			}, BadField: "DefaultCallerId", BadCode: telco.CodeParameterInvalid},

		// Porting.
		{Name: "Porting.Submit",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				p := portingRequest("+61299998888", "+61299998889")
				_, err := c.Porting.Submit(ctx, ids.PropertySid, pick(n, &p))
				return err
			},
			Effect:     telcotest.Counts{PortingRequests: 1},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				p := portingRequest("+61299998888", "+61299998889")
				p.PreferredPortSchedule = "Soon"
				_, err := c.Porting.Submit(ctx, ids.PropertySid, &p)
				return err
			}, BadField: "PreferredPortSchedule", BadCode: telco.CodeParameterInvalid},
		{Name: "Porting.StatusByProperty",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				from, to := window()
				_, err := c.Porting.StatusByProperty(ctx, ids.PropertySid, pick(n, &telco.PortingStatusParams{From: from, To: to,
					PortingRequestNumbers: []string{ids.PortingNo, "P-OTHER"}, ListParams: telco.ListParams{Count: 5}}))
				return err
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Porting.StatusByProperty(ctx, ids.PropertySid, &telco.PortingStatusParams{From: from})
				return err
			}, BadField: "To", BadCode: telco.CodeParameterRequired,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Porting.StatusByPropertyAll(ctx, "", nil))
			}},
		{Name: "Porting.StatusByAccount",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				from, to := window()
				_, err := c.Porting.StatusByAccount(ctx, ids.AccountSid, pick(n, &telco.PortingStatusParams{From: from, To: to}))
				return err
			},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Porting.StatusByAccount(ctx, ids.AccountSid, &telco.PortingStatusParams{To: to})
				return err
			}, BadField: "From", BadCode: telco.CodeParameterRequired,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Porting.StatusByAccountAll(ctx, "\t", nil))
			}},

		// Addresses.
		{Name: "Addresses.Create",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				p := address()
				_, err := c.Addresses.Create(ctx, ids.AccountSid, pick(n, &p))
				return err
			},
			Effect:     telcotest.Counts{Addresses: 1},
			NilRefused: true,
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				p := address()
				p.CountryCode = "A1"
				_, err := c.Addresses.Create(ctx, ids.AccountSid, &p)
				return err
			}, BadField: "CountryCode", BadCode: telco.CodeParameterInvalid},
		{Name: "Addresses.Delete", Paramless: true,
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				return c.Addresses.Delete(ctx, ids.AddressSid)
			},
			Effect: telcotest.Counts{Addresses: -1}},
		{Name: "Addresses.List",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Addresses.List(ctx, ids.AccountSid, pick(n, &telco.ListAddressesParams{City: "Sydney", CountryCode: "AU",
					ListParams: telco.ListParams{Count: 10}}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Addresses.List(ctx, ids.AccountSid, &telco.ListAddressesParams{CountryCode: "Australia"})
				return err
			}, BadField: "CountryCode", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Addresses.ListAll(ctx, "", nil))
			}},
		{Name: "Addresses.Get", Paramless: true,
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.Addresses.Get(ctx, ids.AddressSid)
				return err
			}},

		// Flows and calls.
		{Name: "Flows.List",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Flows.List(ctx, ids.PropertySid, pick(n, &telco.ListParams{Count: 5}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Flows.List(ctx, ids.PropertySid, &telco.ListParams{Count: -1})
				return err
			}, BadField: "Results_Count", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Flows.ListAll(ctx, " ", nil))
			}},
		{Name: "Calls.Get", Paramless: true,
			Call: func(ctx context.Context, c *telco.Client, ids IDs, _ bool) error {
				_, err := c.Calls.Get(ctx, ids.CallSid)
				return err
			}},
		{Name: "Calls.ListByProperty",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				from, to := window()
				_, err := c.Calls.ListByProperty(ctx, ids.PropertySid, pick(n, &telco.ListCallsParams{DateFrom: from, DateTo: to,
					Dispositions: []telco.CallDisposition{telco.CallAnswered, telco.CallIVR}, To: []string{"+61299990000"},
					Endpoints: []string{"+61299990001"}, AttributionSources: []string{"google"}, AttributionMediums: []string{"cpc"},
					AttributionCampaigns: []string{"spring", "winter"}, AttributionContents: []string{"ad1"},
					PromptKeys: [][]string{{"1", "2"}, {"3"}}, Unique: telco.UniqueAll}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Calls.ListByProperty(ctx, ids.PropertySid, &telco.ListCallsParams{Dispositions: []telco.CallDisposition{"Hungup"}})
				return err
			}, BadField: "Disposition", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Calls.ListByPropertyAll(ctx, "", nil))
			}},
		{Name: "Calls.ListByAccount",
			Call: func(ctx context.Context, c *telco.Client, ids IDs, n bool) error {
				_, err := c.Calls.ListByAccount(ctx, ids.AccountSid, pick(n, &telco.ListCallsParams{
					Dispositions: []telco.CallDisposition{telco.CallAnswered}}))
				return err
			},
			Bad: func(ctx context.Context, c *telco.Client, ids IDs) error {
				_, err := c.Calls.ListByAccount(ctx, ids.AccountSid, &telco.ListCallsParams{PromptKeys: [][]string{{"1", "x"}}})
				return err
			}, BadField: "Prompts_keys", BadCode: telco.CodeParameterInvalid,
			All: func(ctx context.Context, c *telco.Client, ids IDs) []error {
				return errsOf(c.Calls.ListByAccountAll(ctx, ids.AccountSid, &telco.ListCallsParams{DateFrom: to, DateTo: from}))
			}, AllField: "Date_To", AllCode: telco.CodeParameterInvalid},
	}
}

// loginPermissions are the permissions OnlineLogins.Update's fixture
// gives: the account's reporting and management, one project's reporting.
func loginPermissions(ids IDs) []telco.Permission {
	return []telco.Permission{{AccountSid: ids.AccountSid, Scopes: telco.Scopes{telco.ScopeManage, telco.ScopeReporting}},
		{PropertySid: ids.PropertySid, Scopes: telco.Scopes{telco.ScopeReporting}}}
}

// sipTrunk is a valid IP-to-IP trunk with every optional field given.
func sipTrunk(ids IDs) telco.CreateSipTrunkParams {
	return telco.CreateSipTrunkParams{Name: "Office PBX", DefaultCallerID: ids.Number, Type: telco.SipTrunkIPToIP,
		IPAddresses: []string{"20.36.64.0/24", "52.62.10.7"}, AllowedCountries: []string{"au", "NZ"}, ChannelLimit: 4,
		CustomerReference: "PBX-1"}
}

// portingRequest is a valid porting request of two numbers on a date two
// weeks ahead, the first answered at a number, the second routed to a
// flow.
func portingRequest(first, second string) telco.PortingRequestParams {
	return telco.PortingRequestParams{AuthorisedContactName: "Jane Doe", AuthorisedContactEmail: "jane@example.com",
		DaytimeContactNumber: "+61299990000", CurrentCarrier: "Telstra", CurrentCarrierAccountNo: "12345",
		PreferredPortSchedule: telco.PortOnDate, PreferredPortDate: time.Now().AddDate(0, 0, 14),
		CustomerDescription: "Office numbers", WebhookURL: "https://hooks.example.com/porting",
		PortingNumbers: []telco.PortingNumberParams{
			{Number: first, PortType: telco.PortTypeCatA, PortAddress: "1 George St Sydney",
				IncomingActionType: telco.IncomingAnsweringPoint, IncomingAnswerPoint: "+61299990001"},
			{Number: second, PortType: telco.PortTypeCatA, PortAddress: "1 George St Sydney",
				IncomingActionType: telco.IncomingFlow, IncomingActionID: "flow-1"},
		}}
}

// address is a valid address with every optional field given.
func address() telco.CreateAddressParams {
	return telco.CreateAddressParams{Line1: "1 George St", City: "Sydney", CountryCode: "au", Region: "NSW",
		PostalCode: "2000", Friendly: "Head office", Reference: "HQ"}
}
