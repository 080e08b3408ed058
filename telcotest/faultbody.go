package telcotest

import (
	"html"
	"net/http"
	"strconv"
)

// FaultBody is what a FaultStatus answer carries. A client of the real
// service meets more than the service's own error envelope: the web
// server or load balancer in front of it answers failures of its own
// with an HTML page, or with nothing at all.
type FaultBody int

const (
	// FaultBodyService is the service's JSON error envelope, with the
	// ErrorCode INJECTED_FAULT: the zero value.
	FaultBodyService FaultBody = iota
	// FaultBodyHTML is an HTML error page (Content-Type text/html), as a
	// web server in front of the service sends when the service behind it
	// failed: a client that reads every error body as JSON must still
	// report the status.
	FaultBodyHTML
	// FaultBodyEmpty is no body at all (Content-Length: 0) and no
	// Content-Type.
	FaultBodyEmpty
)

// faultBodies are the FaultBody values by their String, for ParseFault
// and the admin API.
var faultBodies = []FaultBody{FaultBodyService, FaultBodyHTML, FaultBodyEmpty}

// String names the body as ParseFault and the admin API take it:
// "service", "html" or "empty".
func (b FaultBody) String() string {
	switch b {
	case FaultBodyService:
		return "service"
	case FaultBodyHTML:
		return "html"
	case FaultBodyEmpty:
		return "empty"
	}
	return "FaultBody(" + strconv.Itoa(int(b)) + ")"
}

// faultStatus is the status a FaultStatus answer has: f.Status, or 500
// when that is 0 or no HTTP status.
func faultStatus(f *Fault) int {
	if f.Status < 100 || f.Status > 999 {
		return http.StatusInternalServerError
	}
	return f.Status
}

// writeFaultStatus answers as a FaultStatus fault says, without acting on
// the request.
func writeFaultStatus(w http.ResponseWriter, f *Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	status := faultStatus(f)
	switch f.Body {
	case FaultBodyHTML:
		// The shape of a stock web server's error page: a title and a
		// heading, nothing a JSON decoder can read.
		text := html.EscapeString(strconv.Itoa(status) + " " + http.StatusText(status))
		page := "<!DOCTYPE html>\n<html>\n<head><title>" + text + "</title></head>\n<body>\n<h1>" + text +
			"</h1>\n<p>The server in front of the service could not complete the request.</p>\n</body>\n</html>\n"
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(page)))
		w.WriteHeader(status)
		_, _ = w.Write([]byte(page))
	case FaultBodyEmpty:
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(status)
	default:
		writeError(w, status, "INJECTED_FAULT", "telcotest: injected failure")
	}
}
