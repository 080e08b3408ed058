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
	for path, item := range loadContract(t).Paths.Map() {
		for method, op := range item.Operations() {
			_, dup := contract[op.OperationID]
			assert.False(t, dup, "operationId %s appears twice in telco.yaml", op.OperationID)
			contract[op.OperationID] = at{method, path}
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
		delete(contract, row.Name)
	}
	for id, op := range contract {
		assert.Fail(t, "an operation of telco.yaml is no row of internal/catalog",
			"%s (%s %s)", id, op.method, op.path)
	}
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
