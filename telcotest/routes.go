package telcotest

import (
	"net/http"
	"sort"
	"strings"

	"github.com/telcosdk/telco/internal/catalog"
)

// handlers are the fake's handlers, by the name of the operation each
// serves in the project's catalogue (internal/catalog), which gives its
// method and path: the router, fault matching and Ops all read the
// catalogue through operations. A test fails for a catalogue row without a
// handler and for a handler without a row.
var handlers = map[string]func(s *Server, w http.ResponseWriter, r *http.Request, p pathParams){
	"NumberBlocks.Search":         (*Server).searchNumberBlocks,
	"NumberBlocks.SearchText":     (*Server).searchNumberBlocksText,
	"NumberBlocks.ListByProperty": (*Server).listNumberBlocksByProperty,
	"NumberBlocks.ListByAccount":  (*Server).listNumberBlocksByAccount,
	"NumberBlocks.Purchase":       (*Server).purchaseNumberBlock,
	"NumberBlocks.Configure":      (*Server).configureNumberBlock,
	"Lookup.NumberDetails":        (*Server).numberDetails,
	"Numbers.Configure":           (*Server).configureNumber,
	"OnlineLogins.Create":         (*Server).createOnlineLogin,
	"OnlineLogins.List":           (*Server).listOnlineLogins,
	"OnlineLogins.Get":            (*Server).getOnlineLogin,
	"OnlineLogins.Update":         (*Server).updateOnlineLogin,
	"Messages.Send":               (*Server).sendMessage,
	"Messages.SendBatch":          (*Server).sendBatch,
	"Messages.Find":               (*Server).findMessages,
	"Messages.Get":                (*Server).getMessage,
	"Properties.Create":           (*Server).createProperty,
	"Properties.List":             (*Server).listProperties,
	"Properties.Get":              (*Server).getProperty,
	"Properties.Update":           (*Server).updateProperty,
	"SipTrunks.Create":            (*Server).createSipTrunk,
	"SipTrunks.List":              (*Server).listSipTrunks,
	"SipTrunks.GetByProperty":     (*Server).sipTrunkDetailsByProperty,
	"SipTrunks.GetByAccount":      (*Server).sipTrunkDetailsByAccount,
	"SipTrunks.Update":            (*Server).updateSipTrunkByProperty,
	"SipTrunks.UpdateByAccount":   (*Server).updateSipTrunkByAccount,
	"Porting.Submit":              (*Server).submitPorting,
	"Porting.StatusByProperty":    (*Server).portingStatusByProperty,
	"Porting.StatusByAccount":     (*Server).portingStatusByAccount,
	"Addresses.Create":            (*Server).createAddress,
	"Addresses.Delete":            (*Server).deleteAddress,
	"Addresses.List":              (*Server).listAddresses,
	"Addresses.Get":               (*Server).getAddress,
	"Flows.List":                  (*Server).listFlows,
	"Numbers.Get":                 (*Server).getNumber,
	"Numbers.ListByProperty":      (*Server).listNumbersByProperty,
	"Numbers.ListByAccount":       (*Server).listNumbersByAccount,
	"Numbers.Purchase":            (*Server).purchaseNumber,
	"Calls.Get":                   (*Server).getCall,
	"Calls.ListByProperty":        (*Server).listCallsByProperty,
	"Calls.ListByAccount":         (*Server).listCallsByAccount,
}

// operations is the catalogue's rows that the fake serves, in the
// catalogue's order.
var operations = func() []operation {
	var out []operation
	for _, o := range catalog.Operations() {
		if h := handlers[o.Name]; h != nil {
			out = append(out, operation{o.Name, o.Method, o.Path, h})
		}
	}
	return out
}()

// operation is one operation the fake serves.
type operation struct {
	name    string
	method  string
	pattern string
	handle  func(s *Server, w http.ResponseWriter, r *http.Request, p pathParams)
}

// route is an operation with its pattern split into segments; a {Name}
// segment captures, a literal one matches without regard to case.
type route struct {
	*operation
	segs []string
}

type pathParams map[string]string

// routes is operations, split once.
var routes = func() []route {
	out := make([]route, len(operations))
	for i := range operations {
		out[i] = route{operation: &operations[i], segs: splitPath(operations[i].pattern)}
	}
	return out
}()

// splitPath splits a path or pattern into its segments, without the
// leading and trailing slash.
func splitPath(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

func isCapture(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

// Ops returns the operation names a Fault's Op accepts, one per route,
// sorted.
func Ops() []string {
	out := make([]string, len(operations))
	for i, op := range operations {
		out[i] = op.name
	}
	sort.Strings(out)
	return out
}

// pathMatches reports whether the path segments fit the pattern segments.
func pathMatches(pattern, segs []string) bool {
	if len(pattern) != len(segs) {
		return false
	}
	for i, p := range pattern {
		if !isCapture(p) && !strings.EqualFold(p, segs[i]) {
			return false
		}
	}
	return true
}

// moreSpecific reports whether pattern a beats pattern b for a path both
// fit: at the first segment where they differ in kind, a literal beats a
// capture, so /v2/Numbers/Details is never the number "Details".
func moreSpecific(a, b []string) bool {
	for i := range a {
		if ca, cb := isCapture(a[i]), isCapture(b[i]); ca != cb {
			return cb
		}
	}
	return false
}

// candidates are the routes of the most specific patterns that fit the
// path, whatever their methods.
func candidates(segs []string) []route { return appendCandidates(nil, segs) }

// appendCandidates is candidates appended to best[:0], so that the router
// can gather them in an array on its stack.
func appendCandidates(best []route, segs []string) []route {
	best = best[:0]
	for _, rt := range routes {
		if !pathMatches(rt.segs, segs) {
			continue
		}
		switch {
		case len(best) == 0 || moreSpecific(rt.segs, best[0].segs):
			best = append(best[:0], rt)
		case !moreSpecific(best[0].segs, rt.segs):
			best = append(best, rt)
		}
	}
	return best
}

// match finds the route for a request. A path that fits no pattern is 404;
// one whose pattern takes other methods only is 405.
func match(method string, segs []string) (route, pathParams, int) {
	var buf [8]route
	cands := appendCandidates(buf[:0], segs)
	if len(cands) == 0 {
		return route{}, nil, http.StatusNotFound
	}
	for _, rt := range cands {
		if rt.method != method {
			continue
		}
		p := pathParams{}
		for i, pat := range rt.segs {
			if isCapture(pat) {
				p[strings.Trim(pat, "{}")] = segs[i]
			}
		}
		return rt, p, 0
	}
	return route{}, nil, http.StatusMethodNotAllowed
}

// allowed lists the methods the path takes, for the Allow header of a 405,
// in a fixed order.
func allowed(segs []string) []string {
	var out []string
	for _, rt := range candidates(segs) {
		out = append(out, rt.method)
	}
	order := "GET HEAD POST PUT PATCH DELETE OPTIONS"
	sort.SliceStable(out, func(i, j int) bool {
		return strings.Index(order, out[i]) < strings.Index(order, out[j])
	})
	return out
}

// opOf is the name of the operation the router gives the request, "" when
// it gives none.
func opOf(method string, segs []string) string {
	rt, _, status := match(method, segs)
	if status != 0 {
		return ""
	}
	return rt.name
}

// requestSegs is the request's path split into unescaped segments, as the
// router reads it.
func requestSegs(r *http.Request) []string { return splitUnescaped(r.URL.EscapedPath()) }

// splitUnescaped is an escaped path split into unescaped segments.
func splitUnescaped(escaped string) []string {
	segs := splitPath(escaped)
	for i, p := range segs {
		if u, err := unescape(p); err == nil {
			segs[i] = u
		}
	}
	return segs
}
