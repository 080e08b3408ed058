package telcotest

import (
	"math"
	"net/http"
	"sort"
	"strings"

	"github.com/telcosdk/telco"
)

// blockQuery is a parsed number-block search.
type blockQuery struct {
	owner                         string // the caller: only its blocks are found
	accountSid, propertySid, text string
	active, sms, voice            *bool
	associations, total           bool
	index, size                   int
	sortBy, sortDir               string
}

func parseBlockQuery(w http.ResponseWriter, r *http.Request) (*blockQuery, bool) {
	q := r.URL.Query()
	bq := &blockQuery{owner: caller(r), accountSid: q.Get("AccountSid"), propertySid: q.Get("PropertySid"), text: q.Get("Text"),
		sortBy: q.Get("SortBy"), sortDir: strings.ToLower(q.Get("SortDir"))}
	var ok bool
	for _, b := range []struct {
		name string
		dst  **bool
	}{{"Active", &bq.active}, {"Sms", &bq.sms}, {"Voice", &bq.voice}} {
		if *b.dst, ok = queryBool(w, q, b.name); !ok {
			return nil, false
		}
	}
	assoc, ok := queryBool(w, q, "IncludeAssociations")
	if !ok {
		return nil, false
	}
	bq.associations = assoc != nil && *assoc
	total, ok := queryBool(w, q, "IncludeTotalCount")
	if !ok {
		return nil, false
	}
	bq.total = total == nil || *total
	if bq.index, ok = queryInt(w, q, "PageIndex", 0); !ok {
		return nil, false
	}
	if bq.size, ok = queryInt(w, q, "PageSize", 10); !ok {
		return nil, false
	}
	if bq.size == 0 {
		bq.size = 10
	}
	// The first item's offset must fit in an int: a page past any
	// possible store is a bad parameter, not a crash.
	if bq.index > math.MaxInt/bq.size {
		writeField(w, telco.CodeParameterInvalid, "PageIndex", "PageIndex is too large for this PageSize")
		return nil, false
	}
	if bq.sortBy == "" {
		bq.sortBy = "Id"
	}
	if bq.sortDir == "" {
		bq.sortDir = "asc"
	}
	p := telco.NumberBlockListParams{SortDir: bq.sortDir}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return nil, false
	}
	return bq, true
}

func (bq *blockQuery) matches(st *store, rec *blockRec) bool {
	b := &rec.block
	if st.owner(rec.propertySid) != bq.owner || (bq.propertySid != "" && rec.propertySid != bq.propertySid) {
		return false
	}
	for _, f := range []struct {
		want *bool
		have bool
	}{{bq.active, b.Active}, {bq.sms, b.SupportsSms}, {bq.voice, b.SupportsVoice}} {
		if f.want != nil && *f.want != f.have {
			return false
		}
	}
	if bq.text == "" {
		return true
	}
	t := strings.ToLower(bq.text)
	for _, v := range []string{b.Number, b.NumberPattern, b.Name, b.FriendlyName} {
		if strings.Contains(strings.ToLower(v), t) {
			return true
		}
	}
	// The spec also searches Source, Medium, Campaign and Content: the call
	// attribution set on the block's numbers (Numbers.Configure).
	for _, n := range st.numbers {
		if n.propertySid != rec.propertySid || !blockHolds(b, n.cfg.Number) {
			continue
		}
		for _, v := range []string{n.cfg.AttributionSource, n.cfg.AttributionMedium, n.cfg.AttributionCampaign, n.cfg.AttributionContent} {
			if strings.Contains(strings.ToLower(v), t) {
				return true
			}
		}
	}
	return false
}

// blockHolds reports whether the block's pattern covers the number (E.164
// digits, with or without +): each digit of the pattern must match, any
// other character (X, ?, *) stands for any digit, and a pattern without a
// '*' has the number's length.
func blockHolds(b *telco.NumberBlock, number string) bool {
	pat := strings.TrimPrefix(firstNonEmpty(b.NumberPattern, b.Number), "+")
	digits := strings.TrimPrefix(number, "+")
	if pat == "" {
		return false
	}
	for i := 0; i < len(pat); i++ {
		switch {
		case pat[i] == '*':
			return true
		case i >= len(digits):
			return false
		case pat[i] >= '0' && pat[i] <= '9' && pat[i] != digits[i]:
			return false
		}
	}
	return len(pat) == len(digits)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// answer writes the paged envelope of the blocks that match.
func (s *Server) answerBlocks(w http.ResponseWriter, bq *blockQuery) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var found []telco.NumberBlock
	for _, rec := range s.st.blocks {
		if bq.matches(&s.st, rec) {
			b := rec.block
			if !bq.associations {
				b.NumberBlockAssignments, b.AnalyticsDynamicNumbers = nil, nil
			}
			found = append(found, b)
		}
	}
	// A strict order on the sort field, ties in ascending Id either way,
	// so that equal names page the same on every request.
	cmp := func(a, b *telco.NumberBlock) int {
		switch strings.ToLower(bq.sortBy) {
		case "name":
			return strings.Compare(a.Name, b.Name)
		case "number":
			return strings.Compare(a.Number, b.Number)
		case "created":
			return a.Created.Compare(b.Created.Time)
		}
		return a.ID - b.ID
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := &found[i], &found[j]
		c := cmp(a, b)
		if bq.sortDir == "desc" {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
		return a.ID < b.ID
	})
	start := min(bq.index*bq.size, len(found)) // no overflow: parseBlockQuery bounds index
	end := start + min(bq.size, len(found)-start)
	total := 0
	if bq.total {
		total = len(found)
	}
	writeJSON(w, http.StatusOK, telco.NumberBlockPage{Data: append([]telco.NumberBlock{}, found[start:end]...),
		PageIndex: bq.index, PageSize: bq.size, TotalCount: total, SortBy: bq.sortBy, SortDir: bq.sortDir})
}

func (s *Server) searchNumberBlocks(w http.ResponseWriter, r *http.Request, _ pathParams) {
	bq, ok := parseBlockQuery(w, r)
	if !ok {
		return
	}
	if bq.accountSid == "" && bq.propertySid == "" {
		writeField(w, telco.CodeParameterRequired, "AccountSid", "AccountSid or PropertySid is required")
		return
	}
	if bq.accountSid != "" && bq.accountSid != bq.owner {
		if _, known := s.Account(bq.accountSid); known {
			forbidden(w, "account")
			return
		}
		writeError(w, http.StatusBadRequest, telco.CodeAccountNotFound, "The account was not found.")
		return
	}
	if bq.propertySid != "" {
		s.mu.Lock()
		known := s.ownProperty(w, r, bq.propertySid) != nil
		s.mu.Unlock()
		if !known {
			return
		}
	}
	s.answerBlocks(w, bq)
}

func (s *Server) searchNumberBlocksText(w http.ResponseWriter, r *http.Request, pp pathParams) {
	bq, ok := parseBlockQuery(w, r)
	if !ok {
		return
	}
	bq.text = pp["Text"]
	s.answerBlocks(w, bq)
}

func (s *Server) listNumberBlocksByProperty(w http.ResponseWriter, r *http.Request, pp pathParams) {
	bq, ok := parseBlockQuery(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	known := s.ownProperty(w, r, pp["PropertySid"]) != nil
	s.mu.Unlock()
	if !known {
		return
	}
	bq.propertySid = pp["PropertySid"]
	s.answerBlocks(w, bq)
}

func (s *Server) listNumberBlocksByAccount(w http.ResponseWriter, r *http.Request, _ pathParams) {
	bq, ok := parseBlockQuery(w, r)
	if !ok {
		return
	}
	s.answerBlocks(w, bq)
}
