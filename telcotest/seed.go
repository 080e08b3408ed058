package telcotest

import (
	"strconv"
	"time"

	"github.com/telcosdk/telco"
)

// SeedProperties adds n projects, enabled for SMS, named "Seeded project
// 1" to "Seeded project n", without going through HTTP: for load tests
// and benchmarks that need long listings. It returns the projects' SIDs in
// listing order.
func (s *Server) SeedProperties(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sids := make([]string, 0, max(n, 0))
	for i := 1; i <= n; i++ {
		p := &telco.Property{
			AccountSid: s.AccountSid, PropertySid: newSid("PR"), Name: "Seeded project " + strconv.Itoa(i),
			MainDomain: "example.com", TimeZone: "AUS Eastern Standard Time", SmsEnabled: true, Active: true,
		}
		s.st.addProperty(p)
		sids = append(sids, p.PropertySid)
	}
	return sids
}

// SeedInbound stores n received messages on the project, as if sent from
// "+61400000000" onwards to to, created one second apart starting at
// start (truncated to the second), without going through HTTP: for load
// tests and benchmarks that need long message searches. Received messages
// keep their status when read, so repeated searches see the same data. A
// project SID the server does not know yet is created, enabled for SMS.
// Messages.Find finds them all with DateFrom = start and DateTo = start + n
// seconds.
func (s *Server) SeedInbound(propertySid, to string, start time.Time, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.ensureProperty(propertySid)
	base := start.Unix()
	const text = "Seeded inbound message"
	segs := telco.Segments(text).Segments
	for i := 0; i < n; i++ {
		at := telco.Timestamp(base + int64(i))
		s.st.addMessage(&messageRec{Message: telco.Message{
			MessageSid: newSid("MG"), AccountSid: s.AccountSid, PropertySid: propertySid,
			From: "+614" + pad8(i), To: to, Text: text, NumSegments: segs,
			Status: telco.MessageReceived, Direction: telco.DirectionReceive, Created: at, Received: at,
		}})
	}
}

// pad8 is i modulo 10^8 as eight digits.
func pad8(i int) string {
	s := strconv.Itoa(i % 100_000_000)
	for len(s) < 8 {
		s = "0" + s
	}
	return s
}

// AddProperty adds a project named name, enabled for SMS, to the account,
// without going through HTTP, and returns it; false when the server has
// no such account. `telco mock --projects` gives each account its further
// projects with it.
func (s *Server) AddProperty(accountSid, name string) (telco.Property, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.st.accounts[accountSid]; !ok {
		return telco.Property{}, false
	}
	p := &telco.Property{
		AccountSid: accountSid, PropertySid: newSid("PR"), Name: name,
		MainDomain: "example.com", TimeZone: "AUS Eastern Standard Time", SmsEnabled: true, Active: true,
	}
	s.st.addProperty(p)
	return *p, true
}
