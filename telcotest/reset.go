package telcotest

// Checkpoint and Reset: one fake shared by a whole test suite, put back
// between tests. The store is copied, deeply, when checkpointed and again
// when reset (the copy a reset installs is changed by what follows, the
// checkpoint never is), rather than seeded again: seeding again would
// generate new SIDs and tokens, and `telco mock` has printed its own.

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/telcosdk/telco"
)

// Checkpoint records what the fake stores now as the state Reset returns
// to: accounts, projects, numbers, number blocks, flows, calls, logins,
// trunks, addresses, porting requests, messages and the rest. The default
// flows of its projects, which are otherwise made on first use, are made
// now, so that their ConfigIDs are the same after every reset. NewServer
// checkpoints once it has added its accounts (WithAccount), so a server
// that never calls it resets to its state at start; a test, or `telco
// mock`, that seeds more (AddNumber, AddFlow, AddCall, AddProperty, ...)
// checkpoints after.
func (s *Server) Checkpoint() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.st.properties {
		s.seedFlows(p.PropertySid)
	}
	s.seed = s.st.clone()
}

// Reset puts the fake back as it was at the last Checkpoint, and forgets
// what happened since: the messages, the requests (Requests counts from 0
// again), every fault and the fault policy, the numbers given to
// FailMessagesTo, and the callbacks (Callbacks lists none; webhooks queued
// and not yet sent are dropped, those in flight finish unrecorded). The
// clock is not moved back, and a fault's VisibleAfter no longer hides
// anything. It is safe to call while requests are served; what they do
// lands before or after the reset, never half of it.
func (s *Server) Reset() { s.reset() }

// resetCounts is what a reset dropped, for the admin API's answer.
type resetCounts struct {
	Messages  int `json:"messages"`
	Requests  int `json:"requests"`
	Callbacks int `json:"callbacks"`
	Faults    int `json:"faults"`
}

func (s *Server) reset() resetCounts {
	var n resetCounts
	s.mu.Lock()
	n.Messages = len(s.st.messages) - len(s.seed.messages) // messages are only ever added
	s.st = s.seed.clone()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timerAt = time.Time{}
	if !s.closed {
		s.advanceAll(s.now()) // and arm the timer for the checkpoint's pending messages
	}
	s.mu.Unlock()

	fs := &s.faults
	fs.mu.Lock()
	n.Requests, n.Faults = fs.requests, len(fs.pending)
	fs.pending, fs.policy = nil, nil
	fs.requests, fs.log = 0, requestLog{}
	fs.mu.Unlock()

	n.Callbacks = s.hooks.reset()
	return n
}

// clone copies the store deeply: the copy shares no pointer, slice or map
// with st (TestStoreClone_SharesNothing), and its indexes are built
// afresh. Messages a fault's VisibleAfter hides are shown.
func (st *store) clone() store {
	c := newStore(st.accountSid)
	for sid, a := range st.accounts {
		cp := *a
		c.accounts[sid] = &cp
	}
	for _, p := range st.properties {
		cp := *p
		c.addProperty(&cp)
	}
	for _, m := range st.messages {
		cp := *m
		c.addMessage(&cp)
		if !cp.final && cp.Direction == telco.DirectionTransmit {
			c.pending.push(&cp) // as accept and advanceAll keep them
		}
	}
	for to, ls := range st.leases {
		cs := make([]*leaseRec, len(ls))
		for i, l := range ls {
			cp := *l
			cs[i] = &cp
		}
		c.leases[to] = cs
	}
	c.leased, c.failTo, c.smsOff = maps.Clone(st.leased), maps.Clone(st.failTo), maps.Clone(st.smsOff)
	c.flowsFor, c.loginOwner = maps.Clone(st.flowsFor), maps.Clone(st.loginOwner)
	for digits, n := range st.numbers {
		cp := *n
		cp.caps = slices.Clone(n.caps)
		c.numbers[digits] = &cp
	}
	c.blocks = cloneAll(st.blocks, func(b blockRec) blockRec { b.block = cloneBlock(b.block); return b })
	c.logins = cloneAll(st.logins, cloneLogin)
	c.trunks = cloneAll(st.trunks, func(t trunkRec) trunkRec { t.trunk = cloneTrunk(t.trunk); return t })
	c.porting = cloneAll(st.porting, func(p portingRec) portingRec { p.req = clonePorting(p.req); return p })
	c.addresses = cloneAll(st.addresses, func(a telco.Address) telco.Address { return a })
	c.flows = cloneAll(st.flows, func(f telco.Flow) telco.Flow { return f })
	c.calls = cloneAll(st.calls, func(r callRec) callRec { r.call.Extra = cloneRaw(r.call.Extra); return r })
	c.callSeq, c.nextID = st.callSeq, st.nextID
	return c
}

// cloneAll copies a list of records, each with deep.
func cloneAll[T any](list []*T, deep func(T) T) []*T {
	if list == nil {
		return nil
	}
	out := make([]*T, len(list))
	for i, p := range list {
		cp := deep(*p)
		out[i] = &cp
	}
	return out
}

// clonePtr copies what p points to; nil stays nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	cp := *p
	return &cp
}

func cloneRaw(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

func cloneBlock(b telco.NumberBlock) telco.NumberBlock {
	b.SipTrunkID = clonePtr(b.SipTrunkID)
	b.Modified, b.QuarantineStartDate, b.QuarantineEndDate = clonePtr(b.Modified), clonePtr(b.QuarantineStartDate), clonePtr(b.QuarantineEndDate)
	b.NumberBlockAssignments = slices.Clone(b.NumberBlockAssignments)
	for i := range b.NumberBlockAssignments {
		b.NumberBlockAssignments[i].Raw = slices.Clone(b.NumberBlockAssignments[i].Raw)
	}
	b.AnalyticsDynamicNumbers = slices.Clone(b.AnalyticsDynamicNumbers)
	return b
}

func cloneLogin(l telco.OnlineLogin) telco.OnlineLogin {
	l.Permissions = slices.Clone(l.Permissions)
	for i := range l.Permissions {
		l.Permissions[i].Scopes = slices.Clone(l.Permissions[i].Scopes)
	}
	return l
}

func cloneTrunk(t telco.SipTrunk) telco.SipTrunk {
	t.SipTrunkAllowedCountries = slices.Clone(t.SipTrunkAllowedCountries)
	t.SipTrunkNumberRanges = slices.Clone(t.SipTrunkNumberRanges)
	t.SipTrunkIPAddresses = slices.Clone(t.SipTrunkIPAddresses)
	t.SipTrunkCredentials = clonePtr(t.SipTrunkCredentials)
	return t
}

func clonePorting(r telco.PortingRequest) telco.PortingRequest {
	r.PortingNumbers = slices.Clone(r.PortingNumbers)
	for i := range r.PortingNumbers {
		r.PortingNumbers[i].StatusHistory = slices.Clone(r.PortingNumbers[i].StatusHistory)
	}
	return r
}
