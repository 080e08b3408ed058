package telco

import (
	"context"
	"iter"
	"net/http"
)

// FlowsService lists a project's call flows (the documentation page
// "get-flows"), whose ConfigID is what Numbers.Configure takes in Flow.
type FlowsService service

// FlowsAPI is the method set of FlowsService, for code that wants to
// substitute a fake.
type FlowsAPI interface {
	List(ctx context.Context, propertySid string, p *ListParams) (*Page[Flow], error)
	ListAll(ctx context.Context, propertySid string, p *ListParams) iter.Seq2[Flow, error]
}

var _ FlowsAPI = (*FlowsService)(nil)

// Flow is a call flow of a project. Its fields are those the
// documentation shows; the values of Type are not shown.
type Flow struct {
	PropertySid string `json:"PropertySid,omitempty"`
	// ConfigID identifies the flow: it is the Flow of NumberConfigParams
	// when RoutingMethod is RoutingFlow.
	ConfigID    string    `json:"ConfigId"`
	Revision    string    `json:"Revision,omitempty"`
	Name        string    `json:"Name,omitempty"`
	Type        string    `json:"Type,omitempty"`
	LastUpdated Timestamp `json:"LastUpdated,omitempty"`
}

// flowsList is the flows listing. The documentation shows the items but
// not the envelope: the array is read under Flows or bare.
var flowsList = listOf[Flow]("Flows")

// defaultFlowsCount is the service's page size for flows.
const defaultFlowsCount = 50

// List returns one page of the project's flows:
// GET /v2/Properties/{PropertySid}/Flows. Results_Count defaults to 50.
// The envelope of the answer is inferred (an array under Flows, or a bare
// array). To route a number to a flow, pass the flow's ConfigID as
// NumberConfigParams.Flow; listing the flows first checks that it exists.
func (s *FlowsService) List(ctx context.Context, propertySid string, p *ListParams) (*Page[Flow], error) {
	const op = "Flows.List"
	if err := pathParam(op, "PropertySid", propertySid); err != nil {
		return nil, err
	}
	lp := deref(p)
	if err := s.client.validateParams(op, lp.check); err != nil {
		return nil, err
	}
	return getList(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/Properties/{PropertySid}/Flows", propertySid), query: &lp}, flowsList)
}

// ListAll iterates over every flow of the project, page by page, from
// p.Skip on.
func (s *FlowsService) ListAll(ctx context.Context, propertySid string, p *ListParams) iter.Seq2[Flow, error] {
	return skipIterate(ctx, "Flows.ListAll", deref(p), defaultFlowsCount,
		func(ctx context.Context, lp ListParams) (*Page[Flow], error) { return s.List(ctx, propertySid, &lp) })
}
