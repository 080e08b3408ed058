package telcotest

import (
	"net/http"
	"sort"
	"strings"
)

// operations is the fake's one catalogue of what it serves: the SDK's name
// for each operation (as in errors, logs and Fault.Op), its method, its
// path pattern and its handler. The router, fault matching and Ops all read
// it, so adding an operation is one row here plus its handler.
var operations = []operation{
	{"NumberBlocks.Search", "GET", "/v2/numberblocks", (*Server).searchNumberBlocks},
	{"NumberBlocks.SearchText", "GET", "/v2/numberblocks/{Text}", (*Server).searchNumberBlocksText},
	{"NumberBlocks.ListByProperty", "GET", "/v2/Properties/{PropertySid}/numberblocks", (*Server).listNumberBlocksByProperty},
	{"NumberBlocks.ListByAccount", "GET", "/v2/Accounts/{AccountSid}/numberblocks", (*Server).listNumberBlocksByAccount},
	{"NumberBlocks.Purchase", "POST", "/v2/Properties/{PropertySid}/NumberBlocks", (*Server).purchaseNumberBlock},
	{"NumberBlocks.Configure", "POST", "/v2/numberblocks/{NumberBlockSid}", (*Server).configureNumberBlock},
	{"Lookup.NumberDetails", "GET", "/v2/Numbers/Details", (*Server).numberDetails},
	{"Numbers.Configure", "POST", "/v2/Numbers/{Number}", (*Server).configureNumber},
	{"OnlineLogins.Create", "POST", "/v2/Properties/{PropertySid}/OnlineLogins", (*Server).createOnlineLogin},
	{"OnlineLogins.List", "GET", "/v2/OnlineLogins", (*Server).listOnlineLogins},
	{"OnlineLogins.Get", "GET", "/v2/OnlineLogins/{OnlineLoginSid}", (*Server).getOnlineLogin},
	{"OnlineLogins.Update", "PATCH", "/v2/OnlineLogins/{OnlineLoginSid}", (*Server).updateOnlineLogin},
	{"Messages.Send", "POST", "/v2/Properties/{PropertySid}/Messages", (*Server).sendMessage},
	{"Messages.SendBatch", "POST", "/v2/Properties/{PropertySid}/BatchMessages", (*Server).sendBatch},
	{"Messages.Find", "GET", "/v2/Properties/{PropertySid}/Messages", (*Server).findMessages},
	{"Messages.Get", "GET", "/v2/Messages/{MessageSid}", (*Server).getMessage},
	{"Properties.Create", "POST", "/v2/Properties", (*Server).createProperty},
	{"Properties.List", "GET", "/v2/Properties", (*Server).listProperties},
	{"Properties.Get", "GET", "/v2/Properties/{PropertySid}", (*Server).getProperty},
	{"Properties.Update", "PATCH", "/v2/Properties/{PropertySid}", (*Server).updateProperty},
	{"SipTrunks.Create", "POST", "/v2/Properties/{PropertySid}/SipTrunk", (*Server).createSipTrunk},
	{"SipTrunks.List", "GET", "/v2/Properties/{PropertySid}/SipTrunks", (*Server).listSipTrunks},
	{"SipTrunks.GetByProperty", "GET", "/v2/Properties/{PropertySid}/SipTrunk/{SipTrunkSid}/Details", (*Server).sipTrunkDetailsByProperty},
	{"SipTrunks.GetByAccount", "GET", "/v2/Accounts/{AccountSid}/SipTrunk/{SipTrunkSid}/Details", (*Server).sipTrunkDetailsByAccount},
	{"SipTrunks.Update", "PATCH", "/v2/Properties/{PropertySid}/SipTrunk/{SipTrunkSid}", (*Server).updateSipTrunkByProperty},
	{"SipTrunks.UpdateByAccount", "PATCH", "/v2/Accounts/{AccountSid}/SipTrunk/{SipTrunkSid}", (*Server).updateSipTrunkByAccount},
	{"Porting.Submit", "POST", "/v2/Properties/{PropertySid}/Porting", (*Server).submitPorting},
	{"Porting.StatusByProperty", "GET", "/v2/Properties/{PropertySid}/Porting/Status", (*Server).portingStatusByProperty},
	{"Porting.StatusByAccount", "GET", "/v2/Accounts/{AccountSid}/Porting/Status", (*Server).portingStatusByAccount},
	{"Addresses.Create", "POST", "/v2/Accounts/{AccountSid}/Addresses", (*Server).createAddress},
	{"Addresses.Delete", "DELETE", "/v2/Addresses/{AddressSid}", (*Server).deleteAddress},
	{"Addresses.List", "GET", "/v2/Accounts/{AccountSid}/Addresses", (*Server).listAddresses},
	{"Addresses.Get", "GET", "/v2/Addresses/{AddressSid}", (*Server).getAddress},
	{"Flows.List", "GET", "/v2/Properties/{PropertySid}/Flows", (*Server).listFlows},
	{"Numbers.Get", "GET", "/v2/Numbers/{Number}", (*Server).getNumber},
	{"Numbers.ListByProperty", "GET", "/v2/Properties/{PropertySid}/Numbers", (*Server).listNumbersByProperty},
	{"Numbers.ListByAccount", "GET", "/v2/Accounts/{AccountSid}/Numbers", (*Server).listNumbersByAccount},
	{"Numbers.Purchase", "POST", "/v2/Properties/{PropertySid}/Numbers", (*Server).purchaseNumber},
	{"Calls.Get", "GET", "/v2/Calls/{CallSid}", (*Server).getCall},
	{"Calls.ListByProperty", "GET", "/v2/Properties/{PropertySid}/Calls", (*Server).listCallsByProperty},
	{"Calls.ListByAccount", "GET", "/v2/Accounts/{AccountSid}/Calls", (*Server).listCallsByAccount},
}

// operation is one row of the catalogue.
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
func requestSegs(r *http.Request) []string {
	segs := splitPath(r.URL.EscapedPath())
	for i, p := range segs {
		if u, err := unescape(p); err == nil {
			segs[i] = u
		}
	}
	return segs
}
