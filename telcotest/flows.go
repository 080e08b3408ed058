package telcotest

import (
	"net/http"

	"github.com/telcosdk/telco"
)

// defaultFlows are the flows every project has from its first use: a
// project on the service comes with flows built in its portal, and
// without them no number could be routed to a flow in the fake.
var defaultFlows = []telco.Flow{
	{Name: "Main menu", Type: "IVR"},
	{Name: "Voicemail", Type: "Voicemail"},
}

// seedFlows gives the project its default flows once. The caller holds
// s.mu.
func (s *Server) seedFlows(propertySid string) {
	if s.st.flowsFor[propertySid] {
		return
	}
	s.st.flowsFor[propertySid] = true
	for _, f := range defaultFlows {
		s.addFlow(propertySid, f)
	}
}

// addFlow stores f on the project, filling in what is unset. The caller
// holds s.mu.
func (s *Server) addFlow(propertySid string, f telco.Flow) telco.Flow {
	f.PropertySid = propertySid
	if f.ConfigID == "" {
		f.ConfigID = newSid("FL")
	}
	if f.Revision == "" {
		f.Revision = "1"
	}
	if f.LastUpdated == 0 {
		f.LastUpdated = telco.TimestampOf(s.now())
	}
	s.st.flows = append(s.st.flows, &f)
	return f
}

// flow returns the project's flow with the ConfigId, or nil. The caller
// holds s.mu.
func (st *store) flow(propertySid, configID string) *telco.Flow {
	for _, f := range st.flows {
		if f.PropertySid == propertySid && f.ConfigID == configID {
			return f
		}
	}
	return nil
}

// AddFlow adds a flow to the project, beside the two every project has
// ("Main menu" and "Voicemail"), and returns it: ConfigID (a generated
// SID), Revision ("1") and LastUpdated (now) are filled in when unset. A
// project SID the server does not know yet is created, enabled for SMS.
// Numbers.Configure and NumberBlocks.Configure refuse a Flow the number's
// or block's project does not have with FLOW_NOT_FOUND.
func (s *Server) AddFlow(propertySid string, f telco.Flow) telco.Flow {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.ensureProperty(propertySid)
	s.seedFlows(propertySid)
	return s.addFlow(propertySid, f)
}

// listFlows answers the project's flows as a bare array: the
// documentation says "a list of objects" and shows no envelope.
func (s *Server) listFlows(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		s.seedFlows(prop.PropertySid)
		var all []telco.Flow
		for _, f := range s.st.flows {
			if f.PropertySid == prop.PropertySid {
				all = append(all, *f)
			}
		}
		page, _, ok := skipPage(w, r.URL.Query(), all, 50)
		if ok {
			writeJSON(w, http.StatusOK, page)
		}
	})
}
