package catalog

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOperationsAreWellFormed(t *testing.T) {
	names := map[string]bool{}
	routes := map[string]string{}
	services := map[string]bool{}
	for _, s := range Services() {
		services[s.Name] = true
		assert.NotEmpty(t, s.Summary, s.Name)
	}
	used := map[string]bool{}
	name := regexp.MustCompile(`^[A-Z][A-Za-z]+\.[A-Z][A-Za-z]+$`)
	for _, o := range Operations() {
		assert.Regexp(t, name, o.Name, "Service.Method, as the SDK names it")
		assert.False(t, names[o.Name], "%s appears twice", o.Name)
		names[o.Name] = true
		assert.True(t, services[o.Service()], "%s: no service %s in Services", o.Name, o.Service())
		used[o.Service()] = true
		assert.Contains(t, []string{"GET", "POST", "PATCH", "PUT", "DELETE"}, o.Method, o.Name)
		assert.True(t, strings.HasPrefix(o.Path, "/v2/"), "%s: paths begin with /v2/", o.Name)
		key := o.Method + " " + strings.ToLower(o.Path)
		assert.Empty(t, routes[key], "%s and %s share %s", routes[key], o.Name, key)
		routes[key] = o.Name
		assert.NotEmpty(t, o.Source, "%s: say where it is documented", o.Name)
		if o.Method == "GET" || o.Method == "PATCH" || o.Method == "DELETE" {
			assert.True(t, o.Idempotent, "%s: a %s is idempotent", o.Name, o.Method)
		}
		got, ok := Lookup(o.Name)
		assert.True(t, ok)
		assert.Equal(t, o, got)
	}
	for s := range services {
		assert.True(t, used[s], "service %s has no operation", s)
	}
	assert.Len(t, Names(), len(Operations()))
	_, ok := Lookup("Nope.Nothing")
	assert.False(t, ok)
}

func TestIDsAreThePathIdentifiers(t *testing.T) {
	o, _ := Lookup("SipTrunks.GetByAccount")
	assert.Equal(t, []string{"AccountSid", "SipTrunkSid"}, o.IDs())
	o, _ = Lookup("Properties.List")
	assert.Empty(t, o.IDs())
	assert.Equal(t, "Properties", o.Service())
	assert.Equal(t, "List", o.Verb())
}

// Operations returns a copy: a caller cannot change the catalogue.
func TestOperationsIsACopy(t *testing.T) {
	ops := Operations()
	ops[0].Name = "Changed.Name"
	assert.NotEqual(t, "Changed.Name", Operations()[0].Name)
}
