package telcotest

import (
	"github.com/telcosdk/telco"
)

// Indexes of the store, so that a Get by SID and a listing's page cost the
// item or the page, not a scan or a copy of everything stored: with 100,000
// projects, listing them page by page copied every project for every page.
// They live in the store, under Server.mu, and are kept by the add
// functions, the only way items enter the store (nothing is ever removed).
type storeIndex struct {
	propBySid   map[string]*telco.Property
	propsByAcct map[string][]*telco.Property // each account's, in creation order
	msgBySid    map[string]*messageRec
}

// addProperty stores a project, in creation order, as listings return it.
func (st *store) addProperty(p *telco.Property) {
	st.properties = append(st.properties, p)
	ix := &st.ix
	if ix.propBySid == nil {
		ix.propBySid = map[string]*telco.Property{}
		ix.propsByAcct = map[string][]*telco.Property{}
	}
	ix.propBySid[p.PropertySid] = p
	ix.propsByAcct[p.AccountSid] = append(ix.propsByAcct[p.AccountSid], p)
}

// accountProperties are the account's projects in creation order; the
// caller must not change the slice.
func (st *store) accountProperties(accountSid string) []*telco.Property {
	return st.ix.propsByAcct[accountSid]
}

// indexMessage makes a stored message findable by its SID.
func (st *store) indexMessage(m *messageRec) {
	if st.ix.msgBySid == nil {
		st.ix.msgBySid = map[string]*messageRec{}
	}
	st.ix.msgBySid[m.MessageSid] = m
}

// message is the stored message with the SID, or nil.
func (st *store) message(sid string) *messageRec { return st.ix.msgBySid[sid] }

// copyPage copies the items a page of pointers points to: the answer is
// encoded after the lock is let go, so it must not share the store's items.
func copyPage[T any](page []*T) []T {
	out := make([]T, len(page))
	for i, p := range page {
		out[i] = *p
	}
	return out
}
