package openapi_test

// Rules the contract states as schema keywords (patterns, defaults,
// conditions), each checked against what the spec and the SDK say, so
// that a rule written too loosely or too tightly fails here and not in a
// user's generated client.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

// TestNumberBlockDatetimePattern compares the pattern of number-block
// datetimes with the SDK's decoder: for every offset, the contract and
// telco.ParseDateTime agree. The one difference is on purpose: the
// service always writes the offset (/Date(<epoch_ms><utc_offset>)/), so
// the contract requires it, while the SDK also reads a value without one.
func TestNumberBlockDatetimePattern(t *testing.T) {
	block := loadContract(t).Components.Schemas["NumberBlock"].Value
	for _, field := range []string{"Created", "Modified", "QuarantineStartDate", "QuarantineEndDate"} {
		t.Run(field, func(t *testing.T) {
			ref := block.Properties[field]
			require.NotNil(t, ref, "NumberBlock has no %s", field)
			pattern := datePattern(ref.Value)
			require.NotEmpty(t, pattern, "NumberBlock.%s has no pattern", field)
			re := regexp.MustCompile(pattern)

			// Every sign and four digits: the SDK takes hours 00 to 23 and
			// minutes 00 to 59, and so must the pattern.
			var differ []string
			for _, ms := range []string{"1577836800000", "0", "-62135596800000"} {
				for _, sign := range []string{"+", "-"} {
					for n := 0; n <= 9999; n++ {
						s := fmt.Sprintf("/Date(%s%s%04d)/", ms, sign, n)
						_, err := telco.ParseDateTime(s)
						if sdk, contract := err == nil, re.MatchString(s); sdk != contract {
							differ = append(differ, fmt.Sprintf("%s: SDK reads it %v, contract matches it %v", s, sdk, contract))
						}
					}
				}
			}
			if len(differ) > 0 {
				t.Errorf("%d values where the pattern %q and the SDK disagree, e.g.\n%s", len(differ), pattern, differ[0])
			}

			for _, s := range []string{
				"/Date(1577836800000+100)/", "/Date(1577836800000+10000)/", "/Date(1577836800000+1O00)/",
				"/Date(+1000)/", "/Date(1.5+1000)/", "/Date(ms+1000)/", "/Date()/", "1577836800000+1000",
				"/Date(1577836800000+1000)", "Date(1577836800000+1000)/", "2020-01-01T10:00:00+10:00",
			} {
				assert.False(t, re.MatchString(s), "%s is not the service's form, yet the pattern matches it", s)
			}
			// The service's form always has its offset; the SDK is more
			// tolerant than the contract here.
			bare := "/Date(1577836800000)/"
			_, err := telco.ParseDateTime(bare)
			assert.NoError(t, err, "the SDK reads a datetime without an offset")
			assert.False(t, re.MatchString(bare), "the contract must require the offset the service writes")
		})
	}
}

// datePattern is the pattern of a datetime schema, or of its string
// branch when it is nullable (anyOf the datetime and null).
func datePattern(s *openapi3.Schema) string {
	if s.Pattern != "" {
		return s.Pattern
	}
	for _, b := range s.AnyOf {
		if b.Value.Pattern != "" {
			return b.Value.Pattern
		}
	}
	return ""
}

// TestNumberBlockNullability: the spec makes Modified and the quarantine
// dates nullable, and Created a plain datetime.
func TestNumberBlockNullability(t *testing.T) {
	block := loadContract(t).Components.Schemas["NumberBlock"].Value
	nullable := map[string]bool{"Created": false, "Modified": true, "QuarantineStartDate": true, "QuarantineEndDate": true}
	for field, want := range nullable {
		ref := block.Properties[field]
		require.NotNil(t, ref, "NumberBlock has no %s", field)
		err := ref.Value.VisitJSON(nil, openapi3.EnableJSONSchema2020())
		assert.Equal(t, want, err == nil, "NumberBlock.%s: null accepted %v, want %v (%v)", field, err == nil, want, err)
		assert.NoError(t, ref.Value.VisitJSON("/Date(1577836800000+1000)/", openapi3.EnableJSONSchema2020()), "NumberBlock.%s", field)
	}
}

// specDefault is a default the spec gives (service-interface.md, and
// beyond-the-interface.md for the operations beyond it), where the
// contract must state it.
type specDefault struct {
	op    string // operationId, for a query parameter
	param string // the parameter's name
	body  string // component schema, for a body field
	field string // the field of body
	value any    // the default, as JSON would decode it
	prose string // for a default with no fixed value: its description says so
}

// specDefaults is every default the spec gives. The table is kept here,
// not read from the spec, so that the test runs from a clean clone.
func specDefaults() []specDefault {
	var out []specDefault
	param := func(op, name string, v any) { out = append(out, specDefault{op: op, param: name, value: v}) }
	field := func(body, name string, v any) { out = append(out, specDefault{body: body, field: name, value: v}) }

	// Operations 1 and 2: the number-block searches.
	for _, op := range []string{"NumberBlocks.Search", "NumberBlocks.SearchText", "NumberBlocks.ListByProperty", "NumberBlocks.ListByAccount"} {
		param(op, "PageIndex", 0)
		param(op, "PageSize", 10)
		param(op, "IncludeTotalCount", true)
		param(op, "SortBy", "Id")
		param(op, "SortDir", "asc")
	}
	// Listings: 50 projects, online logins, SIP trunks and flows; 200
	// messages, addresses and numbers; 20 porting requests. Results_Skip
	// has a default only where the spec gives one.
	for _, op := range []string{"Properties.List", "OnlineLogins.List", "SipTrunks.List", "Flows.List"} {
		param(op, "Results_Count", 50)
	}
	for _, op := range []string{"Messages.Find", "Addresses.List", "Numbers.ListByProperty", "Numbers.ListByAccount"} {
		param(op, "Results_Count", 200)
	}
	for _, op := range []string{"Porting.StatusByProperty", "Porting.StatusByAccount"} {
		param(op, "Results_Count", 20)
	}
	param("SipTrunks.List", "Results_Skip", 0)
	param("Flows.List", "Results_Skip", 0)

	// Operation 4.
	field("CreateOnlineLoginRequest", "Enabled", false)
	// Operations 6 and 7 (each batch element is a SendMessageRequest).
	field("SendMessageRequest", "DeliveryReceipt", true)
	field("SendMessageRequest", "DeliveryReceiptWebhookMethod", "POST")
	field("SendMessageRequest", "WebhookMethod", "POST")
	out = append(out,
		specDefault{body: "SendMessageRequest", field: "ForwardFromSms", prose: "default"},
		specDefault{body: "SendMessageRequest", field: "ForwardFromEmail", prose: "default"})
	// Operation 10.
	field("CreatePropertyRequest", "SmsEnabled", false)
	field("CreatePropertyRequest", "CallRecordingEnabled", false)
	field("CreatePropertyRequest", "IntegrationsEnabled", false)
	field("CreatePropertyRequest", "Active", true)
	// Operation 13.
	field("CreateSipTrunkRequest", "ChannelLimit", 1)
	field("CreateSipTrunkRequest", "SipTrunkAllowedCountries", []any{map[string]any{"CountryCode": "AU"}})
	return out
}

func (d specDefault) String() string {
	if d.op != "" {
		return d.op + " " + d.param
	}
	return d.body + "." + d.field
}

// schemaOf finds the schema d is about.
func (d specDefault) schemaOf(t *testing.T, doc *openapi3.T) *openapi3.Schema {
	t.Helper()
	if d.body != "" {
		body := doc.Components.Schemas[d.body]
		require.NotNil(t, body, "no schema %s", d.body)
		ref := body.Value.Properties[d.field]
		require.NotNil(t, ref, "%s has no field %s", d.body, d.field)
		return ref.Value
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.OperationID != d.op {
				continue
			}
			for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range ps {
					if p.Value.Name == d.param && p.Value.In == openapi3.ParameterInQuery {
						return p.Value.Schema.Value
					}
				}
			}
			t.Fatalf("%s has no query parameter %s", d.op, d.param)
		}
	}
	t.Fatalf("no operation %s", d.op)
	return nil
}

// TestContractDefaults: every default the spec gives is in the contract,
// as a default (or, when it has no fixed value, in the description), and
// the contract has no default the spec does not give. A merge patch has
// none: a field left out stays as it is.
func TestContractDefaults(t *testing.T) {
	doc := loadContract(t)
	documented := map[*openapi3.Schema]string{}
	listed := map[string]bool{}
	for _, d := range specDefaults() {
		listed[d.String()] = true
		s := d.schemaOf(t, doc)
		if d.prose != "" {
			assert.Contains(t, s.Description, d.prose, "%s: the description names the default", d)
			continue
		}
		documented[s] = d.String()
		if assert.NotNil(t, s.Default, "%s: no default, the spec's is %v", d, d.value) {
			want, _ := json.Marshal(d.value)
			got, _ := json.Marshal(s.Default)
			assert.JSONEq(t, string(want), string(got), "%s: default", d)
		}
	}

	// The other way round: a default the table does not list is one the
	// spec does not give. Query parameters are checked per operation, since
	// operations share parameter components: a default is the spec's for
	// the operation that states it, not for every one that reuses it.
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range ps {
					d := specDefault{op: op.OperationID, param: p.Value.Name}
					if p.Value.In != openapi3.ParameterInQuery || p.Value.Schema == nil || p.Value.Schema.Value.Default == nil {
						continue
					}
					if _, ok := listed[d.String()]; !ok {
						t.Errorf("%s has default %v, which the spec does not give: use a parameter without one (or add it to specDefaults)",
							d, p.Value.Schema.Value.Default)
					}
				}
			}
		}
	}
	err := doc.WalkSchemas(func(ptr string, ref *openapi3.SchemaRef) error {
		if ref.Value.Default != nil {
			if _, ok := documented[ref.Value]; !ok {
				t.Errorf("%s has default %v, which the spec does not give (or add it to specDefaults)", ptr, ref.Value.Default)
			}
		}
		return nil
	})
	require.NoError(t, err)

	for _, name := range []string{"UpdatePropertyRequest", "UpdateOnlineLoginRequest", "UpdateSipTrunkRequest", "NumberConfigRequest"} {
		err := doc.Components.Schemas[name].WalkSubtree(func(ptr string, ref *openapi3.SchemaRef) error {
			assert.Nil(t, ref.Value.Default, "%s%s: a field left out of a patch stays unchanged, it takes no default", name, ptr)
			return nil
		})
		require.NoError(t, err)
	}
}

// bodyCase is a request body and whether the contract's schema for it
// takes it.
type bodyCase struct {
	schema string // component schema
	why    string
	body   string // JSON
	valid  bool
}

// checkBodies validates each case's body against its schema, as the
// checker validates a request's body.
func checkBodies(t *testing.T, cases []bodyCase) {
	t.Helper()
	doc := loadContract(t)
	opts := schemaOptions(t, doc)
	for _, c := range cases {
		ref := doc.Components.Schemas[c.schema]
		require.NotNil(t, ref, "no schema %s", c.schema)
		var v any
		require.NoError(t, json.Unmarshal([]byte(c.body), &v), c.body)
		err := ref.Value.VisitJSON(v, opts...)
		if c.valid {
			assert.NoError(t, err, "%s: %s: the contract refuses %s", c.schema, c.why, c.body)
		} else {
			assert.Error(t, err, "%s: %s: the contract takes %s", c.schema, c.why, c.body)
		}
	}
}

// TestConditionalRequirements: the fields the spec requires only with a
// certain value of another are required exactly then.
func TestConditionalRequirements(t *testing.T) {
	const trunk = `"Name": "PBX", "DefaultCallerId": "+61299990000"`
	const porting = `"AuthorisedContactName": "Jane Doe", "AuthorisedContactEmail": "jane@example.com",
		"DaytimeContactNumber": "+61299990000", "CurrentCarrier": "Telstra", "CurrentCarrierAccountNo": "12345"`
	const number = `"Number": "+61299998888", "PortType": "Cat-A", "PortAddress": "1 George St Sydney"`
	checkBodies(t, []bodyCase{
		{"CreateSipTrunkRequest", "Type 0 needs SipTrunkIpAddresses", `{` + trunk + `, "Type": 0}`, false},
		{"CreateSipTrunkRequest", "Type 0 needs SipTrunkIpAddresses, not an empty list", `{` + trunk + `, "Type": 0, "SipTrunkIpAddresses": []}`, false},
		{"CreateSipTrunkRequest", "Type 0 with an address", `{` + trunk + `, "Type": 0, "SipTrunkIpAddresses": [{"IpAddress": "20.36.64.0/24"}]}`, true},
		{"CreateSipTrunkRequest", "Type 0 needs no credentials", `{` + trunk + `, "Type": 0, "SipTrunkIpAddresses": [{"IpAddress": "20.36.64.7/32"}]}`, true},
		{"CreateSipTrunkRequest", "Type 1 needs SipTrunkCredentials", `{` + trunk + `, "Type": 1}`, false},
		{"CreateSipTrunkRequest", "Type 1 needs SipTrunkCredentials, addresses are no substitute", `{` + trunk + `, "Type": 1, "SipTrunkIpAddresses": [{"IpAddress": "20.36.64.0/24"}]}`, false},
		{"CreateSipTrunkRequest", "Type 1 with credentials", `{` + trunk + `, "Type": 1, "SipTrunkCredentials": {"Realm": "sip.example.com", "Password": "Tr0nk!Secret9"}}`, true},
		{"CreateSipTrunkRequest", "Type 1 with credentials, their password 3 identical characters in a row", `{` + trunk + `, "Type": 1, "SipTrunkCredentials": {"Realm": "sip.example.com", "Password": "Tr0nk!Secccret9"}}`, false},

		{"PortingRequestRequest", "Date needs PreferredPortDate", `{` + porting + `, "PreferredPortSchedule": "Date"}`, false},
		{"PortingRequestRequest", "Date with its date", `{` + porting + `, "PreferredPortSchedule": "Date", "PreferredPortDate": "2030-01-31"}`, true},
		{"PortingRequestRequest", "ASAP needs no date", `{` + porting + `, "PreferredPortSchedule": "ASAP"}`, true},
		{"PortingRequestRequest", "Flow needs IncomingActionId", `{` + porting + `, "PreferredPortSchedule": "ASAP", "PortingNumbers": [{` + number + `, "IncomingActionType": "Flow"}]}`, false},
		{"PortingRequestRequest", "Flow needs IncomingActionId, not an empty one", `{` + porting + `, "PreferredPortSchedule": "ASAP", "PortingNumbers": [{` + number + `, "IncomingActionType": "Flow", "IncomingActionId": ""}]}`, false},
		{"PortingRequestRequest", "Flow needs IncomingActionId, IncomingAnswerPoint is no substitute", `{` + porting + `, "PreferredPortSchedule": "ASAP", "PortingNumbers": [{` + number + `, "IncomingActionType": "Flow", "IncomingAnswerPoint": "+61299990001"}]}`, false},
		{"PortingRequestRequest", "Flow with its id", `{` + porting + `, "PreferredPortSchedule": "ASAP", "PortingNumbers": [{` + number + `, "IncomingActionType": "Flow", "IncomingActionId": "flow-1"}]}`, true},
		{"PortingRequestRequest", "Answering Point needs IncomingAnswerPoint", `{` + porting + `, "PreferredPortSchedule": "ASAP", "PortingNumbers": [{` + number + `, "IncomingActionType": "Answering Point"}]}`, false},
		{"PortingRequestRequest", "Answering Point with its number", `{` + porting + `, "PreferredPortSchedule": "ASAP", "PortingNumbers": [{` + number + `, "IncomingActionType": "Answering Point", "IncomingAnswerPoint": "+61299990001"}]}`, true},
		{"PortingRequestRequest", "no action type needs neither", `{` + porting + `, "PreferredPortSchedule": "ASAP", "PortingNumbers": [{` + number + `}]}`, true},
	})
}

// passwordCorpus is the passwords the password rules are compared on:
// edge cases, then random ASCII strings drawn so that about as many pass
// as fail. Non-ASCII letters are left out: the SDK reads the SIP rule's
// letters and digits as Unicode classes, the contract as ASCII ones, as
// every ECMA-262 engine reads them (see SipPassword in telco.yaml).
func passwordCorpus() []string {
	out := []string{
		"", "short", "Aa1!Aa1!Aa1!", "Aa1!Aa1!Aa1", "aa1!aa1!aa1!", "AA1!AA1!AA1!", "Aa!!Aa!!Aa!!", "Aa11Aa11Aa11",
		"Str0ng!Passw0rd#", "NoSpecials12345", "nouppercase1!xyz", "Tr0nk!Secret9", "Tr0nk!Secccret9", "Tr0nkSecret9",
		"Tr0nk Secret9", "AAa1!bbB22x", "Aab1!!!cdEf", "Aab1!!cdEf", "x\nY1!abcdefgh", "Aa1 Aa1 Aa1 ", "Aa1?Aa1?Aa1?",
		"Aa1-Aa1-Aa1-", "\tAa1!Aa1!Aa1!", "1111Aa!bcdef", "Aa1!Aa1!Aa1!\n",
	}
	const (
		lower   = "abcxyz"
		upper   = "ABCXYZ"
		digits  = "0189"
		login   = "!@#$%^&*()_+"
		others  = "-=[]{};:'\",.<>/?`~|\\"
		spaces  = " \t\n"
		classes = 7
	)
	r := rand.New(rand.NewPCG(24, 4))
	for range 4000 {
		n := 8 + r.IntN(9)
		b := make([]byte, 0, n)
		for len(b) < n {
			var set string
			switch r.IntN(classes) {
			case 0, 1:
				set = lower
			case 2:
				set = upper
			case 3:
				set = digits
			case 4:
				set = login
			case 5:
				set = others
			default:
				set = spaces
				if r.IntN(4) > 0 { // repeat the last character instead
					if len(b) > 0 {
						b = append(b, b[len(b)-1])
						continue
					}
					set = lower
				}
			}
			b = append(b, set[r.IntN(len(set))])
		}
		out = append(out, string(b))
	}
	return out
}

// passwordRule is the contract's password schema as a check: minLength
// and the pattern, read as ECMA-262 as JSON Schema says.
func passwordRule(t *testing.T, s *openapi3.Schema) func(string) bool {
	t.Helper()
	re, err := ecmaRegexp(s.Pattern)
	require.NoError(t, err, "the pattern %q", s.Pattern)
	return func(pw string) bool {
		return uint64(utf8.RuneCountInString(pw)) >= s.MinLength && re.MatchString(pw)
	}
}

// refusesPassword reports whether an SDK validation error names a
// password field.
func refusesPassword(err error) bool {
	var ve *telco.ValidationError
	if !errors.As(err, &ve) {
		return false
	}
	for _, f := range ve.Fields {
		if strings.HasSuffix(f.FieldName, "Password") {
			return true
		}
	}
	return false
}

// TestPasswordPatterns compares the contract's password rules with the
// SDK's, on create and update of online logins and SIP trunks: each
// password of the corpus is taken by both or refused by both.
func TestPasswordPatterns(t *testing.T) {
	doc := loadContract(t)
	field := func(schema string, path ...string) *openapi3.Schema {
		s := doc.Components.Schemas[schema].Value
		for _, p := range path {
			require.NotNil(t, s.Properties[p], "%s has no %s", schema, p)
			s = s.Properties[p].Value
		}
		require.NotEmpty(t, s.Pattern, "%s.%s has no pattern", schema, strings.Join(path, "."))
		return s
	}
	// A patch leaves an empty password out: the update cases skip "".
	cases := []struct {
		name     string
		contract func(string) bool
		sdk      func(string) error
		patch    bool
	}{
		{"CreateOnlineLoginRequest.Password", passwordRule(t, field("CreateOnlineLoginRequest", "Password")), func(pw string) error {
			return (&telco.CreateOnlineLoginParams{Email: "jane@example.com", Password: pw, FirstName: "Jane", LastName: "Doe",
				Scopes: telco.Scopes{telco.ScopeManage}}).Validate()
		}, false},
		{"UpdateOnlineLoginRequest.Password", passwordRule(t, field("UpdateOnlineLoginRequest", "Password")), func(pw string) error {
			return (&telco.UpdateOnlineLoginParams{Password: pw}).Validate()
		}, true},
		{"CreateSipTrunkRequest.SipTrunkCredentials.Password", passwordRule(t, field("CreateSipTrunkRequest", "SipTrunkCredentials", "Password")), func(pw string) error {
			return (&telco.CreateSipTrunkParams{Name: "PBX", DefaultCallerID: "+61299990000", Type: telco.SipTrunkAuthenticated,
				Credentials: &telco.SipCredentials{Realm: "sip.example.com", Password: pw}}).Validate()
		}, false},
		{"UpdateSipTrunkRequest.SipTrunkCredentials.Password", passwordRule(t, field("UpdateSipTrunkRequest", "SipTrunkCredentials", "Password")), func(pw string) error {
			return (&telco.UpdateSipTrunkParams{Credentials: &telco.SipCredentials{Realm: "sip.example.com", Password: pw}}).Validate()
		}, true},
	}
	corpus := passwordCorpus()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var differ []string
			taken := 0
			for i, pw := range corpus {
				if c.patch && pw == "" {
					continue
				}
				sdk := !refusesPassword(c.sdk(pw))
				if sdk {
					taken++
				}
				if contract := c.contract(pw); contract != sdk {
					// Passwords never show in a failure, not even these:
					// the index finds one in passwordCorpus().
					differ = append(differ, fmt.Sprintf("passwordCorpus()[%d] (%d characters): the SDK takes it %v, the contract %v",
						i, utf8.RuneCountInString(pw), sdk, contract))
				}
			}
			if len(differ) > 0 {
				t.Errorf("%d of %d passwords where the contract and the SDK disagree, e.g.\n%s", len(differ), len(corpus), strings.Join(differ[:min(5, len(differ))], "\n"))
			}
			assert.Greater(t, taken, len(corpus)/10, "the corpus has too few good passwords to compare on")
			assert.Less(t, taken, len(corpus)*9/10, "the corpus has too few bad passwords to compare on")
		})
	}
}

// TestKinOpenAPIDropsIfThenBesideECMAPatterns records why ecmaPatterns
// exists: without it, kin-openapi validates a SIP trunk's create body,
// whose password pattern Go's regexp cannot compile, with its OpenAPI 3.0
// validator, and a Type 0 trunk without addresses passes. When this test
// fails, kin-openapi has learnt ECMA-262 patterns on its 2020-12 path, and
// ecmaPatterns can go.
func TestKinOpenAPIDropsIfThenBesideECMAPatterns(t *testing.T) {
	var body any
	require.NoError(t, json.Unmarshal([]byte(`{"Name": "PBX", "DefaultCallerId": "+61299990000", "Type": 0}`), &body))

	plain := loadContract(t).Components.Schemas["CreateSipTrunkRequest"].Value
	assert.NoError(t, plain.VisitJSON(body, openapi3.VisitAsRequest(), openapi3.EnableJSONSchema2020(),
		openapi3.SetSchemaRegexCompiler(ecmaRegexp)), "kin-openapi now applies if/then beside an ECMA-262 pattern")

	doc := loadContract(t)
	err := doc.Components.Schemas["CreateSipTrunkRequest"].Value.VisitJSON(body, schemaOptions(t, doc)...)
	assert.ErrorContains(t, err, "SipTrunkIpAddresses", "with ecmaPatterns, the Type 0 rule holds")
}

// TestMessageText: Text is required and not empty, alone and in a batch.
func TestMessageText(t *testing.T) {
	checkBodies(t, []bodyCase{
		{"SendMessageRequest", "a text", `{"From": "Acme", "To": "+61499990000", "Text": "hi"}`, true},
		{"SendMessageRequest", "no text", `{"From": "Acme", "To": "+61499990000"}`, false},
		{"SendMessageRequest", "an empty text", `{"From": "Acme", "To": "+61499990000", "Text": ""}`, false},
		{"SendBatchRequest", "each with a text", `{"Messages": [{"To": "+61499990000", "Text": "a"}, {"To": "+61499990001", "Text": "b"}]}`, true},
		{"SendBatchRequest", "one with an empty text", `{"Messages": [{"To": "+61499990000", "Text": "a"}, {"To": "+61499990001", "Text": ""}]}`, false},
	})
}
