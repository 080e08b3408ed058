package telco

// Call tracking: reading calls, and following new ones with the service's
// Token cursor.
//
// The documentation of Get Calls shows the request but not the answer.
// Every answer carries a Token: asked again with it, the service answers
// the calls written since that answer, "sorted from earliest to latest".
// A listing is therefore not paged by position but by cursor:
// ListByProperty and ListByAccount return one answer (a CallPage) with
// its Token; their All twins follow the Token until an answer brings no
// call, the listing as of now; a CallFeed keeps the Token between calls
// (Next, All, Follow) so that a program can poll for new calls, and save
// the Token to resume after a restart.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CallsService reads the calls of a project or an account (the
// documentation page "get-calls").
type CallsService service

// CallsAPI is the method set of CallsService, for code that wants to
// substitute a fake.
type CallsAPI interface {
	Get(ctx context.Context, callSid string) (*Call, error)
	ListByProperty(ctx context.Context, propertySid string, p *ListCallsParams) (*CallPage, error)
	ListByPropertyAll(ctx context.Context, propertySid string, p *ListCallsParams) iter.Seq2[Call, error]
	ListByAccount(ctx context.Context, accountSid string, p *ListCallsParams) (*CallPage, error)
	ListByAccountAll(ctx context.Context, accountSid string, p *ListCallsParams) iter.Seq2[Call, error]
}

var _ CallsAPI = (*CallsService)(nil)

// CallDisposition is how a call ended.
type CallDisposition string

// Call dispositions, as the documentation spells them.
const (
	CallAnswered CallDisposition = "Answered"
	CallIVR      CallDisposition = "IVR"
	CallBusy     CallDisposition = "Busy"
	CallNoAnswer CallDisposition = "NoAnswer"
	CallFailed   CallDisposition = "Failed"
)

// Known reports whether d is one of the documented dispositions.
func (d CallDisposition) Known() bool {
	switch d {
	case CallAnswered, CallIVR, CallBusy, CallNoAnswer, CallFailed:
		return true
	}
	return false
}

// CallUnique is the Unique filter of the call listings. The documentation
// names the value All; its other values were not readable, so any value
// is sent as given.
type CallUnique string

// UniqueAll is the one documented value of the Unique filter.
const UniqueAll CallUnique = "All"

// Call is one tracked call.
//
// The documentation does not show the answer's fields: the names are
// inferred from what a data-export product shows per call (id,
// attribution, call type, start, disposition, duration, endpoint, the
// caller's number and location) and from the filters' names. Every member
// of the answer not decoded into a typed field (an unguessed name, such as
// the advertising click identifiers, or a value of another type than
// guessed) is kept in Extra, as sent.
type Call struct {
	CallSid     string `json:"CallSid" alias:"Id,CallId"`
	AccountSid  string `json:"AccountSid,omitempty"`
	PropertySid string `json:"PropertySid,omitempty"`
	CallType    string `json:"CallType,omitempty"`
	// DateStart is when the call began (Unix seconds); Date_From and
	// Date_To filter on it.
	DateStart   Timestamp       `json:"DateStart,omitempty" alias:"Date_Start,Date"`
	Disposition CallDisposition `json:"Disposition,omitempty"`
	Duration    int             `json:"Duration,omitempty"` // seconds
	// From is the caller's number; To the tracking number called; Endpoint
	// the number the call was routed to.
	From     string `json:"From,omitempty" alias:"CallerNumber,Caller"`
	To       string `json:"To,omitempty"`
	Endpoint string `json:"Endpoint,omitempty" alias:"EndpointNumber"`
	// The caller's location.
	CallerCity        string `json:"CallerCity,omitempty"`
	CallerRegion      string `json:"CallerRegion,omitempty"`
	CallerCountryCode string `json:"CallerCountryCode,omitempty"`
	// Attribution labels of the number called.
	AttributionSource   string `json:"Attribution_Source,omitempty"`
	AttributionMedium   string `json:"Attribution_Medium,omitempty"`
	AttributionCampaign string `json:"Attribution_Campaign,omitempty"`
	AttributionContent  string `json:"Attribution_Content,omitempty"`
	// PromptsKeys are the IVR keys the caller pressed, in the filter's
	// form: menus separated by semicolons, nested keys by commas.
	PromptsKeys string `json:"Prompts_keys,omitempty"`
	// Extra holds the answer's members that no field above took.
	Extra map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes tolerantly: see Call.
func (c *Call) UnmarshalJSON(b []byte) error {
	extra, err := unmarshalInferred(b, c)
	c.Extra = extra
	return err
}

func (c *Call) decodeTree(node any) error {
	extra, err := decodeInferred(node, c)
	c.Extra = extra
	return err
}

// MarshalJSON writes the typed fields and, beside them, Extra's members.
func (c Call) MarshalJSON() ([]byte, error) {
	type plain Call // no methods: no recursion
	return marshalInferred(plain(c), c.Extra)
}

// ListCallsParams filters the call listings. Every filter is optional and
// sent only when set; the list filters are sent comma-separated.
type ListCallsParams struct {
	// DateFrom (inclusive) and DateTo (exclusive) bound DateStart; sent as
	// Unix seconds (Date_From, Date_To). DateTo must be after DateFrom
	// when both are set.
	DateFrom, DateTo time.Time
	// Token, from an earlier answer (CallPage.Token), asks for the calls
	// written since that answer.
	Token        string
	Dispositions []CallDisposition // wire Disposition
	To           []string          // the numbers called
	Endpoints    []string          // wire Endpoint
	// Attribution labels; wire Attribution_Source, ...
	AttributionSources   []string
	AttributionMediums   []string
	AttributionCampaigns []string
	AttributionContents  []string
	// PromptKeys filters by the IVR keys pressed: one path of keys per
	// element, nested menus in order. {{"1", "2"}, {"3", "5"}} is sent as
	// Prompts_keys=1,2;3,5. A key is 0-9, * or #.
	PromptKeys [][]string
	Unique     CallUnique
}

// clone copies p with its slices, so that an iterator never shares the
// caller's.
func (p ListCallsParams) clone() ListCallsParams {
	q := p
	q.Dispositions = append([]CallDisposition(nil), p.Dispositions...)
	for _, s := range []*[]string{&q.To, &q.Endpoints, &q.AttributionSources, &q.AttributionMediums,
		&q.AttributionCampaigns, &q.AttributionContents} {
		*s = append([]string(nil), *s...)
	}
	q.PromptKeys = make([][]string, len(p.PromptKeys))
	for i, path := range p.PromptKeys {
		q.PromptKeys[i] = append([]string(nil), path...)
	}
	if p.PromptKeys == nil {
		q.PromptKeys = nil
	}
	return q
}

// wireListCalls is ListCallsParams as the query carries it.
type wireListCalls struct {
	DateFrom            *int64                     `url:"Date_From,omitempty"` // nil: not set; 0 is 1970
	DateTo              *int64                     `url:"Date_To,omitempty"`
	Token               string                     `url:"Token,omitempty"`
	Disposition         commaList[CallDisposition] `url:"Disposition,omitempty"`
	To                  commaList[string]          `url:"To,omitempty"`
	Endpoint            commaList[string]          `url:"Endpoint,omitempty"`
	AttributionSource   commaList[string]          `url:"Attribution_Source,omitempty"`
	AttributionMedium   commaList[string]          `url:"Attribution_Medium,omitempty"`
	AttributionCampaign commaList[string]          `url:"Attribution_Campaign,omitempty"`
	AttributionContent  commaList[string]          `url:"Attribution_Content,omitempty"`
	PromptsKeys         string                     `url:"Prompts_keys,omitempty"`
	Unique              CallUnique                 `url:"Unique,omitempty"`
}

// wire sends DateTo, exclusive, rounded up to its second, as for
// messages.
func (p *ListCallsParams) wire() *wireListCalls {
	w := &wireListCalls{Token: p.Token, Disposition: p.Dispositions, To: p.To, Endpoint: p.Endpoints,
		AttributionSource: p.AttributionSources, AttributionMedium: p.AttributionMediums,
		AttributionCampaign: p.AttributionCampaigns, AttributionContent: p.AttributionContents,
		PromptsKeys: promptKeys(p.PromptKeys), Unique: p.Unique}
	if !p.DateFrom.IsZero() {
		from := p.DateFrom.Unix()
		w.DateFrom = &from
	}
	if !p.DateTo.IsZero() {
		to := ceilUnix(p.DateTo)
		w.DateTo = &to
	}
	return w
}

// promptKeys writes key paths as the Prompts_keys filter takes them.
func promptKeys(paths [][]string) string {
	parts := make([]string, len(paths))
	for i, path := range paths {
		parts[i] = strings.Join(path, ",")
	}
	return strings.Join(parts, ";")
}

// CallPage is one answer of a call listing: its calls, earliest first,
// and the Token to ask for the calls written after it.
type CallPage struct {
	Calls []Call
	// Token is the cursor this answer generated; "" when it carried none.
	Token string
	// Extra holds the answer's members beside the calls and the Token,
	// as sent (nil for a bare array).
	Extra map[string]json.RawMessage
}

// callShape is a call under Call, or bare.
var callShape = resourceOf[Call]("CallSid", "Call")

// callsAnswer decodes a call listing. Its shape is inferred: the calls
// under Calls (or Data), or a bare array; the Token under Token (or
// NextToken, NextPageToken). An object with neither calls nor the
// service's error envelope is an empty page.
type callsAnswer struct{ page CallPage }

func (a *callsAnswer) decodeBody(b []byte) error {
	tree, err := parseTree(b)
	if err != nil {
		return err
	}
	calls := reflect.ValueOf(&a.page.Calls).Elem()
	if _, isArr := tree.([]any); isArr {
		return assign(tree, calls)
	}
	m, err := objectOrNull(tree)
	if err != nil {
		return err
	}
	found := false
	for _, k := range []string{"Calls", "Data"} {
		key, ok := memberKey(m, k)
		if !ok || m[key] == nil {
			continue
		}
		if err := assign(m[key], calls); err != nil {
			return err
		}
		delete(m, key)
		found = true
		break
	}
	for _, k := range []string{"Token", "NextToken", "NextPageToken"} {
		if key, ok := memberKey(m, k); ok {
			if s, _ := m[key].(string); s != "" {
				a.page.Token = s
				delete(m, key)
				break
			}
		}
	}
	if !found {
		if err := refusedInTree(m); err != nil {
			return err
		}
	}
	for k, node := range m {
		if a.page.Extra == nil {
			a.page.Extra = map[string]json.RawMessage{}
		}
		a.page.Extra[k] = marshalNode(node)
	}
	return nil
}

// Get reads one call: GET /v2/Calls/{CallSid}. An unknown call is an
// *APIError with CALL_NOT_FOUND. The answer's shape is inferred (see Call).
func (s *CallsService) Get(ctx context.Context, callSid string) (*Call, error) {
	const op = "Calls.Get"
	if err := pathParam(op, "CallSid", callSid); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/Calls/{CallSid}", callSid)}, callShape)
}

// ListByProperty returns one answer of the project's calls:
// GET /v2/Properties/{PropertySid}/Calls. Pass its Token back in
// p.Token to get the calls written since; ListByPropertyAll and CallFeed
// do that for you. The answer's shape is inferred (see Call and CallPage).
func (s *CallsService) ListByProperty(ctx context.Context, propertySid string, p *ListCallsParams) (*CallPage, error) {
	return s.list(ctx, "Calls.ListByProperty", "PropertySid", propertySid, "/v2/Properties/{PropertySid}/Calls", p)
}

// ListByAccount returns one answer of the account's calls:
// GET /v2/Accounts/{AccountSid}/Calls. See ListByProperty.
func (s *CallsService) ListByAccount(ctx context.Context, accountSid string, p *ListCallsParams) (*CallPage, error) {
	return s.list(ctx, "Calls.ListByAccount", "AccountSid", accountSid, "/v2/Accounts/{AccountSid}/Calls", p)
}

func (s *CallsService) list(ctx context.Context, op, ownerName, owner, pattern string, p *ListCallsParams) (*CallPage, error) {
	if err := pathParam(op, ownerName, owner); err != nil {
		return nil, err
	}
	q := deref(p)
	if err := s.client.validateParams(op, q.check); err != nil {
		return nil, err
	}
	var out callsAnswer
	if err := s.client.do(ctx, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath(pattern, owner), query: q.wire()}, &out); err != nil {
		return nil, err
	}
	return &out.page, nil
}

// ListByPropertyAll iterates over every call ListByProperty finds,
// following each answer's Token until an answer brings no call: the
// listing as of now. p is copied; the caller's value is not changed.
func (s *CallsService) ListByPropertyAll(ctx context.Context, propertySid string, p *ListCallsParams) iter.Seq2[Call, error] {
	return NewCallFeed(s.ListByProperty, propertySid, p).drain(ctx, "Calls.ListByPropertyAll")
}

// ListByAccountAll iterates over every call ListByAccount finds; see
// ListByPropertyAll.
func (s *CallsService) ListByAccountAll(ctx context.Context, accountSid string, p *ListCallsParams) iter.Seq2[Call, error] {
	return NewCallFeed(s.ListByAccount, accountSid, p).drain(ctx, "Calls.ListByAccountAll")
}

// CallLister is a call listing bound to nothing but its owner's SID:
// Calls.ListByProperty, Calls.ListByAccount, or a fake's.
type CallLister func(ctx context.Context, ownerSid string, p *ListCallsParams) (*CallPage, error)

// DefaultCallPollInterval is how long CallFeed.Follow waits after an
// answer without new calls when it is given no interval.
const DefaultCallPollInterval = 10 * time.Second

// CallFeed follows the calls of one project or account with the Token
// cursor: each Next asks for the calls written since the previous answer.
// Its Token can be saved and passed back in ListCallsParams.Token to
// resume in another process. A CallFeed is safe for concurrent use, but
// its calls are made one at a time.
//
//	feed := telco.NewCallFeed(client.Calls.ListByProperty, propertySid, nil)
//	for call, err := range feed.Follow(ctx, 30*time.Second) { ... }
type CallFeed struct {
	list  CallLister
	owner string

	mu sync.Mutex // held for a whole Next
	p  ListCallsParams
}

// NewCallFeed returns a feed of the calls list finds for ownerSid with the
// filters of p (nil for none), starting from p.Token when set, else from
// the first call the filters match. p is copied.
func NewCallFeed(list CallLister, ownerSid string, p *ListCallsParams) *CallFeed {
	return &CallFeed{list: list, owner: ownerSid, p: deref(p).clone()}
}

// Token returns the cursor of the last answer, "" before the first.
func (f *CallFeed) Token() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.p.Token
}

// Next makes one request and returns the calls written since the previous
// answer (on the first, every call the filters match), earliest first. The
// feed moves to the answer's Token; a failed request leaves it where it
// was, so that Next can be called again.
func (f *CallFeed) Next(ctx context.Context) ([]Call, error) {
	page, err := f.next(ctx)
	if err != nil {
		return nil, err
	}
	return page.Calls, nil
}

// next is Next returning the whole answer.
func (f *CallFeed) next(ctx context.Context) (*CallPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.p.clone()
	page, err := f.list(ctx, f.owner, &q)
	if err != nil {
		return nil, err
	}
	if page == nil {
		page = &CallPage{}
	}
	if page.Token != "" {
		f.p.Token = page.Token
	}
	return page, nil
}

// errNoToken is an answer with calls but no Token to continue from.
var errNoToken = errors.New("the answer carried no Token to follow")

// All yields the calls of successive answers, following each Token, until
// an answer brings no call or no Token to continue from: every call
// written so far, from the feed's Token on. The feed keeps the last Token,
// so a later Next, All or Follow starts after these calls. An answer with
// calls whose Token repeats the previous one ends it with an error: asking
// again would bring the same calls forever.
func (f *CallFeed) All(ctx context.Context) iter.Seq2[Call, error] {
	return f.drain(ctx, "CallFeed.All")
}

// drain is All naming op in its errors.
func (f *CallFeed) drain(ctx context.Context, op string) iter.Seq2[Call, error] {
	return func(yield func(Call, error) bool) {
		for n := 0; ; n++ {
			before := f.Token()
			page, err := f.next(ctx)
			if err != nil {
				yield(Call{}, err)
				return
			}
			if len(page.Calls) == 0 {
				return
			}
			if n > 0 && page.Token == before {
				yield(Call{}, fmt.Errorf("telco: %s: answer %d repeats the Token of the previous one; the service ignored the Token", op, n+1))
				return
			}
			for _, c := range page.Calls {
				if !yield(c, nil) {
					return
				}
			}
			if page.Token == "" {
				return
			}
		}
	}
}

// Follow yields new calls as they are written, until ctx ends or the loop
// breaks, neither of which is an error. It asks again at once after an
// answer with calls (there may be more) and waits every
// (DefaultCallPollInterval when not positive) after one without. It stops
// at the first error, which it yields; the feed keeps its Token, so Follow
// can be called again to go on. An answer with calls but no Token ends it
// with an error too, since nothing would tell the next request where to
// start.
func (f *CallFeed) Follow(ctx context.Context, every time.Duration) iter.Seq2[Call, error] {
	if every <= 0 {
		every = DefaultCallPollInterval
	}
	return func(yield func(Call, error) bool) {
		for {
			before := f.Token()
			page, err := f.next(ctx)
			if err != nil {
				if ctx.Err() == nil {
					yield(Call{}, err)
				}
				return
			}
			if len(page.Calls) > 0 && (page.Token == "" || page.Token == before) {
				yield(Call{}, fmt.Errorf("telco: following calls: %w", errNoToken))
				return
			}
			for _, c := range page.Calls {
				if !yield(c, nil) {
					return
				}
			}
			if len(page.Calls) > 0 {
				continue
			}
			t := time.NewTimer(every)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Validate checks the listing's rules: DateTo after DateFrom when both
// are set; every disposition is Answered, IVR, Busy, NoAnswer or Failed;
// no element of a list filter is empty or holds a comma, which would
// split it; every IVR key is made of 0-9, * and #. nil asks for the
// defaults. It names Calls.ListByProperty.
func (p *ListCallsParams) Validate() error {
	if p == nil {
		return nil
	}
	return p.check().err("Calls.ListByProperty")
}

func (p ListCallsParams) check() fieldErrs {
	var f fieldErrs
	if !p.DateFrom.IsZero() && !p.DateTo.IsZero() && !p.DateTo.After(p.DateFrom) {
		f.invalid("Date_To", "Date_To must be after Date_From")
	}
	for _, d := range p.Dispositions {
		if !d.Known() {
			f.invalid("Disposition", "Disposition must be Answered, IVR, Busy, NoAnswer or Failed, not "+strconv.Quote(string(d)))
		}
	}
	for _, l := range []struct {
		name string
		vs   []string
	}{
		{"To", p.To}, {"Endpoint", p.Endpoints},
		{"Attribution_Source", p.AttributionSources}, {"Attribution_Medium", p.AttributionMediums},
		{"Attribution_Campaign", p.AttributionCampaigns}, {"Attribution_Content", p.AttributionContents},
	} {
		for _, v := range l.vs {
			if strings.TrimSpace(v) == "" || strings.Contains(v, ",") {
				f.invalid(l.name, l.name+" values must not be empty or hold a comma")
				break
			}
		}
	}
	for _, path := range p.PromptKeys {
		if len(path) == 0 {
			f.invalid("Prompts_keys", "Prompts_keys paths must hold at least one key")
			break
		}
		bad := false
		for _, k := range path {
			bad = bad || !isIVRKey(k)
		}
		if bad {
			f.invalid("Prompts_keys", "Prompts_keys keys must be made of 0-9, * and #")
			break
		}
	}
	return f
}

// isIVRKey reports whether k is a key press: digits, * and #.
func isIVRKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if (r < '0' || r > '9') && r != '*' && r != '#' {
			return false
		}
	}
	return true
}
