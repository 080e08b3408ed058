//go:build race

package telco_test

// raceBuild is true under -race, whose slowdown calls for smaller runs of
// the load tests; plain `go test ./...` runs them in full.
const raceBuild = true
