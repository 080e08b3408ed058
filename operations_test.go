package telco

import (
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// operation is one method of one service, as the every-operation tests
// call it. Each method refuses bad input before any request with a
// *ValidationError named after it: an empty path identifier and missing
// required params always (validation on or off), a broken rule when
// validation is on.
type operation struct {
	op string
	// ids are the wire names of the method's path identifiers, in argument
	// order.
	ids []string
	// blank are further values that leave the first identifier empty.
	blank []string
	// call calls the method with these identifiers and, unless nilParams,
	// params that pass every rule. Methods without params ignore nilParams.
	call func(c *Client, id []string, nilParams bool) error
	// nilRefused: a call without params is refused, naming nilField ("" for
	// the params as a whole).
	nilRefused bool
	nilField   string
	// bad breaks one rule of the method; field and code are what it names.
	bad       func(c *Client) error
	badField  string
	badCode   string
	paramless bool // the method takes no params, so has no rule to break
	// all runs the method's ...All twin on input it refuses; the single
	// error it yields names allField (default: the first identifier) with
	// allCode (default: PARAMETER_REQUIRED).
	all      func(c *Client) []error
	allField string
	allCode  string
}

// validIDs are path identifiers the rules accept, by wire name.
var validIDs = map[string]string{
	"AccountSid": testSid, "PropertySid": testProp, "Text": "Spring", "Number": "+61299999999",
	"MessageSid": "MG1", "OnlineLoginSid": "3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c40",
	"SipTrunkSid": "ST1", "AddressSid": "AD1", "CallSid": "CA1", "NumberBlockSid": "NB1",
}

// errsOf runs seq and returns the errors it yields, stopping after a few
// so that a runaway iterator cannot hang the test.
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

// pick returns p, or nil when nilParams.
func pick[T any](nilParams bool, p *T) *T {
	if nilParams {
		return nil
	}
	return p
}

func operations() []operation {
	from, to := time.Unix(1_700_000_000, 0), time.Unix(1_700_086_400, 0)
	blockList := &NumberBlockListParams{PageSize: 5}
	return []operation{
		{op: "NumberBlocks.Search",
			call: func(c *Client, _ []string, n bool) error {
				_, err := c.NumberBlocks.Search(bg, pick(n, &NumberBlockSearchParams{PropertySid: testProp}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.NumberBlocks.Search(bg, &NumberBlockSearchParams{})
				return err
			}, badField: "AccountSid", badCode: CodeParameterRequired,
			all:      func(c *Client) []error { return errsOf(c.NumberBlocks.SearchAll(bg, nil)) },
			allField: "AccountSid"},
		{op: "NumberBlocks.SearchText", ids: []string{"Text"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.NumberBlocks.SearchText(bg, id[0], pick(n, blockList))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.NumberBlocks.SearchText(bg, "Spring", &NumberBlockListParams{SortDir: "up"})
				return err
			}, badField: "SortDir", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.NumberBlocks.SearchTextAll(bg, "", nil)) }},
		{op: "NumberBlocks.ListByProperty", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.NumberBlocks.ListByProperty(bg, id[0], pick(n, blockList))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.NumberBlocks.ListByProperty(bg, testProp, &NumberBlockListParams{PageSize: -1})
				return err
			}, badField: "PageSize", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.NumberBlocks.ListByPropertyAll(bg, "", nil)) }},
		{op: "NumberBlocks.ListByAccount", ids: []string{"AccountSid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.NumberBlocks.ListByAccount(bg, id[0], pick(n, blockList))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.NumberBlocks.ListByAccount(bg, testSid, &NumberBlockListParams{PageIndex: -1})
				return err
			}, badField: "PageIndex", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.NumberBlocks.ListByAccountAll(bg, " ", nil)) }},
		{op: "Numbers.Configure", ids: []string{"Number"}, blank: []string{"+"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Numbers.Configure(bg, id[0], pick(n, &NumberConfigParams{Recording: RecordingOff}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Numbers.Configure(bg, "+61299999999", &NumberConfigParams{RoutingMethod: "Phone"})
				return err
			}, badField: "RoutingMethod", badCode: CodeParameterInvalid},
		{op: "Messages.Send", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Messages.Send(bg, id[0], pick(n, &SendMessageParams{From: "Acme", To: "+61499999999", Text: "hi"}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.Messages.Send(bg, testProp, &SendMessageParams{To: "0412345678", Text: "hi"})
				return err
			}, badField: "To", badCode: CodeInvalidPhoneNumberFormat},
		{op: "Messages.SendBatch", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				msgs := []SendMessageParams{{To: "+61499999999", Text: "hi"}}
				if n {
					msgs = nil
				}
				_, err := c.Messages.SendBatch(bg, id[0], msgs)
				return err
			},
			// A message that breaks a rule is refused in its BatchResult,
			// not with a *ValidationError (messages_test.go tests that).
			nilRefused: true, nilField: "Messages", paramless: true},
		{op: "Messages.SendOnce", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Messages.SendOnce(bg, id[0], pick(n, &SendMessageParams{From: "Acme", To: "+61499999999", Text: "hi", ExternalID: "x1"}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.Messages.SendOnce(bg, testProp, &SendMessageParams{To: "0412345678", Text: "hi", ExternalID: "x1"})
				return err
			}, badField: "To", badCode: CodeInvalidPhoneNumberFormat},
		{op: "Messages.SendBatchOnce", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				msgs := []SendMessageParams{{To: "+61499999999", Text: "hi", ExternalID: "x1"}}
				if n {
					msgs = nil
				}
				_, err := c.Messages.SendBatchOnce(bg, id[0], msgs)
				return err
			},
			nilRefused: true, nilField: "Messages",
			bad: func(c *Client) error {
				_, err := c.Messages.SendBatchOnce(bg, testProp, []SendMessageParams{{To: "+61499999999", Text: "hi"}})
				return err
			}, badField: "Messages[0].ExternalId", badCode: CodeParameterRequired},
		{op: "Messages.FindByExternalID", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Messages.FindByExternalID(bg, id[0], from, "x1")
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Messages.FindByExternalID(bg, testProp, time.Time{}, "x1")
				return err
			}, badField: "since", badCode: CodeParameterRequired},
		{op: "Messages.ListByExternalID", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Messages.ListByExternalID(bg, id[0], from, "x1")
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Messages.ListByExternalID(bg, testProp, from)
				return err
			}, badField: "ExternalId", badCode: CodeParameterRequired},
		{op: "Messages.Find", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Messages.Find(bg, id[0], pick(n, &FindMessagesParams{DateFrom: from, DateTo: to}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.Messages.Find(bg, testProp, &FindMessagesParams{DateFrom: to, DateTo: from})
				return err
			}, badField: "Date_To", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.Messages.FindAll(bg, "", nil)) }},
		{op: "Messages.Get", ids: []string{"MessageSid"}, paramless: true,
			call: func(c *Client, id []string, _ bool) error { _, err := c.Messages.Get(bg, id[0]); return err }},
		{op: "Properties.Create",
			call: func(c *Client, _ []string, n bool) error {
				_, err := c.Properties.Create(bg, pick(n, &CreatePropertyParams{Name: "n", MainDomain: "d.example", TimeZone: "UTC"}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.Properties.Create(bg, &CreatePropertyParams{MainDomain: "d.example", TimeZone: "UTC"})
				return err
			}, badField: "Name", badCode: CodeParameterRequired},
		{op: "Properties.Get", ids: []string{"PropertySid"}, paramless: true,
			call: func(c *Client, id []string, _ bool) error { _, err := c.Properties.Get(bg, id[0]); return err }},
		{op: "Properties.List",
			call: func(c *Client, _ []string, n bool) error {
				_, err := c.Properties.List(bg, pick(n, &ListParams{Count: 5}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Properties.List(bg, &ListParams{Skip: -1})
				return err
			}, badField: "Results_Skip", badCode: CodeParameterInvalid,
			all:      func(c *Client) []error { return errsOf(c.Properties.ListAll(bg, &ListParams{Skip: -1})) },
			allField: "Results_Skip", allCode: CodeParameterInvalid},
		{op: "Properties.Update", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				return c.Properties.Update(bg, id[0], pick(n, &UpdatePropertyParams{Name: Ptr("n")}))
			},
			nilRefused: true,
			bad: func(c *Client) error {
				return c.Properties.Update(bg, testProp, &UpdatePropertyParams{MainDomain: Ptr(" ")})
			}, badField: "MainDomain", badCode: CodeParameterInvalid},
		{op: "OnlineLogins.Create", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				p := onlineLoginValidParams()
				_, err := c.OnlineLogins.Create(bg, id[0], pick(n, &p))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				p := onlineLoginValidParams()
				p.Scopes = nil
				_, err := c.OnlineLogins.Create(bg, testProp, &p)
				return err
			}, badField: "Scopes", badCode: CodeParameterRequired},
		{op: "OnlineLogins.Get", ids: []string{"OnlineLoginSid"},
			call: func(c *Client, id []string, _ bool) error { _, err := c.OnlineLogins.Get(bg, id[0]); return err },
			// Its one rule is on the identifier itself.
			bad: func(c *Client) error {
				_, err := c.OnlineLogins.Get(bg, "OL1")
				return err
			}, badField: "OnlineLoginSid", badCode: CodeParameterInvalid},
		{op: "OnlineLogins.List",
			call: func(c *Client, _ []string, n bool) error {
				_, err := c.OnlineLogins.List(bg, pick(n, &ListParams{Count: 5}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.OnlineLogins.List(bg, &ListParams{Count: -1})
				return err
			}, badField: "Results_Count", badCode: CodeParameterInvalid,
			all:      func(c *Client) []error { return errsOf(c.OnlineLogins.ListAll(bg, &ListParams{Count: -1})) },
			allField: "Results_Count", allCode: CodeParameterInvalid},
		{op: "SipTrunks.Create", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				p := sipTrunkIPParams()
				_, err := c.SipTrunks.Create(bg, id[0], pick(n, &p))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				p := sipTrunkIPParams()
				p.IPAddresses = []string{"10.0.0.1"}
				_, err := c.SipTrunks.Create(bg, testProp, &p)
				return err
			}, badField: "SipTrunkIpAddresses[0].IpAddress", badCode: CodeParameterInvalid},
		{op: "SipTrunks.List", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.SipTrunks.List(bg, id[0], pick(n, &ListSipTrunksParams{Active: Ptr(true)}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.SipTrunks.List(bg, testProp, &ListSipTrunksParams{Type: Ptr(SipTrunkType(7))})
				return err
			}, badField: "Type", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.SipTrunks.ListAll(bg, "", nil)) }},
		{op: "SipTrunks.GetByProperty", ids: []string{"PropertySid", "SipTrunkSid"}, paramless: true,
			call: func(c *Client, id []string, _ bool) error {
				_, err := c.SipTrunks.GetByProperty(bg, id[0], id[1])
				return err
			}},
		{op: "SipTrunks.GetByAccount", ids: []string{"AccountSid", "SipTrunkSid"}, paramless: true,
			call: func(c *Client, id []string, _ bool) error {
				_, err := c.SipTrunks.GetByAccount(bg, id[0], id[1])
				return err
			}},
		{op: "Porting.Submit", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				p := portingValidParams()
				_, err := c.Porting.Submit(bg, id[0], pick(n, &p))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				p := portingValidParams()
				p.PreferredPortSchedule = "Soon"
				_, err := c.Porting.Submit(bg, testProp, &p)
				return err
			}, badField: "PreferredPortSchedule", badCode: CodeParameterInvalid},
		{op: "Porting.StatusByProperty", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Porting.StatusByProperty(bg, id[0], pick(n, &PortingStatusParams{From: from, To: to}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.Porting.StatusByProperty(bg, testProp, &PortingStatusParams{From: from})
				return err
			}, badField: "To", badCode: CodeParameterRequired,
			all: func(c *Client) []error { return errsOf(c.Porting.StatusByPropertyAll(bg, "", nil)) }},
		{op: "Porting.StatusByAccount", ids: []string{"AccountSid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Porting.StatusByAccount(bg, id[0], pick(n, &PortingStatusParams{From: from, To: to}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.Porting.StatusByAccount(bg, testSid, &PortingStatusParams{To: to})
				return err
			}, badField: "From", badCode: CodeParameterRequired,
			all: func(c *Client) []error { return errsOf(c.Porting.StatusByAccountAll(bg, "\t", nil)) }},
		{op: "Addresses.Create", ids: []string{"AccountSid"},
			call: func(c *Client, id []string, n bool) error {
				p := addressValidParams()
				_, err := c.Addresses.Create(bg, id[0], pick(n, &p))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				p := addressValidParams()
				p.CountryCode = "A1"
				_, err := c.Addresses.Create(bg, testSid, &p)
				return err
			}, badField: "CountryCode", badCode: CodeParameterInvalid},
		{op: "Addresses.Delete", ids: []string{"AddressSid"}, paramless: true,
			call: func(c *Client, id []string, _ bool) error { return c.Addresses.Delete(bg, id[0]) }},
		{op: "Addresses.List", ids: []string{"AccountSid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Addresses.List(bg, id[0], pick(n, &ListAddressesParams{City: "Sydney"}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Addresses.List(bg, testSid, &ListAddressesParams{CountryCode: "Australia"})
				return err
			}, badField: "CountryCode", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.Addresses.ListAll(bg, "", nil)) }},
		{op: "Addresses.Get", ids: []string{"AddressSid"}, paramless: true,
			call: func(c *Client, id []string, _ bool) error { _, err := c.Addresses.Get(bg, id[0]); return err }},
		{op: "Flows.List", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Flows.List(bg, id[0], pick(n, &ListParams{Count: 5}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Flows.List(bg, testProp, &ListParams{Count: -1})
				return err
			}, badField: "Results_Count", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.Flows.ListAll(bg, " ", nil)) }},
		{op: "Numbers.Get", ids: []string{"Number"}, blank: []string{"+"},
			call: func(c *Client, id []string, _ bool) error { _, err := c.Numbers.Get(bg, id[0]); return err },
			// Its one rule is on the identifier itself.
			bad: func(c *Client) error {
				_, err := c.Numbers.Get(bg, "0299999999")
				return err
			}, badField: "Number", badCode: CodeInvalidPhoneNumberFormat},
		{op: "Numbers.ListByProperty", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Numbers.ListByProperty(bg, id[0], pick(n, &ListNumbersParams{Types: []NumberType{NumberLocal}}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Numbers.ListByProperty(bg, testProp, &ListNumbersParams{ListParams: ListParams{Count: 201}})
				return err
			}, badField: "Results_Count", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.Numbers.ListByPropertyAll(bg, "", nil)) }},
		{op: "Numbers.ListByAccount", ids: []string{"AccountSid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Numbers.ListByAccount(bg, id[0], pick(n, &ListNumbersParams{Capabilities: []NumberCapability{CapabilitySMS}}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Numbers.ListByAccount(bg, testSid, &ListNumbersParams{Capabilities: []NumberCapability{"Fax"}})
				return err
			}, badField: "Capabilites", badCode: CodeParameterInvalid,
			all: func(c *Client) []error {
				return errsOf(c.Numbers.ListByAccountAll(bg, testSid, &ListNumbersParams{Types: []NumberType{"Mobile"}}))
			},
			allField: "Type", allCode: CodeParameterInvalid},
		{op: "Numbers.Purchase", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Numbers.Purchase(bg, id[0], pick(n, &PurchaseNumberParams{Number: "+61299990001"}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.Numbers.Purchase(bg, testProp, &PurchaseNumberParams{Number: "0299990001"})
				return err
			}, badField: "Number", badCode: CodeInvalidPhoneNumberFormat},
		{op: "Calls.Get", ids: []string{"CallSid"}, paramless: true,
			call: func(c *Client, id []string, _ bool) error { _, err := c.Calls.Get(bg, id[0]); return err }},
		{op: "Calls.ListByProperty", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Calls.ListByProperty(bg, id[0], pick(n, &ListCallsParams{DateFrom: from, DateTo: to}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Calls.ListByProperty(bg, testProp, &ListCallsParams{Dispositions: []CallDisposition{"Hungup"}})
				return err
			}, badField: "Disposition", badCode: CodeParameterInvalid,
			all: func(c *Client) []error { return errsOf(c.Calls.ListByPropertyAll(bg, "", nil)) }},
		{op: "Calls.ListByAccount", ids: []string{"AccountSid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.Calls.ListByAccount(bg, id[0], pick(n, &ListCallsParams{Token: "t1"}))
				return err
			},
			bad: func(c *Client) error {
				_, err := c.Calls.ListByAccount(bg, testSid, &ListCallsParams{PromptKeys: [][]string{{"1", "x"}}})
				return err
			}, badField: "Prompts_keys", badCode: CodeParameterInvalid,
			all: func(c *Client) []error {
				return errsOf(c.Calls.ListByAccountAll(bg, testSid, &ListCallsParams{DateFrom: to, DateTo: from}))
			},
			allField: "Date_To", allCode: CodeParameterInvalid},
		{op: "OnlineLogins.Update", ids: []string{"OnlineLoginSid"},
			call: func(c *Client, id []string, n bool) error {
				return c.OnlineLogins.Update(bg, id[0], pick(n, &UpdateOnlineLoginParams{Enabled: Ptr(true)}))
			},
			nilRefused: true,
			bad: func(c *Client) error {
				return c.OnlineLogins.Update(bg, validIDs["OnlineLoginSid"], &UpdateOnlineLoginParams{
					Permissions: []Permission{{AccountSid: testSid, PropertySid: testProp, Scopes: Scopes{ScopeManage}}}})
			}, badField: "Permissions[0].PropertySid", badCode: CodeConflictingParameters},
		{op: "SipTrunks.Update", ids: []string{"PropertySid", "SipTrunkSid"},
			call: func(c *Client, id []string, n bool) error {
				return c.SipTrunks.Update(bg, id[0], id[1], pick(n, &UpdateSipTrunkParams{Name: Ptr("PBX")}))
			},
			nilRefused: true,
			bad: func(c *Client) error {
				return c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{ChannelLimit: Ptr(0)})
			}, badField: "ChannelLimit", badCode: CodeParameterInvalid},
		{op: "SipTrunks.UpdateByAccount", ids: []string{"AccountSid", "SipTrunkSid"},
			call: func(c *Client, id []string, n bool) error {
				return c.SipTrunks.UpdateByAccount(bg, id[0], id[1], pick(n, &UpdateSipTrunkParams{Name: Ptr("PBX")}))
			},
			nilRefused: true,
			bad: func(c *Client) error {
				return c.SipTrunks.UpdateByAccount(bg, testSid, "ST1", &UpdateSipTrunkParams{DefaultCallerID: Ptr("+611800123456")})
			}, badField: "DefaultCallerId", badCode: CodeParameterInvalid},
		{op: "NumberBlocks.Purchase", ids: []string{"PropertySid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.NumberBlocks.Purchase(bg, id[0], pick(n, &PurchaseNumberBlockParams{AnswerPoint: "0299990000"}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{})
				return err
			}, badField: "AnswerPoint", badCode: CodeParameterRequired},
		{op: "NumberBlocks.Configure", ids: []string{"NumberBlockSid"},
			call: func(c *Client, id []string, n bool) error {
				_, err := c.NumberBlocks.Configure(bg, id[0], pick(n, &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F1"}))
				return err
			},
			nilRefused: true,
			bad: func(c *Client) error {
				_, err := c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingEndpoint})
				return err
			}, badField: "EndpointNumber", badCode: CodeParameterRequired},
		{op: "Lookup.NumberDetails",
			call: func(c *Client, _ []string, n bool) error {
				numbers := []string{"0299999999"}
				if n {
					numbers = nil
				}
				_, err := c.Lookup.NumberDetails(bg, numbers...)
				return err
			},
			nilRefused: true, nilField: "Numbers",
			bad: func(c *Client) error {
				_, err := c.Lookup.NumberDetails(bg, "0299999999", "abc")
				return err
			}, badField: "Numbers[1]", badCode: CodeInvalidPhoneNumberFormat},
	}
}

// TestEveryOperationRefusesBeforeSending: every method names itself in a
// *ValidationError and sends nothing when a path identifier is empty (even
// with params missing too, and with validation off), when required params
// are missing (validation on or off), and when params break a rule.
func TestEveryOperationRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	for _, o := range operations() {
		t.Run(o.op, func(t *testing.T) {
			t.Parallel()
			for _, validate := range []bool{true, false} {
				for k, name := range o.ids {
					blanks := []string{"", " \t"}
					if k == 0 {
						blanks = append(blanks, o.blank...)
					}
					for _, blank := range blanks {
						for _, nilParams := range []bool{false, true} {
							t.Run(fmt.Sprintf("validation %v %s %q nil params %v", validate, name, blank, nilParams), func(t *testing.T) {
								c, mt := newMockClient(t, WithClientValidation(validate))
								id := make([]string, len(o.ids))
								for i, n := range o.ids {
									id[i] = validIDs[n]
								}
								id[k] = blank
								requireValidation(t, mt, o.call(c, id, nilParams), o.op, name, CodeParameterRequired)
							})
						}
					}
				}
				if o.nilRefused {
					t.Run(fmt.Sprintf("validation %v nil params", validate), func(t *testing.T) {
						c, mt := newMockClient(t, WithClientValidation(validate))
						id := make([]string, len(o.ids))
						for i, n := range o.ids {
							id[i] = validIDs[n]
						}
						requireValidation(t, mt, o.call(c, id, true), o.op, o.nilField, CodeParameterRequired)
					})
				}
			}
			if o.bad != nil {
				t.Run("a broken rule", func(t *testing.T) {
					c, mt := newMockClient(t)
					requireValidation(t, mt, o.bad(c), o.op, o.badField, o.badCode)
				})
			}
			if o.all != nil {
				t.Run("the All twin", func(t *testing.T) {
					c, mt := newMockClient(t)
					errs := o.all(c)
					require.Len(t, errs, 1, "the refusal is yielded once")
					field, code := o.allField, o.allCode
					if field == "" {
						field = o.ids[0]
					}
					if code == "" {
						code = CodeParameterRequired
					}
					requireValidation(t, mt, errs[0], o.op, field, code)
				})
			}
		})
	}
}

// TestOperationTableCoversEveryMethod keeps the table complete: every
// method of every service on Client is a row named Service.Method, every
// ...All twin is exercised with its method, and every row says which rule
// it breaks or that the method has none.
func TestOperationTableCoversEveryMethod(t *testing.T) {
	t.Parallel()
	var methods, twins []string
	ct := reflect.TypeFor[Client]()
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			continue
		}
		for j := 0; j < f.Type.NumMethod(); j++ {
			name := f.Type.Method(j).Name
			if base, ok := strings.CutSuffix(name, "All"); ok {
				twins = append(twins, f.Name+"."+base)
			} else {
				methods = append(methods, f.Name+"."+name)
			}
		}
	}
	require.NotEmpty(t, methods)
	var ops, withAll []string
	for _, o := range operations() {
		ops = append(ops, o.op)
		if o.all != nil {
			withAll = append(withAll, o.op)
		}
		assert.True(t, o.bad != nil || o.paramless, "%s: say which rule it breaks, or mark it paramless", o.op)
		assert.False(t, o.bad != nil && o.paramless, "%s: paramless with a rule to break", o.op)
		for _, n := range o.ids {
			assert.Contains(t, validIDs, n, "%s: no valid value for %s", o.op, n)
		}
	}
	assert.ElementsMatch(t, methods, ops)
	assert.ElementsMatch(t, twins, withAll)
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
		{"NumberBlocks.Search", &NumberBlockSearchParams{}, (*NumberBlockSearchParams)(nil), false, "AccountSid"},
		{"NumberBlocks.ListByProperty", &NumberBlockListParams{SortDir: "up"}, (*NumberBlockListParams)(nil), true, "SortDir"},
		{"Numbers.Configure", &NumberConfigParams{Recording: "On"}, (*NumberConfigParams)(nil), true, "Recording"},
		{"Messages.Send", &SendMessageParams{To: "+61499999999"}, (*SendMessageParams)(nil), false, "Text"},
		{"Messages.Find", &FindMessagesParams{DateTo: time.Now()}, (*FindMessagesParams)(nil), false, "Date_From"},
		{"Properties.Create", &CreatePropertyParams{Name: "n", MainDomain: "d.example"}, (*CreatePropertyParams)(nil), false, "TimeZone"},
		{"Properties.Update", &UpdatePropertyParams{TimeZone: Ptr("")}, (*UpdatePropertyParams)(nil), false, "TimeZone"},
		{"OnlineLogins.Create", &CreateOnlineLoginParams{}, (*CreateOnlineLoginParams)(nil), false, "Email"},
		{"SipTrunks.Create", &CreateSipTrunkParams{}, (*CreateSipTrunkParams)(nil), false, "Name"},
		{"SipTrunks.List", &ListSipTrunksParams{ListParams: ListParams{Skip: -1}}, (*ListSipTrunksParams)(nil), true, "Results_Skip"},
		{"Porting.Submit", &PortingRequestParams{}, (*PortingRequestParams)(nil), false, "AuthorisedContactName"},
		{"Porting.StatusByProperty", &PortingStatusParams{}, (*PortingStatusParams)(nil), false, "From"},
		{"Addresses.Create", &CreateAddressParams{}, (*CreateAddressParams)(nil), false, "Line1"},
		{"OnlineLogins.Update", &UpdateOnlineLoginParams{FirstName: Ptr("")}, (*UpdateOnlineLoginParams)(nil), false, "FirstName"},
		{"SipTrunks.Update", &UpdateSipTrunkParams{Name: Ptr("")}, (*UpdateSipTrunkParams)(nil), false, "Name"},
		{"NumberBlocks.Purchase", &PurchaseNumberBlockParams{}, (*PurchaseNumberBlockParams)(nil), false, "AnswerPoint"},
		{"NumberBlocks.Configure", &ConfigureNumberBlockParams{}, (*ConfigureNumberBlockParams)(nil), false, "RoutingMethod"},
		{"Addresses.List", &ListAddressesParams{CountryCode: "1"}, (*ListAddressesParams)(nil), true, "CountryCode"},
		{"Numbers.ListByProperty", &ListNumbersParams{Types: []NumberType{"Mobile"}}, (*ListNumbersParams)(nil), true, "Type"},
		{"Numbers.Purchase", &PurchaseNumberParams{}, (*PurchaseNumberParams)(nil), false, "Number"},
		{"Calls.ListByProperty", &ListCallsParams{To: []string{"a,b"}}, (*ListCallsParams)(nil), true, "To"},
	} {
		t.Run(tc.op, func(t *testing.T) {
			var ve *ValidationError
			require.ErrorAs(t, tc.bad.Validate(), &ve)
			assert.Equal(t, tc.op, ve.Op)
			assert.True(t, slices.ContainsFunc(ve.Fields, func(f FieldError) bool { return f.FieldName == tc.field }),
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
