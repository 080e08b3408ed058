// Package catalog is the one list of the service's operations as this
// project calls them: the SDK's method for each (its name in errors, logs,
// telcotest's Fault.Op, CallInfo and the OpenAPI contract's operationId),
// its HTTP method and path, and whether repeating it is harmless. Nothing
// else writes the list out: the SDK's methods are held to their rows by a
// test (catalog_test.go at the repository root), telcotest's routes take
// their method and path from here and a test fails for a row without a
// handler, the CLI's commands name their operations (an "operation"
// annotation) and cmd/telco's TestEveryOperationHasACommand fails for a
// row without a command, and the contract's operationIds are checked
// against it. Adding an operation starts with a row here; the tests then
// name every other piece that is missing (CONTRIBUTING.md, "Adding an
// operation").
package catalog

import (
	"sort"
	"strings"
)

// Operation is one operation of the service.
type Operation struct {
	// Name is "Service.Method": the SDK method that calls it.
	Name string
	// Method and Path are the HTTP method and the path pattern, each path
	// identifier a {Name} segment with its wire name.
	Method, Path string
	// Idempotent says that repeating the request is harmless, so that a
	// failure after it may have reached the service is retried.
	Idempotent bool
	// Source is where the operation is documented: "op N" for an
	// operation of the interface document, else the service's page.
	Source string
	// NoCommand, when set, says why the CLI has no command for the
	// operation; a row without it needs one.
	NoCommand string
}

// Service is the part of Name before the dot: the Client's field.
func (o Operation) Service() string { s, _, _ := strings.Cut(o.Name, "."); return s }

// Verb is the part of Name after the dot: the method.
func (o Operation) Verb() string { _, v, _ := strings.Cut(o.Name, "."); return v }

// IDs are the path identifiers, in order: the SDK method's arguments
// before its params.
func (o Operation) IDs() []string {
	var out []string
	for _, seg := range strings.Split(strings.Trim(o.Path, "/"), "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, seg[1:len(seg)-1])
		}
	}
	return out
}

// Operations returns every operation, in the order of the interface
// document and then the service's other pages. The slice is the caller's.
func Operations() []Operation { return append([]Operation(nil), operations...) }

// Lookup returns the operation of that name.
func Lookup(name string) (Operation, bool) {
	for _, o := range operations {
		if o.Name == name {
			return o, true
		}
	}
	return Operation{}, false
}

// Names returns every operation's name, sorted.
func Names() []string {
	out := make([]string, len(operations))
	for i, o := range operations {
		out[i] = o.Name
	}
	sort.Strings(out)
	return out
}

// Service is one of the Client's services.
type Service struct {
	// Name is the Client's field, the services' type prefix
	// (MessagesService, MessagesAPI) and the prefix of its operations.
	Name string
	// Summary says what it is for, in a few words, for generated docs.
	Summary string
}

// Services returns the services, in the Client's order.
func Services() []Service { return append([]Service(nil), services...) }

var services = []Service{
	{"NumberBlocks", "search number blocks, buy and route them"},
	{"Numbers", "configure a number (routing, recording, attribution, SMS forwarding, webhooks), read, list and buy numbers"},
	{"Messages", "send SMS (once, by ExternalId, with SendOnce), batch-send, find and read them"},
	{"Properties", "create, read, list and update projects"},
	{"OnlineLogins", "create, read, list and update portal logins"},
	{"SipTrunks", "create, list, read and update SIP trunks"},
	{"Porting", "submit number porting requests and follow their status"},
	{"Addresses", "add, list, read and remove an account's addresses"},
	{"Lookup", "carrier and porting details of phone numbers"},
	{"Flows", "a project's call flows, which numbers can be routed to"},
	{"Calls", "read and follow calls"},
}

var operations = []Operation{
	{Name: "NumberBlocks.Search", Method: "GET", Path: "/v2/numberblocks", Idempotent: true, Source: "op 1"},
	{Name: "NumberBlocks.SearchText", Method: "GET", Path: "/v2/numberblocks/{Text}", Idempotent: true, Source: "op 2"},
	{Name: "NumberBlocks.ListByProperty", Method: "GET", Path: "/v2/Properties/{PropertySid}/numberblocks", Idempotent: true, Source: "op 2"},
	{Name: "NumberBlocks.ListByAccount", Method: "GET", Path: "/v2/Accounts/{AccountSid}/numberblocks", Idempotent: true, Source: "op 2"},
	{Name: "Numbers.Configure", Method: "POST", Path: "/v2/Numbers/{Number}", Idempotent: true, Source: "op 3"},
	{Name: "OnlineLogins.Create", Method: "POST", Path: "/v2/Properties/{PropertySid}/OnlineLogins", Source: "op 4"},
	{Name: "OnlineLogins.List", Method: "GET", Path: "/v2/OnlineLogins", Idempotent: true, Source: "op 5"},
	{Name: "OnlineLogins.Get", Method: "GET", Path: "/v2/OnlineLogins/{OnlineLoginSid}", Idempotent: true, Source: "op 5"},
	{Name: "Messages.Send", Method: "POST", Path: "/v2/Properties/{PropertySid}/Messages", Source: "op 6"},
	{Name: "Messages.SendBatch", Method: "POST", Path: "/v2/Properties/{PropertySid}/BatchMessages", Source: "op 7"},
	{Name: "Messages.Find", Method: "GET", Path: "/v2/Properties/{PropertySid}/Messages", Idempotent: true, Source: "op 8"},
	{Name: "Lookup.NumberDetails", Method: "GET", Path: "/v2/Numbers/Details", Idempotent: true, Source: "op 9"},
	{Name: "Properties.Create", Method: "POST", Path: "/v2/Properties", Source: "op 10"},
	{Name: "Properties.List", Method: "GET", Path: "/v2/Properties", Idempotent: true, Source: "op 11"},
	{Name: "Properties.Get", Method: "GET", Path: "/v2/Properties/{PropertySid}", Idempotent: true, Source: "op 11"},
	{Name: "Properties.Update", Method: "PATCH", Path: "/v2/Properties/{PropertySid}", Idempotent: true, Source: "op 12"},
	{Name: "SipTrunks.Create", Method: "POST", Path: "/v2/Properties/{PropertySid}/SipTrunk", Source: "op 13"},
	{Name: "SipTrunks.List", Method: "GET", Path: "/v2/Properties/{PropertySid}/SipTrunks", Idempotent: true, Source: "op 14"},
	{Name: "SipTrunks.GetByAccount", Method: "GET", Path: "/v2/Accounts/{AccountSid}/SipTrunk/{SipTrunkSid}/Details", Idempotent: true, Source: "op 15"},
	{Name: "SipTrunks.GetByProperty", Method: "GET", Path: "/v2/Properties/{PropertySid}/SipTrunk/{SipTrunkSid}/Details", Idempotent: true, Source: "op 15"},
	{Name: "Porting.Submit", Method: "POST", Path: "/v2/Properties/{PropertySid}/Porting", Source: "op 16"},
	{Name: "Porting.StatusByProperty", Method: "GET", Path: "/v2/Properties/{PropertySid}/Porting/Status", Idempotent: true, Source: "op 17"},
	{Name: "Porting.StatusByAccount", Method: "GET", Path: "/v2/Accounts/{AccountSid}/Porting/Status", Idempotent: true, Source: "op 17"},
	{Name: "Addresses.Create", Method: "POST", Path: "/v2/Accounts/{AccountSid}/Addresses", Source: "op 18"},
	{Name: "Addresses.Delete", Method: "DELETE", Path: "/v2/Addresses/{AddressSid}", Idempotent: true, Source: "op 18"},
	{Name: "Messages.Get", Method: "GET", Path: "/v2/Messages/{MessageSid}", Idempotent: true, Source: "service notes"},
	{Name: "Flows.List", Method: "GET", Path: "/v2/Properties/{PropertySid}/Flows", Idempotent: true, Source: "get-flows"},
	{Name: "Addresses.List", Method: "GET", Path: "/v2/Accounts/{AccountSid}/Addresses", Idempotent: true, Source: "get-addresses"},
	{Name: "Addresses.Get", Method: "GET", Path: "/v2/Addresses/{AddressSid}", Idempotent: true, Source: "get-addresses"},
	{Name: "Numbers.Get", Method: "GET", Path: "/v2/Numbers/{Number}", Idempotent: true, Source: "get-numbers"},
	{Name: "Numbers.ListByProperty", Method: "GET", Path: "/v2/Properties/{PropertySid}/Numbers", Idempotent: true, Source: "get-numbers"},
	{Name: "Numbers.ListByAccount", Method: "GET", Path: "/v2/Accounts/{AccountSid}/Numbers", Idempotent: true, Source: "get-numbers"},
	{Name: "Numbers.Purchase", Method: "POST", Path: "/v2/Properties/{PropertySid}/Numbers", Source: "purchase-available"},
	{Name: "Calls.Get", Method: "GET", Path: "/v2/Calls/{CallSid}", Idempotent: true, Source: "get-calls"},
	{Name: "Calls.ListByProperty", Method: "GET", Path: "/v2/Properties/{PropertySid}/Calls", Idempotent: true, Source: "get-calls"},
	{Name: "Calls.ListByAccount", Method: "GET", Path: "/v2/Accounts/{AccountSid}/Calls", Idempotent: true, Source: "get-calls"},
	{Name: "OnlineLogins.Update", Method: "PATCH", Path: "/v2/OnlineLogins/{OnlineLoginSid}", Idempotent: true, Source: "patch-online-login"},
	{Name: "SipTrunks.Update", Method: "PATCH", Path: "/v2/Properties/{PropertySid}/SipTrunk/{SipTrunkSid}", Idempotent: true, Source: "put-sip-trunk"},
	{Name: "SipTrunks.UpdateByAccount", Method: "PATCH", Path: "/v2/Accounts/{AccountSid}/SipTrunk/{SipTrunkSid}", Idempotent: true, Source: "put-sip-trunk"},
	{Name: "NumberBlocks.Purchase", Method: "POST", Path: "/v2/Properties/{PropertySid}/NumberBlocks", Source: "purchase-number-block"},
	{Name: "NumberBlocks.Configure", Method: "POST", Path: "/v2/numberblocks/{NumberBlockSid}", Idempotent: true, Source: "configure-number-block"},
}
