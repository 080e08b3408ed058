package openapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/telcosdk/telco/internal/catalog"
)

// TestContractMatchesTheCatalogue: the contract's operations are the
// project's catalogue (internal/catalog), each under its row's name as
// operationId with the row's method and path; a row without an operation
// in telco.yaml, or an operation without a row, fails here by name.
func TestContractMatchesTheCatalogue(t *testing.T) {
	t.Parallel()
	type at struct{ method, path string }
	contract := map[string]at{}
	tags := map[string][]string{}
	for path, item := range loadContract(t).Paths.Map() {
		for method, op := range item.Operations() {
			_, dup := contract[op.OperationID]
			assert.False(t, dup, "operationId %s appears twice in telco.yaml", op.OperationID)
			contract[op.OperationID] = at{method, path}
			tags[op.OperationID] = op.Tags
		}
	}
	for _, row := range catalog.Operations() {
		got, ok := contract[row.Name]
		if !assert.True(t, ok, "%s (%s %s) has no operation in telco.yaml", row.Name, row.Method, row.Path) {
			continue
		}
		assert.Equal(t, row.Method, strings.ToUpper(got.method), "%s: method", row.Name)
		// OpenAPI allows one template per path, so two operations on the
		// same path share its parameter names: compare the shapes.
		assert.Equal(t, shape(row.Path), shape(got.path), "%s: path", row.Name)
		assert.Equal(t, []string{row.Service()}, tags[row.Name], "%s: tagged with its service alone", row.Name)
		delete(contract, row.Name)
	}
	for id, op := range contract {
		assert.Fail(t, "an operation of telco.yaml is no row of internal/catalog",
			"%s (%s %s)", id, op.method, op.path)
	}
}

// TestContractTagsAreTheServices: the contract declares one tag per
// service of the catalogue, in the Client's order, each described, and no
// other; an operation's tag is its service (TestContractMatchesTheCatalogue).
func TestContractTagsAreTheServices(t *testing.T) {
	t.Parallel()
	declared := map[string]string{}
	var names []string
	for _, tag := range loadContract(t).Tags {
		declared[tag.Name] = tag.Description
		names = append(names, tag.Name)
	}
	var want []string
	for _, s := range catalog.Services() {
		want = append(want, s.Name)
		desc, ok := declared[s.Name]
		if assert.True(t, ok, "the catalogue's service %s is no tag of telco.yaml: add it to tags, with a description", s.Name) {
			assert.NotEmpty(t, desc, "telco.yaml: tag %s has no description", s.Name)
		}
	}
	assert.Equal(t, want, names, "telco.yaml's tags are the catalogue's services, in the Client's order")
}

// shape is a path template with its parameters unnamed.
func shape(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			segs[i] = "{}"
		}
	}
	return strings.Join(segs, "/")
}
