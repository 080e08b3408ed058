package telco

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"strings"

	"github.com/telcosdk/telco/internal/rules"
)

// OnlineLoginsService manages online logins, the users of the management
// portal.
type OnlineLoginsService service

// OnlineLoginsAPI is the method set of OnlineLoginsService, for code that
// wants to substitute a fake.
type OnlineLoginsAPI interface {
	Create(ctx context.Context, propertySid string, p *CreateOnlineLoginParams) (*OnlineLogin, error)
	Get(ctx context.Context, onlineLoginSid string) (*OnlineLogin, error)
	List(ctx context.Context, p *ListParams) (*Page[OnlineLogin], error)
	ListAll(ctx context.Context, p *ListParams) iter.Seq2[OnlineLogin, error]
	Update(ctx context.Context, onlineLoginSid string, p *UpdateOnlineLoginParams) error
}

var _ OnlineLoginsAPI = (*OnlineLoginsService)(nil)

// Scope is a permission an online login holds on a project.
type Scope string

// The scopes the service defines.
const (
	ScopeManage                Scope = "Manage"
	ScopeReporting             Scope = "Reporting"
	ScopeManageSms             Scope = "ManageSms"
	ScopeReportingSms          Scope = "ReportingSms"
	ScopeIntegrations          Scope = "Integrations"
	ScopeBilling               Scope = "Billing"
	ScopeProjectManagement     Scope = "ProjectManagement"
	ScopeUserManagement        Scope = "UserManagement"
	ScopeSipManagement         Scope = "SipManagement"
	ScopeProvisionSms          Scope = "ProvisionSms"
	ScopeOutboundCallReporting Scope = "OutboundCallReporting"
	ScopeDisconnectNumbers     Scope = "DisconnectNumbers"
	ScopeAdmin                 Scope = "Admin"
)

// Known reports whether s is one of the 13 scopes the service defines.
func (s Scope) Known() bool {
	switch s {
	case ScopeManage, ScopeReporting, ScopeManageSms, ScopeReportingSms, ScopeIntegrations,
		ScopeBilling, ScopeProjectManagement, ScopeUserManagement, ScopeSipManagement,
		ScopeProvisionSms, ScopeOutboundCallReporting, ScopeDisconnectNumbers, ScopeAdmin:
		return true
	}
	return false
}

// Scopes is a set of scopes. On the wire it is one comma-separated string,
// "Manage,Reporting"; decoding also accepts a JSON array of names and null.
type Scopes []Scope

// String returns the comma-separated form.
func (s Scopes) String() string {
	parts := make([]string, len(s))
	for i, sc := range s {
		parts[i] = string(sc)
	}
	return strings.Join(parts, ",")
}

// Has reports whether s holds scope.
func (s Scopes) Has(scope Scope) bool {
	for _, sc := range s {
		if sc == scope {
			return true
		}
	}
	return false
}

// ParseScopes splits the comma-separated form, ignoring spaces and empty
// entries.
func ParseScopes(list string) Scopes {
	var out Scopes
	for _, part := range strings.Split(list, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, Scope(part))
		}
	}
	return out
}

// MarshalJSON writes the comma-separated string.
func (s Scopes) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads the comma-separated string, an array of names, or null.
func (s *Scopes) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*s = nil
		return nil
	case len(b) > 0 && b[0] == '[':
		var names []string
		if err := json.Unmarshal(b, &names); err != nil {
			return fmt.Errorf("telco: Scopes: %w", err)
		}
		*s = ParseScopes(strings.Join(names, ","))
		return nil
	}
	var list string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("telco: Scopes: want a comma-separated string: %w", err)
	}
	*s = ParseScopes(list)
	return nil
}

// Permission is a login's scopes on an account or a project; either Sid may
// be set.
type Permission struct {
	AccountSid  string `json:"AccountSid,omitempty"`
	PropertySid string `json:"PropertySid,omitempty"`
	Scopes      Scopes `json:"Scopes"`
}

// OnlineLogin is a user of the management portal.
type OnlineLogin struct {
	OnlineLoginSid string       `json:"OnlineLoginSid"` // a UUID
	Email          string       `json:"Email,omitempty"`
	Enabled        bool         `json:"Enabled"`
	Created        Timestamp    `json:"Created,omitempty"`
	FirstName      string       `json:"FirstName,omitempty"`
	LastName       string       `json:"LastName,omitempty"`
	Permissions    []Permission `json:"Permissions,omitempty"`
}

// CreateOnlineLoginParams is a new portal user for a project. The rules are
// listed on Validate. The Password is sent once and never printed: fmt
// verbs show it as [REDACTED], and JSON and XML encoding of this value
// leave it out.
type CreateOnlineLoginParams struct {
	Email     string // the user name
	Password  string `json:"-" xml:"-"`
	FirstName string
	LastName  string
	Scopes    Scopes // the user's scopes on this project
	Enabled   bool   // whether the login may log in; default false
}

// Format prints p with its Password redacted, whatever the verb.
func (p CreateOnlineLoginParams) Format(f fmt.State, verb rune) {
	type plain CreateOnlineLoginParams // no methods: no recursion
	q := plain(p)
	if q.Password != "" {
		q.Password = redacted
	}
	formatRedacted(f, verb, q, "telco.CreateOnlineLoginParams")
}

type wireCreateOnlineLogin struct {
	Email     string `json:"Email"`
	Password  string `json:"Password"`
	FirstName string `json:"FirstName"`
	LastName  string `json:"LastName"`
	Scopes    Scopes `json:"Scopes"`
	Enabled   bool   `json:"Enabled"`
}

func (p *CreateOnlineLoginParams) wire() *wireCreateOnlineLogin {
	return &wireCreateOnlineLogin{Email: p.Email, Password: p.Password, FirstName: p.FirstName,
		LastName: p.LastName, Scopes: p.Scopes, Enabled: p.Enabled}
}

// The shapes of the answers: a login under OnlineLogin or bare, the
// listing under OnlineLogins.
var (
	onlineLoginShape = resourceOf[OnlineLogin]("OnlineLoginSid", "OnlineLogin")
	onlineLoginsList = listOf[OnlineLogin]("OnlineLogins")
)

// Create adds a portal user with scopes on the project:
// POST /v2/Properties/{PropertySid}/OnlineLogins.
func (s *OnlineLoginsService) Create(ctx context.Context, propertySid string, p *CreateOnlineLoginParams) (*OnlineLogin, error) {
	const op = "OnlineLogins.Create"
	if err := s.client.precheck(op, "PropertySid", propertySid, p != nil, p.check); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodPost,
		path: escapedPath("/v2/Properties/{PropertySid}/OnlineLogins", propertySid), body: p.wire(),
		secrets: []string{p.Password}}, onlineLoginShape)
}

// Get reads one online login: GET /v2/OnlineLogins/{OnlineLoginSid}.
// With validation on, the SID must be a UUID. The login is read under
// OnlineLogin, bare, or as the one element of the operation's listing
// envelope (OnlineLogins); an answer without it is an *APIError.
func (s *OnlineLoginsService) Get(ctx context.Context, onlineLoginSid string) (*OnlineLogin, error) {
	const op = "OnlineLogins.Get"
	if err := pathParam(op, "OnlineLoginSid", onlineLoginSid); err != nil {
		return nil, err
	}
	if err := s.client.validateParams(op, func() fieldErrs {
		var f fieldErrs
		if !rules.IsUUID(onlineLoginSid) {
			f.invalid("OnlineLoginSid", "OnlineLoginSid must be a UUID")
		}
		return f
	}); err != nil {
		return nil, err
	}
	r := &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/OnlineLogins/{OnlineLoginSid}", onlineLoginSid)}
	out := loginAnswer{one: oneAnswer[OnlineLogin]{shape: onlineLoginShape}, list: listAnswer[OnlineLogin]{shape: onlineLoginsList}}
	if err := s.client.do(ctx, r, &out); err != nil {
		return nil, err
	}
	return out.login(r, onlineLoginSid)
}

// loginAnswer reads Get's answer in any of its shapes: the login under
// OnlineLogin, as Create answers, or bare; or the envelope the interface
// document gives GET /v2/OnlineLogins for both its forms, {"OnlineLogins": [...],
// "TotalCount": 1, "NextPageToken": ""} (or a bare array), holding the
// one login.
type loginAnswer struct {
	one  oneAnswer[OnlineLogin]
	list listAnswer[OnlineLogin]
}

func (a *loginAnswer) decodeBody(b []byte) error {
	if t := trimJSONSpace(b); len(t) > 0 && t[0] == '[' {
		return a.list.decodeBody(b)
	}
	if a.one.typed(b) {
		return nil
	}
	tree, err := parseTree(b)
	if err != nil {
		return err
	}
	if err := a.one.tolerant(tree); err != nil || a.one.ok {
		return err
	}
	return a.list.tolerant(tree)
}

// login is the login the answer holds: the single resource, or the one
// element of the listing (the one with the SID asked, should it hold
// more). An answer without it is an *APIError, never a nil login.
func (a *loginAnswer) login(r *call, sid string) (*OnlineLogin, error) {
	if a.one.ok {
		return a.one.val, nil
	}
	items := a.list.items
	switch {
	case !a.list.ok:
		return nil, missing(r, "OnlineLogin")
	case len(items) == 1:
		return &items[0], nil
	case len(items) == 0:
		return nil, &APIError{Op: r.op, StatusCode: http.StatusOK, Message: "response has an empty OnlineLogins array"}
	}
	for i := range items {
		if strings.EqualFold(items[i].OnlineLoginSid, sid) {
			return &items[i], nil
		}
	}
	return nil, &APIError{Op: r.op, StatusCode: http.StatusOK,
		Message: fmt.Sprintf("response has none of the %d logins in OnlineLogins with the OnlineLoginSid asked", len(items))}
}

// List returns one page of the account's online logins:
// GET /v2/OnlineLogins. Results_Count defaults to 50.
func (s *OnlineLoginsService) List(ctx context.Context, p *ListParams) (*Page[OnlineLogin], error) {
	const op = "OnlineLogins.List"
	lp := deref(p)
	if err := s.client.validateParams(op, lp.check); err != nil {
		return nil, err
	}
	return getList(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: "/v2/OnlineLogins", query: &lp}, onlineLoginsList)
}

// ListAll iterates over every online login, page by page, from p.Skip on.
func (s *OnlineLoginsService) ListAll(ctx context.Context, p *ListParams) iter.Seq2[OnlineLogin, error] {
	return skipIterate(ctx, "OnlineLogins.ListAll", deref(p), defaultListCount,
		func(ctx context.Context, lp ListParams) (*Page[OnlineLogin], error) { return s.List(ctx, &lp) })
}

// UpdateOnlineLoginParams changes a portal login with a JSON merge patch:
// only the fields set are sent, and only they change.
//
// FirstName, LastName and Enabled are those the service's page shows in
// its samples; Email and Password are the login's other fields as created
// (by Create), which the page neither shows nor rules out: whether the
// service changes them is not documented.
type UpdateOnlineLoginParams struct {
	Email     *string // a valid e-mail address, the user name
	FirstName *string
	LastName  *string
	Enabled   *bool
	// Password, when not "", is the new password, with the rules of
	// CreateOnlineLoginParams. It is sent once and never printed: fmt
	// verbs and slog show it as [REDACTED], and JSON and XML encoding of
	// this value leave it out.
	Password string `json:"-" xml:"-"`
	// Permissions, when not nil, replace every permission the login has;
	// an empty, non-nil slice removes them all. Each permission names
	// either an AccountSid or a PropertySid, never both, and at least one
	// scope.
	Permissions []Permission
}

// Format prints p with its Password redacted, whatever the verb.
func (p UpdateOnlineLoginParams) Format(f fmt.State, verb rune) {
	type plain UpdateOnlineLoginParams // no methods: no recursion
	q := plain(p)
	if q.Password != "" {
		q.Password = redacted
	}
	formatRedacted(f, verb, q, "telco.UpdateOnlineLoginParams")
}

// LogValue logs the fields set, the Password redacted.
func (p UpdateOnlineLoginParams) LogValue() slog.Value {
	var attrs []slog.Attr
	for _, s := range [...]struct {
		k string
		v *string
	}{{"Email", p.Email}, {"FirstName", p.FirstName}, {"LastName", p.LastName}} {
		if s.v != nil {
			attrs = append(attrs, slog.String(s.k, *s.v))
		}
	}
	if p.Enabled != nil {
		attrs = append(attrs, slog.Bool("Enabled", *p.Enabled))
	}
	if p.Password != "" {
		attrs = append(attrs, slog.String("Password", redacted))
	}
	if p.Permissions != nil {
		attrs = append(attrs, slog.Any("Permissions", p.Permissions))
	}
	return slog.GroupValue(attrs...)
}

// wireUpdateOnlineLogin is a JSON merge patch: a field left out is left
// unchanged. Permissions is a pointer so that an empty list is sent as [].
type wireUpdateOnlineLogin struct {
	Email       *string       `json:"Email,omitempty"`
	FirstName   *string       `json:"FirstName,omitempty"`
	LastName    *string       `json:"LastName,omitempty"`
	Enabled     *bool         `json:"Enabled,omitempty"`
	Password    string        `json:"Password,omitempty"`
	Permissions *[]Permission `json:"Permissions,omitempty"`
}

func (p *UpdateOnlineLoginParams) wire() *wireUpdateOnlineLogin {
	w := &wireUpdateOnlineLogin{Email: p.Email, FirstName: p.FirstName, LastName: p.LastName,
		Enabled: p.Enabled, Password: p.Password}
	if p.Permissions != nil {
		perms := make([]Permission, len(p.Permissions))
		for i, pm := range p.Permissions {
			perms[i] = Permission{AccountSid: strings.TrimSpace(pm.AccountSid),
				PropertySid: strings.TrimSpace(pm.PropertySid), Scopes: pm.Scopes}
		}
		w.Permissions = &perms
	}
	return w
}

// Update changes a portal login with a JSON merge patch (the service's page
// "patch-online-login"): PATCH /v2/OnlineLogins/{OnlineLoginSid}, answered
// 204 with no body. Permissions, when given, replace all the login's
// permissions. With validation on, the SID must be a UUID.
func (s *OnlineLoginsService) Update(ctx context.Context, onlineLoginSid string, p *UpdateOnlineLoginParams) error {
	const op = "OnlineLogins.Update"
	if err := s.client.precheck(op, "OnlineLoginSid", onlineLoginSid, p != nil, func() fieldErrs {
		f := p.check()
		if !rules.IsUUID(onlineLoginSid) {
			f.invalid("OnlineLoginSid", "OnlineLoginSid must be a UUID")
		}
		return f
	}); err != nil {
		return err
	}
	return s.client.do(ctx, &call{op: op, method: http.MethodPatch, idempotent: true,
		path: escapedPath("/v2/OnlineLogins/{OnlineLoginSid}", onlineLoginSid), body: p.wire(),
		secrets: []string{p.Password}}, nil)
}

// LogValue logs p with its Password redacted, for slog handlers that would
// otherwise print its fields.
func (p CreateOnlineLoginParams) LogValue() slog.Value {
	pw := ""
	if p.Password != "" {
		pw = redacted
	}
	return slog.GroupValue(slog.String("Email", p.Email), slog.String("Password", pw),
		slog.String("FirstName", p.FirstName), slog.String("LastName", p.LastName),
		slog.String("Scopes", p.Scopes.String()), slog.Bool("Enabled", p.Enabled))
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Validate checks the rules of OnlineLogins.Create: a valid e-mail address; a
// password of at least 12 characters with a-z, A-Z, 0-9 and one of
// !@#$%^&*()_+; first and last names; at least one scope, each one the
// service names.
func (p *CreateOnlineLoginParams) Validate() error {
	if p == nil {
		return nilParams("OnlineLogins.Create")
	}
	return p.check().err("OnlineLogins.Create")
}

func (p *CreateOnlineLoginParams) check() fieldErrs {
	var f fieldErrs
	if f.required("Email", p.Email) {
		f.email("Email", p.Email)
	}
	if f.required("Password", p.Password) {
		if msg := rules.LoginPasswordProblem(p.Password); msg != "" {
			f.invalid("Password", msg)
		}
	}
	f.required("FirstName", p.FirstName)
	f.required("LastName", p.LastName)
	if len(p.Scopes) == 0 {
		f.add(CodeParameterRequired, "Scopes", "Scopes needs at least one scope")
	}
	for _, s := range p.Scopes {
		if !s.Known() {
			f.invalid("Scopes", fmt.Sprintf("Scopes: %q is not a scope the service knows", string(s)))
		}
	}
	return f
}

// Validate checks the rules of a login update: names and e-mail address,
// when set, not empty and the address valid; a Password, when set, with
// the rules of Create; and each permission with either an AccountSid or a
// PropertySid (not both) and at least one scope the service names.
func (p *UpdateOnlineLoginParams) Validate() error {
	if p == nil {
		return nilParams("OnlineLogins.Update")
	}
	return p.check().err("OnlineLogins.Update")
}

func (p *UpdateOnlineLoginParams) check() fieldErrs {
	var f fieldErrs
	for _, s := range [...]struct {
		name string
		v    *string
	}{{"Email", p.Email}, {"FirstName", p.FirstName}, {"LastName", p.LastName}} {
		if s.v != nil && strings.TrimSpace(*s.v) == "" {
			f.invalid(s.name, s.name+" must not be set to an empty value")
		}
	}
	if p.Email != nil {
		f.email("Email", strings.TrimSpace(*p.Email))
	}
	if p.Password != "" {
		if msg := rules.LoginPasswordProblem(p.Password); msg != "" {
			f.invalid("Password", msg)
		}
	}
	for i, pm := range p.Permissions {
		f.permission(fmt.Sprintf("Permissions[%d]", i), pm)
	}
	return f
}

// permission checks one permission of a login: an AccountSid or a
// PropertySid, not both, and at least one known scope.
func (f *fieldErrs) permission(field string, pm Permission) {
	acct, prop := strings.TrimSpace(pm.AccountSid) != "", strings.TrimSpace(pm.PropertySid) != ""
	switch {
	case acct && prop:
		f.add(CodeConflictingParameters, field+".PropertySid",
			field+" must have either an AccountSid or a PropertySid, not both")
	case !acct && !prop:
		f.add(CodeParameterRequired, field+".AccountSid", field+" needs an AccountSid or a PropertySid")
	}
	if len(pm.Scopes) == 0 {
		f.add(CodeParameterRequired, field+".Scopes", field+".Scopes needs at least one scope")
	}
	for _, s := range pm.Scopes {
		if !s.Known() {
			f.invalid(field+".Scopes", fmt.Sprintf("%s.Scopes: %q is not a scope the service knows", field, string(s)))
		}
	}
}
