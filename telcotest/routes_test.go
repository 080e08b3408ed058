package telcotest

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco/internal/catalog"
)

// Every operation of the project's catalogue has a handler, and every
// handler an operation of the catalogue.
func TestOperations_EveryCatalogueRowIsServed(t *testing.T) {
	for _, o := range catalog.Operations() {
		assert.NotNil(t, handlers[o.Name], "%s (%s %s) has no handler in telcotest: add one to handlers", o.Name, o.Method, o.Path)
	}
	for name := range handlers {
		_, ok := catalog.Lookup(name)
		assert.True(t, ok, "handler %s serves no operation of internal/catalog", name)
	}
	assert.Len(t, operations, len(catalog.Operations()))
}

// The catalogue has one row per operation: no name, and no method and
// pattern pair, appears twice, and every row has a handler.
func TestOperations_OneRowPerOperation(t *testing.T) {
	names := map[string]bool{}
	routesSeen := map[string]string{}
	opName := regexp.MustCompile(`^[A-Z][A-Za-z]+\.[A-Z][A-Za-z]+$`)
	for _, op := range operations {
		assert.Regexp(t, opName, op.name, "Service.Method, as the SDK names it")
		assert.False(t, names[op.name], "%s appears twice", op.name)
		names[op.name] = true
		key := op.method + " " + strings.ToLower(op.pattern)
		assert.Empty(t, routesSeen[key], "%s and %s share %s", routesSeen[key], op.name, key)
		routesSeen[key] = op.name
		assert.NotNil(t, op.handle, op.name)
		assert.True(t, strings.HasPrefix(op.pattern, "/v2/"), op.name)
	}
	assert.ElementsMatch(t, Ops(), keys(names), "Ops lists the catalogue")
}

// A request on each row's own pattern, with its captures filled in, is
// routed to that row, and its captures come back by name.
func TestOperations_EachPatternRoutesToItsRow(t *testing.T) {
	for _, op := range operations {
		segs := splitPath(op.pattern)
		want := pathParams{}
		for i, s := range segs {
			if isCapture(s) {
				segs[i] = "V" + string(rune('0'+i))
				want[strings.Trim(s, "{}")] = segs[i]
			}
		}
		rt, p, status := match(op.method, segs)
		require.Zero(t, status, op.name)
		assert.Equal(t, op.name, rt.name)
		assert.Equal(t, want, p, op.name)
		assert.Equal(t, op.name, opOf(op.method, segs))
	}
}

// A literal segment beats a capture: /v2/Numbers/Details is the lookup,
// never a number called "Details", whatever the method.
func TestMatch_LiteralBeatsCapture(t *testing.T) {
	rt, _, status := match("GET", splitPath("/v2/numbers/details"))
	require.Zero(t, status)
	assert.Equal(t, "Lookup.NumberDetails", rt.name)
	_, _, status = match("POST", splitPath("/v2/Numbers/Details"))
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	assert.Equal(t, "", opOf("POST", splitPath("/v2/Numbers/Details")))
	assert.Equal(t, "Numbers.Configure", opOf("POST", splitPath("/v2/Numbers/61299999999")))
	_, _, status = match("GET", splitPath("/v2/Nothing"))
	assert.Equal(t, http.StatusNotFound, status)
}

// The Allow header of a 405 lists the path's methods in a fixed order.
func TestAllowed_ListsThePathsMethods(t *testing.T) {
	assert.Equal(t, []string{"GET", "POST"}, allowed(splitPath("/v2/Properties")))
	assert.Equal(t, []string{"GET", "PATCH"}, allowed(splitPath("/v2/Properties/PR1")))
	assert.Equal(t, []string{"GET"}, allowed(splitPath("/v2/Numbers/Details")))
	assert.Equal(t, []string{"GET", "POST"}, allowed(splitPath("/v2/Numbers/61299999999")))
	assert.Empty(t, allowed(splitPath("/v2/Nothing")))
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
