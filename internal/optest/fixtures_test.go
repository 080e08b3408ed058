package optest_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/catalog"
	"github.com/telcosdk/telco/internal/optest"
	"github.com/telcosdk/telco/telcotest"
)

// sdkMethods returns the methods of the Client's services by
// "Service.Method", with their types (receiver first), and the ...All
// twins by the name of the method they page through. A method named
// ...All is a twin when it takes what its method takes; one that takes
// other arguments (SendAll, a bulk sender, beside Send) is a method of its
// own.
func sdkMethods() (methods map[string]reflect.Type, twins map[string]bool) {
	methods, twins = map[string]reflect.Type{}, map[string]bool{}
	ct := reflect.TypeFor[telco.Client]()
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			continue
		}
		for j := 0; j < f.Type.NumMethod(); j++ {
			m := f.Type.Method(j)
			if base, ok := strings.CutSuffix(m.Name, "All"); ok {
				if bm, ok := f.Type.MethodByName(base); ok && sameArgs(bm.Type, m.Type) {
					twins[f.Name+"."+base] = true
					continue
				}
			}
			methods[f.Name+"."+m.Name] = m.Type
		}
	}
	return methods, twins
}

// sameArgs says whether two methods take the same arguments.
func sameArgs(a, b reflect.Type) bool {
	if a.NumIn() != b.NumIn() {
		return false
	}
	for i := range a.NumIn() {
		if a.In(i) != b.In(i) {
			return false
		}
	}
	return true
}

// TestEveryMethodHasAFixture is the one place that holds the table to the
// SDK: every method of every service on Client has a fixture and every
// fixture a method, every ...All twin is exercised with its method, and
// every fixture says which rule it breaks or that the method has none.
func TestEveryMethodHasAFixture(t *testing.T) {
	t.Parallel()
	methods, twins := sdkMethods()
	require.NotEmpty(t, methods)
	seen := map[string]bool{}
	for _, f := range optest.Fixtures() {
		assert.False(t, seen[f.Name], "%s has two fixtures", f.Name)
		seen[f.Name] = true
		_, ok := methods[f.Name]
		assert.True(t, ok, "the fixture %s names no method of the SDK: remove it or fix its name", f.Name)
		assert.NotNil(t, f.Call, "%s: no valid call", f.Name)
		assert.Equal(t, twins[f.Name], f.All != nil, "%s: a fixture exercises the method's ...All twin exactly when it has one", f.Name)
		assert.True(t, f.Bad != nil || f.Paramless, "%s: say which rule it breaks, or mark it Paramless", f.Name)
		assert.False(t, f.Bad != nil && f.Paramless, "%s: Paramless with a rule to break", f.Name)
		assert.Equal(t, f.Bad != nil, f.BadField != "" || f.BadCode != "", "%s: BadField and BadCode go with Bad", f.Name)
	}
	for m := range methods {
		assert.True(t, seen[m], "the SDK method %s has no fixture: add one to internal/optest", m)
	}
}

// TestFixturesFollowTheCatalogue: every operation of internal/catalog has
// a fixture under its name that uses it alone; a fixture of another method
// uses operations of the catalogue only; and every method takes one string
// argument, after its context, per path identifier of its first operation,
// each of which ValidIDs gives.
func TestFixturesFollowTheCatalogue(t *testing.T) {
	t.Parallel()
	methods, _ := sdkMethods()
	byName := map[string]optest.Fixture{}
	for _, f := range optest.Fixtures() {
		byName[f.Name] = f
	}
	for _, row := range catalog.Operations() {
		f, ok := byName[row.Name]
		if assert.True(t, ok, "the catalogue's %s has no fixture: add one to internal/optest", row.Name) {
			assert.Equal(t, []string{row.Name}, f.Ops, "%s: an operation's method uses that operation", row.Name)
			assert.Equal(t, row.IDs(), f.IDs, "%s: the path's identifiers", row.Name)
			// The retry matrix tells a write that happened once from one
			// that happened twice or not at all by the fake's Counts.
			if !row.Idempotent {
				assert.NotEqual(t, telcotest.Counts{}, f.Effect, "%s is not idempotent: give its fixture the Effect one call has on "+
					"telcotest.Counts (a kind Counts lacks needs a field there), so that the retry matrix sees it take effect once", row.Name)
			}
		}
	}
	for _, f := range byName {
		require.NotEmpty(t, f.Ops, f.Name)
		for _, op := range f.Ops {
			_, ok := catalog.Lookup(op)
			assert.True(t, ok, "%s uses %s, which is no operation of the catalogue", f.Name, op)
		}
		if _, row := catalog.Lookup(f.Name); !row {
			assert.NotContains(t, f.Ops, f.Name, "%s is no operation: it is composed of others", f.Name)
		}
		if mt, ok := methods[f.Name]; ok {
			// In(0) is the receiver, In(1) the context.
			n := 0
			for i := 2; i < mt.NumIn() && mt.In(i).Kind() == reflect.String; i++ {
				n++
			}
			assert.Equal(t, len(f.IDs), n, "%s: one string argument per path identifier %v", f.Name, f.IDs)
		}
		valid := optest.ValidIDs()
		for _, name := range f.IDs {
			v, ok := valid.Get(name)
			assert.True(t, ok && v != "", "%s: no valid value for %s", f.Name, name)
		}
		if f.All != nil {
			assert.NotEmpty(t, f.AllField, "%s: what the All twin's refusal names", f.Name)
		}
	}
}

func TestIDsByName(t *testing.T) {
	t.Parallel()
	ids := optest.ValidIDs()
	got, ok := ids.Get("PropertySid")
	assert.True(t, ok)
	assert.Equal(t, ids.PropertySid, got)
	blanked, ok := ids.With("PropertySid", "")
	assert.True(t, ok)
	assert.Empty(t, blanked.PropertySid)
	assert.NotEmpty(t, ids.PropertySid, "With changes a copy")
	_, ok = ids.Get("Nonesuch")
	assert.False(t, ok)
	_, ok = ids.With("Nonesuch", "x")
	assert.False(t, ok)
}

// TestDeltaCoversEveryCount: Delta subtracts every field of Counts, so a
// kind added to the fake's Counts is seen in every fixture's Effect.
func TestDeltaCoversEveryCount(t *testing.T) {
	t.Parallel()
	var before, after telcotest.Counts
	bv, av := reflect.ValueOf(&before).Elem(), reflect.ValueOf(&after).Elem()
	for i := range bv.NumField() {
		bv.Field(i).SetInt(int64(i))
		av.Field(i).SetInt(int64(3 * i))
	}
	d := reflect.ValueOf(optest.Delta(after, before))
	for i := range d.NumField() {
		assert.EqualValues(t, 2*i, d.Field(i).Int(), "Delta's %s", d.Type().Field(i).Name)
	}
}

// TestEveryFixtureSucceedsOnTheFake: on resources made by Setup, each
// fixture's valid call succeeds, changes the fake's store by its Effect and
// passes its Check; where nil params are allowed, the call without them
// succeeds too. The retry matrix runs the same calls under faults; this is
// the table's own check, and the only one at the root for the methods
// composed of others.
func TestEveryFixtureSucceedsOnTheFake(t *testing.T) {
	t.Parallel()
	for _, f := range optest.Fixtures() {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			variants := []bool{false}
			if !f.NilRefused && !f.Paramless {
				variants = append(variants, true)
			}
			for _, nilParams := range variants {
				ctx := context.Background()
				srv := telcotest.NewTestServer(t)
				ids, err := optest.Setup(srv)
				require.NoError(t, err, "setup")
				before := srv.Counts()
				require.NoError(t, f.Call(ctx, srv.Client(), ids, nilParams), "nil params: %v", nilParams)
				srv.WaitIdle()
				if nilParams {
					continue
				}
				assert.Equal(t, f.Effect, optest.Delta(srv.Counts(), before), "what one call stores")
				if f.Check != nil {
					assert.NoError(t, f.Check(ctx, srv, ids))
				}
			}
		})
	}
}

// TestSetupMakesEveryResource: Setup fills every identifier, so that no
// fixture's call works on an empty one by mistake.
func TestSetupMakesEveryResource(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewTestServer(t)
	ids, err := optest.Setup(srv)
	require.NoError(t, err)
	v := reflect.ValueOf(ids)
	for i := 0; i < v.NumField(); i++ {
		assert.NotEmpty(t, v.Field(i).String(), "Setup left %s empty", v.Type().Field(i).Name)
	}
	assert.True(t, slices.ContainsFunc(srv.Messages(ids.PropertySid), func(m telco.Message) bool {
		return m.MessageSid == ids.MessageSid && m.ExternalID == ids.ExternalID
	}), "the setup message is stored with its ExternalId")
}
