package telco

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"reflect"
	"strings"

	"github.com/telcosdk/telco/internal/rules"
)

// NumberBlocksService searches number blocks, and buys and configures
// them.
type NumberBlocksService service

// NumberBlocksAPI is the method set of NumberBlocksService, for code that
// wants to substitute a fake.
type NumberBlocksAPI interface {
	Search(ctx context.Context, p *NumberBlockSearchParams) (*NumberBlockPage, error)
	SearchText(ctx context.Context, text string, p *NumberBlockListParams) (*NumberBlockPage, error)
	ListByProperty(ctx context.Context, propertySid string, p *NumberBlockListParams) (*NumberBlockPage, error)
	ListByAccount(ctx context.Context, accountSid string, p *NumberBlockListParams) (*NumberBlockPage, error)
	SearchAll(ctx context.Context, p *NumberBlockSearchParams) iter.Seq2[NumberBlock, error]
	SearchTextAll(ctx context.Context, text string, p *NumberBlockListParams) iter.Seq2[NumberBlock, error]
	ListByPropertyAll(ctx context.Context, propertySid string, p *NumberBlockListParams) iter.Seq2[NumberBlock, error]
	ListByAccountAll(ctx context.Context, accountSid string, p *NumberBlockListParams) iter.Seq2[NumberBlock, error]
	Purchase(ctx context.Context, propertySid string, p *PurchaseNumberBlockParams) (*NumberBlockResult, error)
	Configure(ctx context.Context, numberBlockSid string, p *ConfigureNumberBlockParams) (*NumberBlockResult, error)
}

var _ NumberBlocksAPI = (*NumberBlocksService)(nil)

// NumberBlock is a block of numbers. Its datetimes are in the
// "/Date(ms±hhmm)/" form, read as DateTime.
type NumberBlock struct {
	ID             int    `json:"Id"`
	NumberBlockSid string `json:"NumberBlockSid"`
	// NumberPattern is the block's pattern, with wildcards or ranges; Number
	// holds the same form.
	NumberPattern string `json:"NumberPattern,omitempty"`
	Number        string `json:"Number,omitempty"`
	Name          string `json:"Name,omitempty"`
	FriendlyName  string `json:"FriendlyName,omitempty"`
	SipTrunkID    *int   `json:"SipTrunkId"`
	SipTrunkName  string `json:"SipTrunkName,omitempty"`
	// RoutingMethod is as the service writes it; values seen are "endpoint"
	// and "programmable-voice".
	RoutingMethod         string    `json:"RoutingMethod,omitempty"`
	TerminationNumber     string    `json:"TerminationNumber,omitempty"`
	ProgrammableVoiceURL  string    `json:"ProgrammableVoiceUrl,omitempty"`
	Active                bool      `json:"Active"`
	HasSplitConfiguration bool      `json:"HasSplitConfiguration"`
	BlockSize             int       `json:"BlockSize"`
	RecordingEnabled      bool      `json:"RecordingEnabled"`
	SupportsVoice         bool      `json:"SupportsVoice"`
	SupportsSms           bool      `json:"SupportsSms"`
	SupportsMms           bool      `json:"SupportsMms"`
	Action                int       `json:"Action"`
	Created               DateTime  `json:"Created"`
	Modified              *DateTime `json:"Modified"`
	QuarantineStartDate   *DateTime `json:"QuarantineStartDate"`
	QuarantineEndDate     *DateTime `json:"QuarantineEndDate"`
	SupplierName          string    `json:"SupplierName,omitempty"`
	// NumberBlockAssignments and AnalyticsDynamicNumbers are filled when the
	// search sets IncludeAssociations.
	NumberBlockAssignments  []NumberBlockAssignment `json:"NumberBlockAssignments,omitempty"`
	AnalyticsDynamicNumbers []AnalyticsNumber       `json:"AnalyticsDynamicNumbers,omitempty"`
}

// NumberBlockAssignment is one number-to-project assignment of a block. The
// service does not document its fields, so the element is kept as sent;
// Decode reads it into a type of your own.
type NumberBlockAssignment struct {
	Raw json.RawMessage
}

// UnmarshalJSON keeps the element as sent.
func (a *NumberBlockAssignment) UnmarshalJSON(b []byte) error {
	a.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the element back as it was read.
func (a NumberBlockAssignment) MarshalJSON() ([]byte, error) {
	if len(a.Raw) == 0 {
		return []byte("null"), nil
	}
	return a.Raw, nil
}

// Decode unmarshals the assignment into v.
func (a NumberBlockAssignment) Decode(v any) error { return json.Unmarshal(a.Raw, v) }

// AnalyticsNumber is an analytics (dynamic) number of a block.
type AnalyticsNumber struct {
	ID            int    `json:"Id"`
	PublicNumber  string `json:"PublicNumber,omitempty"`
	RoutingNumber string `json:"RoutingNumber,omitempty"`
	Active        bool   `json:"Active"`
	CountryCode   string `json:"CountryCode,omitempty"`
	GeoCountry    string `json:"GeoCountry,omitempty"`
	GeoRegion     string `json:"GeoRegion,omitempty"`
	GeoCity       string `json:"GeoCity,omitempty"`
	SupportsVoice bool   `json:"SupportsVoice"`
	SupportsSms   bool   `json:"SupportsSms"`
	SupportsMms   bool   `json:"SupportsMms"`
	SupplierName  string `json:"SupplierName,omitempty"`
	VoiceNetwork  string `json:"VoiceNetwork,omitempty"`
}

// NumberBlockListParams are the options every number-block search shares.
// Unset values are not sent, so the service's defaults apply.
type NumberBlockListParams struct {
	Active              *bool // nil: all
	Sms                 *bool // nil: all
	Voice               *bool // nil: all
	IncludeAssociations bool
	PageIndex           int    // 0-based
	PageSize            int    // 0: the service default (10)
	IncludeTotalCount   *bool  // nil: the service default (true)
	SortBy              string // default Id
	SortDir             string // "asc" (default) or "desc"
}

// NumberBlockSearchParams are the options of Search (GET
// /v2/numberblocks). AccountSid or
// PropertySid is required; Text is free text.
type NumberBlockSearchParams struct {
	AccountSid  string
	PropertySid string
	Text        string
	NumberBlockListParams
}

// wireBlockList is NumberBlockListParams as the query carries it; the two
// convert into each other.
type wireBlockList struct {
	Active              *bool  `url:"Active,omitempty"`
	Sms                 *bool  `url:"Sms,omitempty"`
	Voice               *bool  `url:"Voice,omitempty"`
	IncludeAssociations bool   `url:"IncludeAssociations,omitempty"`
	PageIndex           int    `url:"PageIndex,omitempty"`
	PageSize            int    `url:"PageSize,omitempty"`
	IncludeTotalCount   *bool  `url:"IncludeTotalCount,omitempty"`
	SortBy              string `url:"SortBy,omitempty"`
	SortDir             string `url:"SortDir,omitempty"`
}

// wireBlockSearch is NumberBlockSearchParams as the query carries it.
type wireBlockSearch struct {
	AccountSid  string `url:"AccountSid,omitempty"`
	PropertySid string `url:"PropertySid,omitempty"`
	Text        string `url:"Text,omitempty"`
	wireBlockList
}

func (p *NumberBlockListParams) wire() *wireBlockList {
	w := wireBlockList(*p)
	w.SortDir = strings.ToLower(w.SortDir)
	return &w
}

func (p *NumberBlockSearchParams) wire() *wireBlockSearch {
	return &wireBlockSearch{AccountSid: p.AccountSid, PropertySid: p.PropertySid, Text: p.Text,
		wireBlockList: *p.NumberBlockListParams.wire()}
}

// NumberBlockPage is one page of a number-block search. The SDK reads it
// as it reads every answer: integers may come as numeric strings, a count
// that is not a number is 0, and a bare array is read as Data.
type NumberBlockPage struct {
	Data       []NumberBlock `json:"Data"`
	PageIndex  int           `json:"PageIndex"`
	PageSize   int           `json:"PageSize"`
	TotalCount int           `json:"TotalCount"`
	SortBy     string        `json:"SortBy"`
	SortDir    string        `json:"SortDir"`
}

// defaultBlockPageSize is the service's page size for number-block searches.
const defaultBlockPageSize = 10

// Search searches the number blocks of an account or project:
// GET /v2/numberblocks.
func (s *NumberBlocksService) Search(ctx context.Context, p *NumberBlockSearchParams) (*NumberBlockPage, error) {
	const op = "NumberBlocks.Search"
	if err := s.client.requireParams(op, p != nil, p.check); err != nil {
		return nil, err
	}
	return s.list(ctx, op, "/v2/numberblocks", p.wire())
}

// SearchText searches number blocks whose number, name, friendly name or
// attribution (source, medium, campaign, content) matches text:
// GET /v2/numberblocks/{Text}, the text escaped as one path segment.
func (s *NumberBlocksService) SearchText(ctx context.Context, text string, p *NumberBlockListParams) (*NumberBlockPage, error) {
	return s.listUnder(ctx, "NumberBlocks.SearchText", "Text", text, "/v2/numberblocks/{Text}", p)
}

// ListByProperty lists the project's number blocks:
// GET /v2/Properties/{PropertySid}/numberblocks.
func (s *NumberBlocksService) ListByProperty(ctx context.Context, propertySid string, p *NumberBlockListParams) (*NumberBlockPage, error) {
	return s.listUnder(ctx, "NumberBlocks.ListByProperty", "PropertySid", propertySid,
		"/v2/Properties/{PropertySid}/numberblocks", p)
}

// ListByAccount lists the account's number blocks:
// GET /v2/Accounts/{AccountSid}/numberblocks.
func (s *NumberBlocksService) ListByAccount(ctx context.Context, accountSid string, p *NumberBlockListParams) (*NumberBlockPage, error) {
	return s.listUnder(ctx, "NumberBlocks.ListByAccount", "AccountSid", accountSid,
		"/v2/Accounts/{AccountSid}/numberblocks", p)
}

func (s *NumberBlocksService) listUnder(ctx context.Context, op, name, value, pattern string, p *NumberBlockListParams) (*NumberBlockPage, error) {
	if err := pathParam(op, name, value); err != nil {
		return nil, err
	}
	q := deref(p)
	if err := s.client.validateParams(op, q.check); err != nil {
		return nil, err
	}
	return s.list(ctx, op, escapedPath(pattern, value), q.wire())
}

// list runs a number-block search.
func (s *NumberBlocksService) list(ctx context.Context, op, path string, query any) (*NumberBlockPage, error) {
	var out blockPage
	if err := s.client.do(ctx, &call{op: op, method: http.MethodGet, idempotent: true, path: path, query: query}, &out); err != nil {
		return nil, err
	}
	return &out.page, nil
}

// numberBlocksList is a number-block page: the blocks under Data, or a
// bare array, read as every listing is (decode.go); PageIndex, PageSize,
// SortBy and SortDir are listing metadata there.
var numberBlocksList = listOf[NumberBlock]("Data")

// blockPage reads a number-block page through numberBlocksList.
type blockPage struct{ page NumberBlockPage }

func (p *blockPage) decodeBody(b []byte) error {
	l := listAnswer[NumberBlock]{shape: numberBlocksList}
	err := l.decodeBody(b)
	m := &l.meta
	p.page = NumberBlockPage{Data: l.items, PageIndex: int(m.PageIndex), PageSize: int(m.PageSize),
		TotalCount: int(m.TotalCount), SortBy: string(m.SortBy), SortDir: string(m.SortDir)}
	return err
}

// SearchAll iterates over every block Search finds, from p.PageIndex on.
func (s *NumberBlocksService) SearchAll(ctx context.Context, p *NumberBlockSearchParams) iter.Seq2[NumberBlock, error] {
	var q NumberBlockSearchParams
	if p != nil {
		q = *p
	}
	return pageIndexIterate(ctx, "NumberBlocks.SearchAll", q.NumberBlockListParams,
		func(ctx context.Context, lp NumberBlockListParams) (*NumberBlockPage, error) {
			r := q
			r.NumberBlockListParams = lp
			return s.Search(ctx, &r)
		})
}

// SearchTextAll iterates over every block SearchText finds.
func (s *NumberBlocksService) SearchTextAll(ctx context.Context, text string, p *NumberBlockListParams) iter.Seq2[NumberBlock, error] {
	return pageIndexIterate(ctx, "NumberBlocks.SearchTextAll", deref(p),
		func(ctx context.Context, lp NumberBlockListParams) (*NumberBlockPage, error) {
			return s.SearchText(ctx, text, &lp)
		})
}

// ListByPropertyAll iterates over every block of the project.
func (s *NumberBlocksService) ListByPropertyAll(ctx context.Context, propertySid string, p *NumberBlockListParams) iter.Seq2[NumberBlock, error] {
	return pageIndexIterate(ctx, "NumberBlocks.ListByPropertyAll", deref(p),
		func(ctx context.Context, lp NumberBlockListParams) (*NumberBlockPage, error) {
			return s.ListByProperty(ctx, propertySid, &lp)
		})
}

// ListByAccountAll iterates over every block of the account.
func (s *NumberBlocksService) ListByAccountAll(ctx context.Context, accountSid string, p *NumberBlockListParams) iter.Seq2[NumberBlock, error] {
	return pageIndexIterate(ctx, "NumberBlocks.ListByAccountAll", deref(p),
		func(ctx context.Context, lp NumberBlockListParams) (*NumberBlockPage, error) {
			return s.ListByAccount(ctx, accountSid, &lp)
		})
}

// pageIndexIterate pages a PageIndex / PageSize listing from the caller's
// PageIndex on, one request per page, until the data runs out or
// TotalCount is reached.
func pageIndexIterate(ctx context.Context, op string, lp NumberBlockListParams,
	list func(ctx context.Context, lp NumberBlockListParams) (*NumberBlockPage, error)) iter.Seq2[NumberBlock, error] {
	size := lp.PageSize
	if size <= 0 {
		size = defaultBlockPageSize
	}
	start := lp.PageIndex
	return iterate(ctx, op, size, func(ctx context.Context, n, _ int) ([]NumberBlock, int, error) {
		p := lp
		p.PageIndex = start + n
		page, err := list(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		ps := size
		if page.PageSize > 0 {
			ps = page.PageSize // the service's own page size decides where pages start
		}
		return page.Data, remaining(page.TotalCount, start*ps), nil
	})
}

// PurchaseNumberBlockParams is a number block to buy (the service's page
// "purchase-number-block", which could be read only in part):
//   - AnswerPoint is required: where the block's calls are answered;
//   - AccountSid or PropertySid names the owner; when both are empty the
//     project of the path is sent as PropertySid, and a PropertySid other
//     than the path's is refused;
//   - GroupType is 0 or 1, Preamble 0, 1 or 2, RoutingAction 0 to 3 when
//     set (nil: not sent); what the values mean is not documented;
//   - Dialplan is sent as Diaplan, the page's spelling.
//
// The page lists more fields it does not show: Extra carries them, each
// sent under its key as given. A key that names one of the fields above
// is refused.
type PurchaseNumberBlockParams struct {
	AnswerPoint   string
	AccountSid    string
	PropertySid   string
	GroupType     *int
	Preamble      *int
	RoutingAction *int
	Dialplan      string // wire Diaplan
	Extra         map[string]any
}

// purchaseFields are the wire names of PurchaseNumberBlockParams' typed
// fields, which Extra may not name.
var purchaseFields = []string{"AnswerPoint", "AccountSid", "PropertySid", "GroupType", "Preamble", "RoutingAction", "Diaplan"}

type wirePurchaseBlock struct {
	AnswerPoint   string         `json:"AnswerPoint"`
	AccountSid    string         `json:"AccountSid,omitempty"`
	PropertySid   string         `json:"PropertySid,omitempty"`
	GroupType     *int           `json:"GroupType,omitempty"`
	Preamble      *int           `json:"Preamble,omitempty"`
	RoutingAction *int           `json:"RoutingAction,omitempty"`
	Diaplan       string         `json:"Diaplan,omitempty"`
	extra         map[string]any // merged in by MarshalJSON
}

// MarshalJSON writes the typed fields, then Extra's.
func (w wirePurchaseBlock) MarshalJSON() ([]byte, error) {
	type plain wirePurchaseBlock
	b, err := json.Marshal(plain(w))
	if err != nil || len(w.extra) == 0 {
		return b, err
	}
	e, err := json.Marshal(w.extra)
	if err != nil {
		return nil, err
	}
	// Both are non-empty objects: join them as one.
	return append(append(b[:len(b)-1], ','), e[1:]...), nil
}

func (p *PurchaseNumberBlockParams) wire(propertySid string) *wirePurchaseBlock {
	w := &wirePurchaseBlock{AnswerPoint: strings.TrimSpace(p.AnswerPoint), AccountSid: strings.TrimSpace(p.AccountSid),
		PropertySid: strings.TrimSpace(p.PropertySid), GroupType: p.GroupType, Preamble: p.Preamble,
		RoutingAction: p.RoutingAction, Diaplan: p.Dialplan, extra: p.Extra}
	if w.AccountSid == "" && w.PropertySid == "" {
		w.PropertySid = propertySid
	}
	return w
}

// BlockRoutingMethod is where a number block's calls go, as
// NumberBlocks.Configure sets it. The configure page writes the values in
// lower case; the block itself reports "endpoint" or "programmable-voice"
// in NumberBlock.RoutingMethod.
type BlockRoutingMethod string

// The routing methods of NumberBlocks.Configure.
const (
	BlockRoutingEndpoint    BlockRoutingMethod = "endpoint"    // to EndpointNumber
	BlockRoutingFlow        BlockRoutingMethod = "flow"        // to Flow, a flow's ConfigId
	BlockRoutingApplication BlockRoutingMethod = "application" // to Application
)

// ConfigureNumberBlockParams routes a number block's calls (the service's
// page "configure-number-block"). RoutingMethod is required and takes the
// field it names: EndpointNumber for endpoint (an Australian answering
// point, +61299999999 or 0299999999), Flow for flow (a flow's ConfigId, as
// Flows.List returns it), Application for application. A field of another
// method is refused, since the service would not use it. RoutingMethod is
// accepted in any case and sent in lower case.
type ConfigureNumberBlockParams struct {
	RoutingMethod  BlockRoutingMethod
	EndpointNumber string
	Flow           string
	Application    string
}

type wireConfigureBlock struct {
	RoutingMethod  BlockRoutingMethod `json:"RoutingMethod"`
	EndpointNumber string             `json:"EndpointNumber,omitempty"`
	Flow           string             `json:"Flow,omitempty"`
	Application    string             `json:"Application,omitempty"`
}

func (p *ConfigureNumberBlockParams) wire() *wireConfigureBlock {
	return &wireConfigureBlock{RoutingMethod: BlockRoutingMethod(strings.ToLower(strings.TrimSpace(string(p.RoutingMethod)))),
		EndpointNumber: p.EndpointNumber, Flow: p.Flow, Application: p.Application}
}

// NumberBlockResult is the answer of NumberBlocks.Purchase and Configure.
// The service's pages do not show its shape ("a confirmation response"),
// so it is read tolerantly and the fields below are inferred: Block is the
// number block when the answer holds one (under NumberBlock or Data, or
// bare with a block's fields besides its SID), NumberBlockSid the block's
// SID when the answer names it at its top level or in Block. Raw is the
// whole answer as sent, for what the SDK did not guess: decode it into a
// type of your own. A block the searches could not read (a datetime they
// refuse) fails the call as it fails them, with an *APIError
// "undecodable response body".
type NumberBlockResult struct {
	NumberBlockSid string
	Block          *NumberBlock
	Raw            json.RawMessage // nil for an empty answer
}

// blockResult decodes a NumberBlockResult; it fails on a body that is not
// JSON, on a block it cannot read (a datetime the searches refuse, say:
// the same error as theirs, rather than a result without its block) and
// on the service's refusal.
type blockResult struct{ res NumberBlockResult }

func (r *blockResult) decodeBody(b []byte) error {
	r.res.Raw = append(json.RawMessage(nil), trimJSONSpace(b)...)
	tree, err := parseTree(b)
	if err != nil {
		return err
	}
	m, isObj := tree.(map[string]any)
	if !isObj {
		return nil // any other JSON value is kept in Raw only
	}
	if sid, ok := member(m, "NumberBlockSid"); ok {
		r.res.NumberBlockSid, _ = sid.(string)
	}
	for _, k := range []string{"NumberBlock", "Data"} {
		if node, ok := member(m, k); ok {
			if _, isObj := node.(map[string]any); isObj {
				r.res.Block = new(NumberBlock)
				if err := assign(node, reflect.ValueOf(r.res.Block).Elem()); err != nil {
					return err
				}
				break
			}
		}
	}
	if r.res.Block == nil && r.res.NumberBlockSid != "" && bareBlock(m) {
		r.res.Block = new(NumberBlock)
		if err := assign(m, reflect.ValueOf(r.res.Block).Elem()); err != nil {
			return err
		}
	}
	if r.res.Block != nil && r.res.NumberBlockSid == "" {
		r.res.NumberBlockSid = r.res.Block.NumberBlockSid
	}
	if r.res.Block == nil && r.res.NumberBlockSid == "" {
		return refusedInTree(m)
	}
	return nil
}

// bareBlock reports whether an answer naming a NumberBlockSid is the block
// itself rather than a confirmation naming it: it has a block's fields too.
func bareBlock(m map[string]any) bool {
	for _, k := range []string{"Id", "NumberPattern", "Number", "BlockSize", "RoutingMethod"} {
		if _, ok := member(m, k); ok {
			return true
		}
	}
	return false
}

// Purchase buys a number block for the project:
// POST /v2/Properties/{PropertySid}/NumberBlocks. It is not idempotent: a
// failure after the request may have reached the service matches
// ErrMaybeSent and is not retried, since a second purchase would buy a
// second block. Check with ListByProperty before buying again.
func (s *NumberBlocksService) Purchase(ctx context.Context, propertySid string, p *PurchaseNumberBlockParams) (*NumberBlockResult, error) {
	const op = "NumberBlocks.Purchase"
	if err := s.client.precheck(op, "PropertySid", propertySid, p != nil, func() fieldErrs {
		f := p.check()
		if ps := strings.TrimSpace(p.PropertySid); ps != "" && ps != strings.TrimSpace(propertySid) {
			f.add(CodeConflictingParameters, "PropertySid", "PropertySid must be the project of the path, or empty")
		}
		return f
	}); err != nil {
		return nil, err
	}
	var out blockResult
	err := s.client.do(ctx, &call{op: op, method: http.MethodPost, emptyOK: true,
		path: escapedPath("/v2/Properties/{PropertySid}/NumberBlocks", propertySid), body: p.wire(propertySid)}, &out)
	if err != nil {
		return nil, err
	}
	return &out.res, nil
}

// Configure routes a number block's calls to an endpoint, a flow or an
// application: POST /v2/numberblocks/{NumberBlockSid}. The service checks
// that the account exists and that the caller may configure the block.
// Setting a routing is idempotent, so Configure is retried like a read.
func (s *NumberBlocksService) Configure(ctx context.Context, numberBlockSid string, p *ConfigureNumberBlockParams) (*NumberBlockResult, error) {
	const op = "NumberBlocks.Configure"
	if err := s.client.precheck(op, "NumberBlockSid", numberBlockSid, p != nil, p.check); err != nil {
		return nil, err
	}
	var out blockResult
	err := s.client.do(ctx, &call{op: op, method: http.MethodPost, idempotent: true, emptyOK: true,
		path: escapedPath("/v2/numberblocks/{NumberBlockSid}", numberBlockSid), body: p.wire()}, &out)
	if err != nil {
		return nil, err
	}
	return &out.res, nil
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Validate checks that AccountSid or PropertySid is given and the list
// options are sound.
func (p *NumberBlockSearchParams) Validate() error {
	if p == nil {
		return nilParams("NumberBlocks.Search")
	}
	return p.check().err("NumberBlocks.Search")
}

func (p *NumberBlockSearchParams) check() fieldErrs {
	var f fieldErrs
	if strings.TrimSpace(p.AccountSid) == "" && strings.TrimSpace(p.PropertySid) == "" {
		f.add(CodeParameterRequired, "AccountSid", "AccountSid or PropertySid is required")
	}
	f = append(f, p.NumberBlockListParams.check()...)
	return f
}

// Validate checks that the page position is not negative and SortDir is
// asc or desc. It serves three methods and reports its problems under the
// operation name "NumberBlocks.ListByProperty"; SearchText and
// ListByAccount apply the same rules under their own names.
func (p *NumberBlockListParams) Validate() error {
	if p == nil {
		return nil
	}
	return p.check().err("NumberBlocks.ListByProperty")
}

func (p *NumberBlockListParams) check() fieldErrs {
	var f fieldErrs
	if p.PageIndex < 0 {
		f.invalid("PageIndex", "PageIndex must not be negative")
	}
	if p.PageSize < 0 {
		f.invalid("PageSize", "PageSize must not be negative")
	}
	if d := p.SortDir; d != "" && !strings.EqualFold(d, "asc") && !strings.EqualFold(d, "desc") {
		f.invalid("SortDir", "SortDir must be asc or desc")
	}
	return f
}

// Validate checks the rules listed on PurchaseNumberBlockParams that do not
// need the path: AnswerPoint given, the integer options in range, and no
// Extra key naming a typed field.
func (p *PurchaseNumberBlockParams) Validate() error {
	if p == nil {
		return nilParams("NumberBlocks.Purchase")
	}
	return p.check().err("NumberBlocks.Purchase")
}

func (p *PurchaseNumberBlockParams) check() fieldErrs {
	var f fieldErrs
	f.required("AnswerPoint", p.AnswerPoint)
	for _, r := range [...]struct {
		name string
		v    *int
		max  int
	}{{"GroupType", p.GroupType, 1}, {"Preamble", p.Preamble, 2}, {"RoutingAction", p.RoutingAction, 3}} {
		if r.v != nil && (*r.v < 0 || *r.v > r.max) {
			f.invalid(r.name, fmt.Sprintf("%s must be 0 to %d", r.name, r.max))
		}
	}
	for k := range p.Extra {
		for _, name := range purchaseFields {
			if strings.EqualFold(strings.TrimSpace(k), name) {
				f.add(CodeConflictingParameters, "Extra."+k, "Extra must not name "+name+", a field of its own")
			}
		}
	}
	return f
}

// Validate checks that RoutingMethod is endpoint, flow or application and
// that exactly the field it names is given: EndpointNumber an Australian
// answering point, or Flow, or Application.
func (p *ConfigureNumberBlockParams) Validate() error {
	if p == nil {
		return nilParams("NumberBlocks.Configure")
	}
	return p.check().err("NumberBlocks.Configure")
}

func (p *ConfigureNumberBlockParams) check() fieldErrs {
	var f fieldErrs
	method := BlockRoutingMethod(strings.ToLower(strings.TrimSpace(string(p.RoutingMethod))))
	targets := [...]struct {
		method BlockRoutingMethod
		name   string
		v      string
	}{{BlockRoutingEndpoint, "EndpointNumber", p.EndpointNumber}, {BlockRoutingFlow, "Flow", p.Flow},
		{BlockRoutingApplication, "Application", p.Application}}
	switch method {
	case "":
		f.add(CodeParameterRequired, "RoutingMethod", "RoutingMethod is required: endpoint, flow or application")
	case BlockRoutingEndpoint, BlockRoutingFlow, BlockRoutingApplication:
	default:
		f.invalid("RoutingMethod", "RoutingMethod must be endpoint, flow or application")
	}
	for _, t := range targets {
		given := strings.TrimSpace(t.v) != ""
		switch {
		case t.method == method && !given:
			f.add(CodeParameterRequired, t.name, fmt.Sprintf("%s is required when RoutingMethod is %s", t.name, method))
		case t.method != method && given && method != "":
			f.add(CodeConflictingParameters, t.name, fmt.Sprintf("%s is only used when RoutingMethod is %s", t.name, t.method))
		}
	}
	if method == BlockRoutingEndpoint && strings.TrimSpace(p.EndpointNumber) != "" {
		if msg := rules.AUAnsweringPointProblem(p.EndpointNumber); msg != "" {
			f.add(CodeInvalidPhoneNumberFormat, "EndpointNumber", "EndpointNumber "+msg)
		}
	}
	return f
}
