package telcotest

// What a test reads of the fake without going through HTTP: how many
// requests reached it, when the requests a fault delayed are done, and
// what it stores.

import "github.com/telcosdk/telco"

// Requests returns how many HTTP requests reached the server, whether they
// were answered, failed by a fault or dropped.
func (s *Server) Requests() int {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	return s.faults.requests
}

// WaitIdle blocks until no request that a fault claimed is still being
// handled: after it, everything such a request did (one delayed by
// FaultLatency after its client gave up, say) is in the store.
func (s *Server) WaitIdle() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	for s.faults.inflight > 0 {
		s.faults.idle.Wait()
	}
}

// Messages returns every message of the project, sent and received, in
// creation order, with their statuses as of the server's clock, without
// going through HTTP. It is how a test counts what the fake took in.
func (s *Server) Messages(propertySid string) []telco.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.advanceAll(s.now())
	}
	var out []telco.Message
	for _, m := range s.st.messages {
		if m.PropertySid == propertySid {
			out = append(out, m.Message)
		}
	}
	return out
}

// Counts is how many resources of each kind the fake stores, across the
// account.
type Counts struct {
	Properties      int
	Messages        int
	OnlineLogins    int
	SipTrunks       int
	PortingRequests int
	Addresses       int
	Numbers         int
	NumberBlocks    int
}

// Counts returns how many resources the fake stores, so that a test can
// tell whether a failed create took effect.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Counts{
		Properties:      len(s.st.properties),
		Messages:        len(s.st.messages),
		OnlineLogins:    len(s.st.logins),
		SipTrunks:       len(s.st.trunks),
		PortingRequests: len(s.st.porting),
		Addresses:       len(s.st.addresses),
		Numbers:         len(s.st.numbers),
		NumberBlocks:    len(s.st.blocks),
	}
}
