package telco

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco/internal/catalog"
)

// sawRequest is what the recording transport saw of one attempt.
type sawRequest struct {
	info   AttemptInfo
	method string
	path   string // escaped
}

// TestEveryMethodCallsItsCatalogueRow holds each SDK method that is an
// operation of internal/catalog to its row: called with valid params and
// path identifiers, its request carries the row's name (CallInfo), method
// and path, and its retries follow the row's idempotency. The method keeps
// its path visible in its own code, as the interface document writes it;
// this test is what keeps the two in step.
func TestEveryMethodCallsItsCatalogueRow(t *testing.T) {
	t.Parallel()
	fixtures := map[string]operation{}
	for _, o := range operations() {
		fixtures[o.op] = o
	}
	for _, row := range catalog.Operations() {
		t.Run(row.Name, func(t *testing.T) {
			t.Parallel()
			f, ok := fixtures[row.Name]
			require.True(t, ok, "%s: the SDK has no method %s (or operations_test.go no row for it)", row.Name, row.Name)
			assert.Equal(t, row.IDs(), f.ids, "%s: the method's path identifiers, in order, are the path's", row.Name)
			var mu sync.Mutex
			var saw []sawRequest
			rec := func(next http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(r *http.Request) (*http.Response, error) {
					info, _ := CallInfo(r.Context())
					mu.Lock()
					saw = append(saw, sawRequest{info, r.Method, r.URL.EscapedPath()})
					mu.Unlock()
					return &http.Response{StatusCode: http.StatusBadRequest, Request: r, Header: http.Header{},
						Body: http.NoBody}, nil
				})
			}
			c, err := NewClient(testSid, testToken, WithBaseURL("https://telco.invalid"), WithTransport(rec),
				WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
			require.NoError(t, err)
			ids := make([]string, len(f.ids))
			want := row.Path
			for i, n := range f.ids {
				ids[i] = validIDs[n]
				want = strings.Replace(want, "{"+n+"}", escapeSeg(ids[i]), 1)
			}
			_ = f.call(c, ids, false)
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
// field of Client whose type is Service+"Service" with an interface
// Service+"API", and every field of that kind is in the catalogue.
func TestEveryCatalogueServiceIsOnClient(t *testing.T) {
	t.Parallel()
	ct := reflect.TypeFor[Client]()
	var fields []string
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		if f.IsExported() && f.Type.Kind() == reflect.Pointer && strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			fields = append(fields, f.Name)
			assert.Equal(t, f.Name+"Service", f.Type.Elem().Name())
		}
	}
	var names []string
	for _, s := range catalog.Services() {
		names = append(names, s.Name)
	}
	assert.Equal(t, names, fields, "the catalogue's services, in the Client's order")
}
