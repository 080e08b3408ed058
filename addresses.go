package telco

import (
	"context"
	"iter"
	"net/http"
	"strings"

	"github.com/telcosdk/telco/internal/rules"
)

// AddressesService adds, lists, reads and removes the account's addresses.
type AddressesService service

// AddressesAPI is the method set of AddressesService, for code that wants
// to substitute a fake.
type AddressesAPI interface {
	Create(ctx context.Context, accountSid string, p *CreateAddressParams) (*Address, error)
	Delete(ctx context.Context, addressSid string) error
	List(ctx context.Context, accountSid string, p *ListAddressesParams) (*Page[Address], error)
	ListAll(ctx context.Context, accountSid string, p *ListAddressesParams) iter.Seq2[Address, error]
	Get(ctx context.Context, addressSid string) (*Address, error)
}

var _ AddressesAPI = (*AddressesService)(nil)

// Address is an address on the account, used to register numbers.
type Address struct {
	AddressSid  string `json:"AddressSid"`
	AccountSid  string `json:"AccountSid,omitempty"`
	Friendly    string `json:"Friendly,omitempty"`
	Reference   string `json:"Reference,omitempty"`
	Line1       string `json:"Line1,omitempty"`
	Line2       string `json:"Line2,omitempty"`
	City        string `json:"City,omitempty"`
	Region      string `json:"Region,omitempty"`
	CountryCode string `json:"CountryCode,omitempty"`
	PostalCode  string `json:"PostalCode,omitempty"`
	// Status is the service's label; most addresses are approved at once.
	// The interface document lists no values.
	Status string `json:"Status,omitempty"`
}

// CreateAddressParams is a new address. Line1, City and CountryCode (an
// ISO letter code, two letters as in "AU" or three) are required.
type CreateAddressParams struct {
	Line1       string
	City        string
	CountryCode string // e.g. "AU"
	Friendly    string
	Reference   string
	Line2       string
	Region      string
	PostalCode  string
}

// wireCreateAddress is CreateAddressParams as the service reads it.
type wireCreateAddress struct {
	Line1       string `json:"Line1"`
	City        string `json:"City"`
	CountryCode string `json:"CountryCode"`
	Friendly    string `json:"Friendly,omitempty"`
	Reference   string `json:"Reference,omitempty"`
	Line2       string `json:"Line2,omitempty"`
	Region      string `json:"Region,omitempty"`
	PostalCode  string `json:"PostalCode,omitempty"`
}

func (p *CreateAddressParams) wire() *wireCreateAddress {
	w := wireCreateAddress(*p)
	w.CountryCode = strings.ToUpper(w.CountryCode)
	return &w
}

// addressShape is an address under Address, or bare.
var addressShape = resourceOf[Address]("AddressSid", "Address")

// Create adds an address to the account:
// POST /v2/Accounts/{AccountSid}/Addresses. The interface document does not
// say how the parameters travel; they are sent as a JSON body, as the
// service's other writes take them. The answer is read wrapped as
// {"Address": {...}} or as the bare resource.
func (s *AddressesService) Create(ctx context.Context, accountSid string, p *CreateAddressParams) (*Address, error) {
	const op = "Addresses.Create"
	if err := s.client.precheck(op, "AccountSid", accountSid, p != nil, p.check); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodPost,
		path: escapedPath("/v2/Accounts/{AccountSid}/Addresses", accountSid), body: p.wire()}, addressShape)
}

// Delete removes an address: DELETE /v2/Addresses/{AddressSid}.
// The service answers {AddressSid} of the removed address; it refuses with
// 400 and ADDRESS_CANNOT_BE_DELETED (an *APIError) while numbers rely on
// the address for registration. When an earlier attempt may have reached
// the service (its connection broke, it timed out, or a 5xx came back), an
// ADDRESS_NOT_FOUND on the retry (status 400 or 404) means that attempt did
// the removal, and Delete succeeds.
func (s *AddressesService) Delete(ctx context.Context, addressSid string) error {
	const op = "Addresses.Delete"
	if err := pathParam(op, "AddressSid", addressSid); err != nil {
		return err
	}
	// The answer is read so that a garbled one is reported; an empty one is
	// accepted, since the removal is what matters.
	return s.client.do(ctx, &call{op: op, method: http.MethodDelete, idempotent: true, emptyOK: true,
		goneCode: CodeAddressNotFound, path: escapedPath("/v2/Addresses/{AddressSid}", addressSid)},
		&idAnswer{key: "AddressSid"})
}

// ListAddressesParams filters the account's addresses. Each filter is an
// exact match on its field and is sent only when set; CountryCode is sent
// upper-cased, as Create stores it.
type ListAddressesParams struct {
	Friendly    string
	Reference   string
	City        string
	Region      string
	CountryCode string
	PostalCode  string
	ListParams  // Results_Count default 200
}

// wireListAddresses is ListAddressesParams as the query carries it.
type wireListAddresses struct {
	Friendly    string `url:"Friendly,omitempty"`
	Reference   string `url:"Reference,omitempty"`
	City        string `url:"City,omitempty"`
	Region      string `url:"Region,omitempty"`
	CountryCode string `url:"CountryCode,omitempty"`
	PostalCode  string `url:"PostalCode,omitempty"`
	ListParams
}

func (p *ListAddressesParams) wire() *wireListAddresses {
	w := wireListAddresses(*p)
	w.CountryCode = strings.ToUpper(w.CountryCode)
	return &w
}

// addressesList is the addresses listing. The documentation says "a list
// of addresses" without its envelope: the array is read under Addresses
// or bare.
var addressesList = listOf[Address]("Addresses")

// defaultAddressesCount is the service's page size for addresses.
const defaultAddressesCount = 200

// List returns one page of the account's addresses:
// GET /v2/Accounts/{AccountSid}/Addresses. Results_Count defaults to 200.
// The envelope of the answer is inferred (an array under Addresses, or a
// bare array); the items are Address resources.
func (s *AddressesService) List(ctx context.Context, accountSid string, p *ListAddressesParams) (*Page[Address], error) {
	const op = "Addresses.List"
	if err := pathParam(op, "AccountSid", accountSid); err != nil {
		return nil, err
	}
	q := deref(p)
	if err := s.client.validateParams(op, q.check); err != nil {
		return nil, err
	}
	return getList(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/Accounts/{AccountSid}/Addresses", accountSid), query: q.wire()}, addressesList)
}

// ListAll iterates over every address List would return, from p.Skip on.
func (s *AddressesService) ListAll(ctx context.Context, accountSid string, p *ListAddressesParams) iter.Seq2[Address, error] {
	q := deref(p)
	return skipIterate(ctx, "Addresses.ListAll", q.ListParams, defaultAddressesCount,
		func(ctx context.Context, lp ListParams) (*Page[Address], error) {
			r := q
			r.ListParams = lp
			return s.List(ctx, accountSid, &r)
		})
}

// Get reads one address: GET /v2/Addresses/{AddressSid}. The
// documentation says "a single JSON object" without saying whether it is
// wrapped: it is read as {"Address": {...}} or bare. An unknown address is
// an *APIError with ADDRESS_NOT_FOUND.
func (s *AddressesService) Get(ctx context.Context, addressSid string) (*Address, error) {
	const op = "Addresses.Get"
	if err := pathParam(op, "AddressSid", addressSid); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/Addresses/{AddressSid}", addressSid)}, addressShape)
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Validate checks that Line1, City and an ISO letter CountryCode are given.
func (p *CreateAddressParams) Validate() error {
	if p == nil {
		return nilParams("Addresses.Create")
	}
	return p.check().err("Addresses.Create")
}

func (p *CreateAddressParams) check() fieldErrs {
	var f fieldErrs
	f.required("Line1", p.Line1)
	f.required("City", p.City)
	if f.required("CountryCode", p.CountryCode) && !rules.IsCountryCode(p.CountryCode) {
		f.invalid("CountryCode", "CountryCode must be an ISO country code of 2 or 3 letters, e.g. AU")
	}
	return f
}

// Validate checks the listing's rules: a CountryCode filter is an ISO
// letter code, and Results_Count and Results_Skip are not negative. nil
// asks for the defaults.
func (p *ListAddressesParams) Validate() error {
	if p == nil {
		return nil
	}
	return p.check().err("Addresses.List")
}

func (p ListAddressesParams) check() fieldErrs {
	f := p.ListParams.check()
	if p.CountryCode != "" && !rules.IsCountryCode(p.CountryCode) {
		f.invalid("CountryCode", "CountryCode must be an ISO country code of 2 or 3 letters, e.g. AU")
	}
	return f
}
