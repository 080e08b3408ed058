package telcotest

// The admin API beyond faults: telcotest's hooks over HTTP (what the fake
// holds, what reached it, an inbound SMS, its clock, reset, porting and
// message status changes), for test suites in other languages.

import (
	"net/http"
	"time"
)

// adminTime is how the admin API writes times: RFC 3339 in UTC, always
// with three fractional digits (milliseconds), which every language's
// RFC 3339 reader takes.
const adminTime = "2006-01-02T15:04:05.000Z07:00"

func formatAdminTime(t time.Time) string { return t.UTC().Format(adminTime) }

// wireRequest is a request as GET /__telcotest/requests shows it.
type wireRequest struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Op     string `json:"op"`
	Status int    `json:"status"`
	Time   string `json:"time"`
}

// adminRequests answers {"requests": [...], "total": n}: the requests
// RequestRecords holds, and how many Requests counts (more than the list
// once it passes RequestHistory).
func (s *Server) adminRequests(w http.ResponseWriter, _ *http.Request, _ string) {
	recs, total := s.requestRecords()
	out := make([]wireRequest, len(recs))
	for i, r := range recs {
		out[i] = wireRequest{Method: r.Method, Path: r.Path, Op: r.Op, Status: r.Status, Time: formatAdminTime(r.Time)}
	}
	writeJSON(w, http.StatusOK, struct {
		Requests []wireRequest `json:"requests"`
		Total    int           `json:"total"`
	}{out, total})
}
