package telcotest

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/telcosdk/telco"
)

// findIndex keeps each project's messages in creation-time order, all of
// them and per direction, so that Find locates its window by binary search
// and copies only its page: paging through N stored messages costs O(N),
// not O(N²). It lives in the store, under Server.mu.
type findIndex struct {
	byProp map[string]*propMessages
	// hidden are messages a VisibleAfter fault keeps from Find until the
	// time given; hiddenUntil is the latest of those times, after which
	// Find takes its fast path again.
	hidden      map[*messageRec]time.Time
	hiddenUntil time.Time
	// visited counts the stored messages Find has examined, so that tests
	// can assert on the work a page costs.
	visited int
}

// propMessages are one project's messages, each slice ordered by Created
// and, within a second, by insertion.
type propMessages struct {
	all, transmit, receive []*messageRec
}

// addMessage stores a message: in creation order, as listings return it,
// and in the project's Find index.
func (st *store) addMessage(m *messageRec) {
	st.messages = append(st.messages, m)
	st.indexMessage(m)
	ix := &st.find
	if ix.byProp == nil {
		ix.byProp = map[string]*propMessages{}
	}
	pm := ix.byProp[m.PropertySid]
	if pm == nil {
		pm = &propMessages{}
		ix.byProp[m.PropertySid] = pm
	}
	pm.all = insertByCreated(pm.all, m)
	if m.Direction == telco.DirectionReceive {
		pm.receive = insertByCreated(pm.receive, m)
	} else {
		pm.transmit = insertByCreated(pm.transmit, m)
	}
}

// insertByCreated adds m after every message created in the same second
// or earlier: an append, unless a test seeded messages out of order.
func insertByCreated(list []*messageRec, m *messageRec) []*messageRec {
	n := len(list)
	if n == 0 || list[n-1].Created <= m.Created {
		return append(list, m)
	}
	i := sort.Search(n, func(i int) bool { return list[i].Created > m.Created })
	list = append(list, nil)
	copy(list[i+1:], list[i:])
	list[i] = m
	return list
}

// visibleAfterKey carries a fault's VisibleAfter to the send handlers.
type visibleAfterKey struct{}

// hideNew keeps a message the request created from Find for the request's
// VisibleAfter, when a fault set one. The caller holds s.mu.
func (s *Server) hideNew(r *http.Request, m *messageRec) {
	d, _ := r.Context().Value(visibleAfterKey{}).(time.Duration)
	if d <= 0 {
		return
	}
	ix := &s.st.find
	if ix.hidden == nil {
		ix.hidden = map[*messageRec]time.Time{}
	}
	until := s.now().Add(d)
	ix.hidden[m] = until
	if until.After(ix.hiddenUntil) {
		ix.hiddenUntil = until
	}
}

// withVisibleAfter marks r so that the messages it creates stay hidden
// from Find for d.
func withVisibleAfter(r *http.Request, d time.Duration) *http.Request {
	if d <= 0 {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), visibleAfterKey{}, d))
}

// page returns one Results_Skip page of the project's messages created in
// [from, to) (Unix seconds), with the status and direction asked for, as
// of now. Without a Status filter and with no message hidden, it costs the
// page and two binary searches; a Status filter (statuses change, so they
// are not indexed) or a hidden message makes it filter the window.
func (ix *findIndex) page(propertySid string, from, to int64, status telco.MessageStatus, dir telco.Direction,
	skip, count int, now time.Time) []messageOut {
	pm := ix.byProp[propertySid]
	if pm == nil {
		return []messageOut{}
	}
	list := pm.all
	switch dir {
	case telco.DirectionTransmit:
		list = pm.transmit
	case telco.DirectionReceive:
		list = pm.receive
	}
	lo := sort.Search(len(list), func(i int) bool { return int64(list[i].Created) >= from })
	hi := sort.Search(len(list), func(i int) bool { return int64(list[i].Created) >= to })
	if hi < lo {
		hi = lo
	}
	win := list[lo:hi]
	if len(ix.hidden) > 0 && !now.Before(ix.hiddenUntil) {
		clear(ix.hidden)
	}
	if status == "" && len(ix.hidden) == 0 {
		if skip >= len(win) {
			return []messageOut{}
		}
		win = win[skip : skip+min(count, len(win)-skip)]
		out := make([]messageOut, len(win))
		for i, m := range win {
			out[i] = wireOut(m.Message)
		}
		ix.visited += len(win)
		return out
	}
	out := []messageOut{}
	n := 0
	for _, m := range win {
		ix.visited++
		if status != "" && m.Status != status {
			continue
		}
		if until, ok := ix.hidden[m]; ok && now.Before(until) {
			continue
		}
		if n >= skip {
			out = append(out, wireOut(m.Message))
			if len(out) == count {
				break
			}
		}
		n++
	}
	return out
}

// pageQuery reads Results_Count and Results_Skip as skipPage does, without
// answering: the error, if any, is written by the returned function once
// the caller has let go of the lock.
func pageQuery(q url.Values, defCount int) (count, skip int, fail func(http.ResponseWriter)) {
	for _, p := range []struct {
		name string
		v    *int
	}{{"Results_Count", &count}, {"Results_Skip", &skip}} {
		if s := q.Get(p.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				name := p.name
				return 0, 0, func(w http.ResponseWriter) {
					writeField(w, telco.CodeParameterInvalid, name, name+" must be a non-negative integer")
				}
			}
			*p.v = n
		}
	}
	if count == 0 {
		count = defCount
	}
	if skip > math.MaxInt-count {
		return 0, 0, func(w http.ResponseWriter) {
			writeField(w, telco.CodeParameterInvalid, "Results_Count", "Results_Skip plus Results_Count is too large")
		}
	}
	return count, skip, nil
}

// findMessages is operation 8. It holds the lock only to locate the window
// and copy the page, and answers after letting go of it, so that a slow
// reader never stalls the rest of the fake.
func (s *Server) findMessages(w http.ResponseWriter, r *http.Request, pp pathParams) {
	q := r.URL.Query()
	p := telco.FindMessagesParams{Status: telco.MessageStatus(q.Get("Status")), Direction: telco.Direction(q.Get("Direction"))}
	for _, d := range []struct {
		name string
		t    *time.Time
	}{{"Date_From", &p.DateFrom}, {"Date_To", &p.DateTo}} {
		if v := q.Get(d.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				writeField(w, telco.CodeParameterInvalid, d.name, d.name+" must be Unix seconds")
				return
			}
			*d.t = time.Unix(n, 0)
		}
	}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	count, skip, fail := pageQuery(q, 200)

	var page []messageOut
	answer := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		sid := pp["PropertySid"]
		prop := s.st.property(sid)
		switch {
		case prop == nil:
			fail = func(w http.ResponseWriter) { notFound(w, "property") }
		case prop.AccountSid != caller(r):
			fail = func(w http.ResponseWriter) { forbidden(w, "property") }
		case fail == nil:
			now := s.now()
			s.advanceAll(now)
			page = s.st.find.page(sid, p.DateFrom.Unix(), p.DateTo.Unix(), p.Status, p.Direction, skip, count, now)
		}
	}
	answer()
	if fail != nil {
		fail(w)
		return
	}
	writeMessages(w, page)
}
