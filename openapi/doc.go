// Package openapi holds the conformance test of telco.yaml, the OpenAPI
// description of the service as the SDK reads it. It is a module of its
// own so that the validator it uses (kin-openapi) never enters the SDK's
// module graph. The package has no code: see conformance_test.go.
package openapi
