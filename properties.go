package telco

import (
	"context"
	"iter"
	"net/http"
	"strings"
)

// PropertiesService manages projects, which the service also calls
// properties: containers for numbers and configuration.
type PropertiesService service

// PropertiesAPI is the method set of PropertiesService, for code that wants
// to substitute a fake.
type PropertiesAPI interface {
	Create(ctx context.Context, p *CreatePropertyParams) (*Property, error)
	Get(ctx context.Context, propertySid string) (*Property, error)
	List(ctx context.Context, p *ListParams) (*Page[Property], error)
	ListAll(ctx context.Context, p *ListParams) iter.Seq2[Property, error]
	Update(ctx context.Context, propertySid string, p *UpdatePropertyParams) error
}

var _ PropertiesAPI = (*PropertiesService)(nil)

// Property is a project.
type Property struct {
	AccountSid  string `json:"AccountSid,omitempty"`
	PropertySid string `json:"PropertySid"`
	Name        string `json:"Name,omitempty"`
	MainDomain  string `json:"MainDomain,omitempty"`
	// TimeZone is a Windows time zone ID, e.g. "AUS Eastern Standard Time";
	// LoadWindowsZone turns it into a *time.Location.
	TimeZone             string `json:"TimeZone,omitempty"`
	SmsEnabled           bool   `json:"SmsEnabled"`
	CallRecordingEnabled bool   `json:"CallRecordingEnabled"`
	IntegrationsEnabled  bool   `json:"IntegrationsEnabled"`
	Active               bool   `json:"Active"`
}

// CreatePropertyParams is a new project. Name, MainDomain and TimeZone are
// required.
type CreatePropertyParams struct {
	Name       string
	MainDomain string
	// TimeZone is a Windows time zone ID, e.g. "AUS Eastern Standard Time";
	// an unknown one is refused with UNKNOWN_TIME_ZONE. WindowsZone and
	// WindowsZoneForLocation give the ID of an IANA name or a
	// *time.Location ("Australia/Sydney").
	TimeZone             string
	SmsEnabled           bool
	CallRecordingEnabled bool
	IntegrationsEnabled  bool
	Active               *bool // nil: the service default (true)
}

// UpdatePropertyParams changes a project: only non-nil fields are sent, and
// only they change.
type UpdatePropertyParams struct {
	Name       *string
	MainDomain *string
	// TimeZone is a Windows time zone ID, as in CreatePropertyParams;
	// WindowsZone converts an IANA name.
	TimeZone             *string
	SmsEnabled           *bool
	CallRecordingEnabled *bool
	IntegrationsEnabled  *bool
	Active               *bool
}

type wireCreateProperty struct {
	Name                 string `json:"Name"`
	MainDomain           string `json:"MainDomain"`
	TimeZone             string `json:"TimeZone"`
	SmsEnabled           bool   `json:"SmsEnabled"`
	CallRecordingEnabled bool   `json:"CallRecordingEnabled"`
	IntegrationsEnabled  bool   `json:"IntegrationsEnabled"`
	Active               *bool  `json:"Active,omitempty"`
}

func (p *CreatePropertyParams) wire() *wireCreateProperty {
	return &wireCreateProperty{Name: p.Name, MainDomain: p.MainDomain, TimeZone: p.TimeZone,
		SmsEnabled: p.SmsEnabled, CallRecordingEnabled: p.CallRecordingEnabled,
		IntegrationsEnabled: p.IntegrationsEnabled, Active: p.Active}
}

// wireUpdateProperty is a JSON merge patch: a nil field is left out, and
// left unchanged.
type wireUpdateProperty struct {
	Name                 *string `json:"Name,omitempty"`
	MainDomain           *string `json:"MainDomain,omitempty"`
	TimeZone             *string `json:"TimeZone,omitempty"`
	SmsEnabled           *bool   `json:"SmsEnabled,omitempty"`
	CallRecordingEnabled *bool   `json:"CallRecordingEnabled,omitempty"`
	IntegrationsEnabled  *bool   `json:"IntegrationsEnabled,omitempty"`
	Active               *bool   `json:"Active,omitempty"`
}

func (p *UpdatePropertyParams) wire() *wireUpdateProperty {
	return &wireUpdateProperty{Name: p.Name, MainDomain: p.MainDomain, TimeZone: p.TimeZone,
		SmsEnabled: p.SmsEnabled, CallRecordingEnabled: p.CallRecordingEnabled,
		IntegrationsEnabled: p.IntegrationsEnabled, Active: p.Active}
}

// The shapes of the answers: the service's sample names a project
// Property, its field listing Project, and the listing Properties or
// Projects.
var (
	propertyShape  = resourceOf[Property]("PropertySid", "Property", "Project")
	propertiesList = listOf[Property]("Properties", "Projects")
)

// Create creates a project: POST /v2/Properties. TimeZone takes a Windows
// time zone ID; WindowsZone gives it for an IANA name
// (telco.WindowsZone("Australia/Sydney") is "AUS Eastern Standard Time").
func (s *PropertiesService) Create(ctx context.Context, p *CreatePropertyParams) (*Property, error) {
	const op = "Properties.Create"
	if err := s.client.requireParams(op, p != nil, p.check); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodPost, path: "/v2/Properties", body: p.wire()}, propertyShape)
}

// Get reads one project: GET /v2/Properties/{PropertySid}.
func (s *PropertiesService) Get(ctx context.Context, propertySid string) (*Property, error) {
	const op = "Properties.Get"
	if err := pathParam(op, "PropertySid", propertySid); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/Properties/{PropertySid}", propertySid)}, propertyShape)
}

// defaultListCount is the service's page size for projects, SIP trunks and
// online logins.
const defaultListCount = 50

// List returns one page of the account's projects: GET /v2/Properties. The
// array is read under Properties or Projects, as the service's documents
// name it both ways. p may be nil for the first page at the default size.
func (s *PropertiesService) List(ctx context.Context, p *ListParams) (*Page[Property], error) {
	const op = "Properties.List"
	lp := deref(p)
	if err := s.client.validateParams(op, lp.check); err != nil {
		return nil, err
	}
	return getList(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: "/v2/Properties", query: &lp}, propertiesList)
}

// ListAll iterates over every project, page by page, from p.Skip on.
func (s *PropertiesService) ListAll(ctx context.Context, p *ListParams) iter.Seq2[Property, error] {
	return skipIterate(ctx, "Properties.ListAll", deref(p), defaultListCount,
		func(ctx context.Context, lp ListParams) (*Page[Property], error) { return s.List(ctx, &lp) })
}

// Update changes the project's non-nil fields with a JSON merge patch:
// PATCH /v2/Properties/{PropertySid}; the service answers 204 with no
// body. A new TimeZone is a Windows time zone ID, as WindowsZone gives
// for an IANA name.
func (s *PropertiesService) Update(ctx context.Context, propertySid string, p *UpdatePropertyParams) error {
	const op = "Properties.Update"
	if err := s.client.precheck(op, "PropertySid", propertySid, p != nil, p.check); err != nil {
		return err
	}
	return s.client.do(ctx, &call{op: op, method: http.MethodPatch, idempotent: true,
		path: escapedPath("/v2/Properties/{PropertySid}", propertySid), body: p.wire()}, nil)
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Validate checks that Name, MainDomain and TimeZone are given. Whether the
// time zone is one the service recognises is left to the service
// (UNKNOWN_TIME_ZONE), whose list of Windows zone IDs changes over time.
func (p *CreatePropertyParams) Validate() error {
	if p == nil {
		return nilParams("Properties.Create")
	}
	return p.check().err("Properties.Create")
}

func (p *CreatePropertyParams) check() fieldErrs {
	var f fieldErrs
	f.required("Name", p.Name)
	f.required("MainDomain", p.MainDomain)
	f.required("TimeZone", p.TimeZone)
	return f
}

// Validate checks that a name, domain or time zone being set is not empty.
func (p *UpdatePropertyParams) Validate() error {
	if p == nil {
		return nilParams("Properties.Update")
	}
	return p.check().err("Properties.Update")
}

func (p *UpdatePropertyParams) check() fieldErrs {
	var f fieldErrs
	for _, s := range [...]struct {
		name string
		v    *string
	}{{"Name", p.Name}, {"MainDomain", p.MainDomain}, {"TimeZone", p.TimeZone}} {
		if s.v != nil && strings.TrimSpace(*s.v) == "" {
			f.invalid(s.name, s.name+" must not be set to an empty value")
		}
	}
	return f
}
