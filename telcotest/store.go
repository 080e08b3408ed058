package telcotest

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/telcosdk/telco"
)

var unescape = url.PathUnescape

// utcOffset is UTC written with its offset: "/Date(ms+0000)/".
var utcOffset = time.FixedZone("UTC", 0)

// store is the service's state; Server.mu guards it. Every collection keeps
// creation order, as listings return it.
type store struct {
	accountSid string              // the first account, which seeded data without an owner goes to
	accounts   map[string]*Account // by SID

	properties []*telco.Property
	messages   []*messageRec
	find       findIndex              // messages per project in Created order, for Find (findindex.go)
	pending    pendingQueue           // sent messages whose status will still change, earliest due first (pending.go)
	leases     map[string][]*leaseRec // recipient -> its leases, oldest first
	leased     map[string]bool        // every sender ever leased, so none serves two recipients
	failTo     map[string]bool        // recipients whose messages fail
	smsOff     map[string]bool        // accounts not enabled for SMS
	numbers    map[string]*numberRec
	blocks     []*blockRec
	logins     []*telco.OnlineLogin
	loginOwner map[string]string // OnlineLoginSid -> account: its permissions may change
	trunks     []*trunkRec
	porting    []*portingRec
	addresses  []*telco.Address
	flows      []*telco.Flow   // every project's flows, in creation order (flows.go)
	flowsFor   map[string]bool // projects whose default flows are seeded
	calls      []*callRec      // in the order they were written (calls.go)
	callSeq    int64           // the last call's seq: the Token cursor's clock
	nextID     int
	ix         storeIndex // by SID and by account (index.go)
}

type messageRec struct {
	telco.Message
	sendAt time.Time // when it goes out: its schedule, or its creation
	final  bool      // its status will not change any more
	// Webhooks of the send, which the Message resource does not show.
	receiptURL, receiptMethod string
	leaseURL, leaseMethod     string
	leased                    bool // From was leased for this send
}

type numberRec struct {
	propertySid string
	cfg         telco.NumberConfig
	// What the number listings show beside the configuration (numbers.go).
	typ    telco.NumberType
	caps   telco.NumberCapabilities
	status telco.NumberStatus
}

type blockRec struct {
	propertySid string
	block       telco.NumberBlock
	// flow and application are where NumberBlocks.Configure routed the
	// block, which NumberBlock has no field for.
	flow, application string
}

type trunkRec struct {
	propertySid string
	trunk       telco.SipTrunk
	reads       int
}

type leaseRec struct {
	sender      string
	propertySid string
	expires     time.Time
}

type portingRec struct {
	req     telco.PortingRequest
	updated time.Time // the last status update, which status searches filter on
}

func newStore(accountSid string) store {
	return store{accountSid: accountSid, accounts: map[string]*Account{}, leases: map[string][]*leaseRec{},
		leased: map[string]bool{}, failTo: map[string]bool{}, smsOff: map[string]bool{}, numbers: map[string]*numberRec{},
		flowsFor: map[string]bool{}}
}

// addAccount records an account and seeds its project.
func (st *store) addAccount(sid, token string) *Account {
	p := &telco.Property{
		AccountSid: sid, PropertySid: newSid("PR"), Name: "Default project",
		MainDomain: "example.com", TimeZone: "AUS Eastern Standard Time", SmsEnabled: true, Active: true,
	}
	st.addProperty(p)
	a := &Account{AccountSid: sid, Token: token, PropertySid: p.PropertySid}
	st.accounts[sid] = a
	return a
}

// ensureProperty returns the project, creating it (enabled for SMS) when the
// SID is new, so that tests can seed data under any SID they choose.
func (st *store) ensureProperty(sid string) *telco.Property {
	if p := st.property(sid); p != nil {
		return p
	}
	p := &telco.Property{
		AccountSid: st.accountSid, PropertySid: sid, Name: "Project " + sid,
		MainDomain: "example.com", TimeZone: "AUS Eastern Standard Time", SmsEnabled: true, Active: true,
	}
	st.addProperty(p)
	return p
}

func (st *store) property(sid string) *telco.Property { return st.ix.propBySid[sid] }

func (st *store) id() int {
	st.nextID++
	return st.nextID
}

// withProperty runs f with the project named in the path, under the lock,
// or answers 400 *_NOT_FOUND when there is none and 403 when it belongs to another
// account than the caller's.
func (s *Server) withProperty(w http.ResponseWriter, r *http.Request, p pathParams, f func(prop *telco.Property)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prop := s.ownProperty(w, r, p["PropertySid"]); prop != nil {
		f(prop)
	}
}

// ownProperty returns the caller's project with the SID, or answers 400 (not found) or
// 403 and returns nil. The caller holds s.mu.
func (s *Server) ownProperty(w http.ResponseWriter, r *http.Request, sid string) *telco.Property {
	prop := s.st.property(sid)
	if prop == nil {
		notFound(w, "property")
		return nil
	}
	if prop.AccountSid != caller(r) {
		forbidden(w, "property")
		return nil
	}
	return prop
}

// owner is the account of a project, "" when there is no such project.
func (st *store) owner(propertySid string) string {
	if p := st.property(propertySid); p != nil {
		return p.AccountSid
	}
	return ""
}

// AddNumber gives the project a number (E.164, with or without +), so that
// it can be configured and its address use checked. A project SID the
// server does not know yet is created, enabled for SMS.
func (s *Server) AddNumber(propertySid, e164 string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prop := s.st.ensureProperty(propertySid)
	s.st.addNumber(prop, strings.TrimPrefix(e164, "+"), "", telco.NumberActive)
}

// AddNumberBlock adds a block to the project for the number-block
// searches. Id, NumberBlockSid and Created are filled in when zero. A
// project SID the server does not know yet is created, enabled for SMS.
func (s *Server) AddNumberBlock(propertySid string, b telco.NumberBlock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.ensureProperty(propertySid)
	if b.ID == 0 {
		b.ID = s.st.id()
	}
	if b.NumberBlockSid == "" {
		b.NumberBlockSid = newSid("NB")
	}
	if b.Created.IsZero() {
		// An explicit +0000 offset, as the service writes its datetimes.
		b.Created = telco.DateTime{Time: s.now().In(utcOffset).Truncate(time.Millisecond)}
	}
	if b.Number == "" {
		b.Number = b.NumberPattern
	}
	if b.NumberPattern == "" {
		b.NumberPattern = b.Number
	}
	s.st.blocks = append(s.st.blocks, &blockRec{propertySid: propertySid, block: b})
}

// queryInt reads an integer query parameter, answering 400 when it is not
// one. def is used when the parameter is absent.
func queryInt(w http.ResponseWriter, q url.Values, name string, def int) (int, bool) {
	v := q.Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		writeField(w, telco.CodeParameterInvalid, name, name+" must be a non-negative integer")
		return 0, false
	}
	return n, true
}

// queryBool reads a tri-state boolean: nil when absent or "null".
func queryBool(w http.ResponseWriter, q url.Values, name string) (*bool, bool) {
	v := q.Get(name)
	if v == "" || strings.EqualFold(v, "null") {
		return nil, true
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		writeField(w, telco.CodeParameterInvalid, name, name+" must be true or false")
		return nil, false
	}
	return &b, true
}

// skipPage cuts one Results_Skip / Results_Count page out of items.
func skipPage[T any](w http.ResponseWriter, q url.Values, items []T, defCount int) ([]T, string, bool) {
	count, ok := queryInt(w, q, "Results_Count", defCount)
	if !ok {
		return nil, "", false
	}
	skip, ok := queryInt(w, q, "Results_Skip", 0)
	if !ok {
		return nil, "", false
	}
	if count == 0 {
		count = defCount
	}
	// skip+count must fit in an int, as the service's own arithmetic
	// would need it to; a crash here would drop the connection.
	if skip > math.MaxInt-count {
		writeField(w, telco.CodeParameterInvalid, "Results_Count", "Results_Skip plus Results_Count is too large")
		return nil, "", false
	}
	if skip >= len(items) {
		return []T{}, "", true
	}
	end := skip + min(count, len(items)-skip)
	next := ""
	if end < len(items) {
		next = strconv.Itoa(end)
	}
	return items[skip:end], next, true
}

// listing is the envelope of Results_Skip listings. NextPageToken is a
// string, "" on the last page, as the interface document types it for
// these listings; only the projects listing may answer null (see
// listProperties).
func listing(key string, items any, total int, next string) map[string]any {
	return map[string]any{key: items, "TotalCount": total, "NextPageToken": next}
}
