package telco_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/catalog"
	"github.com/telcosdk/telco/internal/optest"
)

// sawRequest is what the recording transport saw of one attempt.
type sawRequest struct {
	info   telco.AttemptInfo
	method string
	path   string // escaped
}

// transportFunc is a function as an http.RoundTripper.
type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestEveryMethodCallsItsCatalogueRow holds each SDK method that is an
// operation of internal/catalog to its row: its fixture's valid call
// (internal/optest), with path identifiers that differ from one another,
// sends a request that carries the row's name (CallInfo), method and path,
// and its retries follow the row's idempotency. The method keeps its path
// visible in its own code, as the interface document writes it; this test
// is what keeps the two in step.
func TestEveryMethodCallsItsCatalogueRow(t *testing.T) {
	t.Parallel()
	fixtures := map[string]optest.Fixture{}
	for _, f := range optest.Fixtures() {
		fixtures[f.Name] = f
	}
	ids := optest.ValidIDs()
	for _, row := range catalog.Operations() {
		t.Run(row.Name, func(t *testing.T) {
			t.Parallel()
			f, ok := fixtures[row.Name]
			require.True(t, ok, "%s: the SDK has no method %s (or internal/optest no fixture for it)", row.Name, row.Name)
			var mu sync.Mutex
			var saw []sawRequest
			rec := func(next http.RoundTripper) http.RoundTripper {
				return transportFunc(func(r *http.Request) (*http.Response, error) {
					info, _ := telco.CallInfo(r.Context())
					mu.Lock()
					saw = append(saw, sawRequest{info, r.Method, r.URL.EscapedPath()})
					mu.Unlock()
					return &http.Response{StatusCode: http.StatusBadRequest, Request: r, Header: http.Header{},
						Body: http.NoBody}, nil
				})
			}
			c, err := telco.NewClient(ids.AccountSid, "tok-S3cret-9f8e7d", telco.WithBaseURL("https://telco.invalid"),
				telco.WithTransport(rec), telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}))
			require.NoError(t, err)
			want := row.Path
			for _, n := range row.IDs() {
				v, ok := ids.Get(n)
				require.True(t, ok, n)
				want = strings.Replace(want, "{"+n+"}", escapeSeg(v), 1)
			}
			_ = f.Call(context.Background(), c, ids, false)
			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, saw, "%s: no request", row.Name)
			got := saw[0]
			assert.Equal(t, row.Name, got.info.Op, "CallInfo names the row")
			assert.Equal(t, row.Method, got.method, "%s: the row's method", row.Name)
			assert.Equal(t, want, got.path, "%s: the row's path", row.Name)
			assert.Equal(t, row.Idempotent, got.info.Idempotent, "%s: the row's idempotency", row.Name)
		})
	}
}

// escapeSeg is a path identifier as escapedPath writes it (Numbers.Configure
// and Numbers.Get take "+61..." and send the digits).
func escapeSeg(id string) string {
	return url.PathEscape(strings.TrimPrefix(id, "+"))
}

// TestEveryCatalogueServiceIsOnClient: each service of the catalogue is a
// field of Client, in the catalogue's order, of type *<Service>Service,
// and NewClient sets it; every field of that kind is in the catalogue. The
// failures name the field, so that adding a service to the catalogue says
// what client.go lacks.
func TestEveryCatalogueServiceIsOnClient(t *testing.T) {
	t.Parallel()
	c, err := telco.NewClient(optest.ValidIDs().AccountSid, "tok-S3cret-9f8e7d")
	require.NoError(t, err)
	cv := reflect.ValueOf(c).Elem()
	ct := cv.Type()
	var fields []string
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		if f.IsExported() && f.Type.Kind() == reflect.Pointer && strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			fields = append(fields, f.Name)
		}
	}
	var names []string
	for _, s := range catalog.Services() {
		names = append(names, s.Name)
		f, ok := ct.FieldByName(s.Name)
		if !assert.True(t, ok, "the catalogue's service %s is no field of Client: add %s *%sService to Client and assign it in NewClient (client.go)",
			s.Name, s.Name, s.Name) {
			continue
		}
		if !assert.Equal(t, "*telco."+s.Name+"Service", f.Type.String(), "Client.%s's type", s.Name) {
			continue
		}
		assert.False(t, cv.FieldByIndex(f.Index).IsNil(), "NewClient leaves Client.%s nil: assign it in NewClient (client.go)", s.Name)
	}
	assert.Equal(t, names, fields, "Client's service fields are the catalogue's services, in its order")
}
