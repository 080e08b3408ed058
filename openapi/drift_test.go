package openapi_test

// The contract must catch a real drift, in either direction: an answer
// that is no longer what the SDK reads, and an SDK request that is no
// longer what the contract says. Each case below drifts one thing, on
// purpose, and asserts that the checker names it.

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

// rewrite is a RoundTripper that alters the answers to one operation's
// requests before the checker sees them, as a drifted service would
// answer.
type rewrite struct {
	next   http.RoundTripper
	method string
	suffix string // of the request's path
	edit   func(resp *http.Response, body []byte) []byte
}

func (rw rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rw.next.RoundTrip(req)
	if err != nil || req.Method != rw.method || !strings.HasSuffix(req.URL.Path, rw.suffix) {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	body = rw.edit(resp, body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp, nil
}

// renameKey renames a JSON key wherever it occurs in the body.
func renameKey(from, to string) func(*http.Response, []byte) []byte {
	return func(_ *http.Response, b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"`+from+`":`), []byte(`"`+to+`":`))
	}
}

// sendOne sends a message through e and returns what the checker saw.
func sendOne(t *testing.T, e *env, chk *checker) []exchange {
	t.Helper()
	chk.take()
	_, _ = e.c.Messages.Send(e.ctx, e.prop, &telco.SendMessageParams{From: "Acme", To: "+61499990000", Text: "hi", ExternalID: "x-1"})
	seen := chk.take()
	require.NotEmpty(t, seen, "the send reached no checker")
	return seen
}

// listBlocks lists the project's number blocks through e and returns what
// the checker saw. The fake writes each block's Created, and the first
// seeded block's Modified, as /Date(ms±hhmm)/.
func listBlocks(t *testing.T, e *env, chk *checker) []exchange {
	t.Helper()
	chk.take()
	_, _ = e.c.NumberBlocks.ListByProperty(e.ctx, e.prop, nil)
	seen := chk.take()
	require.NotEmpty(t, seen, "the listing reached no checker")
	return seen
}

// replaceAll replaces old with new wherever it occurs in the body, which
// must hold it: a drift that alters nothing would prove nothing.
func replaceAll(t *testing.T, old, new string) func(*http.Response, []byte) []byte {
	return func(_ *http.Response, b []byte) []byte {
		assert.Contains(t, string(b), old, "the answer to drift")
		return bytes.ReplaceAll(b, []byte(old), []byte(new))
	}
}

// createdDate is a number block's Created as the fake writes it.
var createdDate = regexp.MustCompile(`"Created":"/Date\([^"]*\)/"`)

// problems joins what the checker found in the exchanges.
func problems(seen []exchange, answer bool) string {
	var out []string
	for _, ex := range seen {
		if answer {
			out = append(out, ex.answer...)
		} else {
			out = append(out, ex.request...)
		}
	}
	return strings.Join(out, "\n")
}

func strictContract(t *testing.T) *openapi3.T {
	doc := loadContract(t)
	strict(doc)
	return doc
}

func TestContractCatchesDrift(t *testing.T) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(base.CloseIdleConnections)
	sendPath := "/Messages"

	t.Run("the undrifted send conforms", func(t *testing.T) {
		// The control: without a drift the same call passes, so the cases
		// below fail for their drift alone.
		e, chk := newEnvWith(t, strictContract(t), base)
		seen := sendOne(t, e, chk)
		assert.Empty(t, problems(seen, false))
		assert.Empty(t, problems(seen, true))
		seen = listBlocks(t, e, chk)
		assert.Empty(t, problems(seen, false))
		assert.Empty(t, problems(seen, true))
	})

	t.Run("an answer without its identifier", func(t *testing.T) {
		e, chk := newEnvWith(t, strictContract(t), rewrite{next: base, method: http.MethodPost, suffix: sendPath,
			edit: renameKey("MessageSid", "MessageSID")})
		got := problems(sendOne(t, e, chk), true)
		// kin-openapi's report of a failed anyOf names the schema and
		// quotes the value, not the branch's reason.
		assert.Contains(t, got, "MessageAnswer", "a message answer lost the field the SDK keys on")
		assert.Contains(t, got, `"MessageSID"`)
	})

	t.Run("an optional field renamed in an answer", func(t *testing.T) {
		// The SDK would read ExternalID as empty without a word; only the
		// strict contract notices, which is why the checker is strict.
		rw := rewrite{next: base, method: http.MethodPost, suffix: sendPath, edit: renameKey("ExternalId", "ExternalID")}
		e, chk := newEnvWith(t, strictContract(t), rw)
		got := problems(sendOne(t, e, chk), true)
		assert.Contains(t, got, "ExternalID")

		open, openChk := newEnvWith(t, loadContract(t), rw)
		assert.Empty(t, problems(sendOne(t, open, openChk), true), "the open contract lets an unknown field pass")
	})

	t.Run("a field of another type in an answer", func(t *testing.T) {
		e, chk := newEnvWith(t, strictContract(t), rewrite{next: base, method: http.MethodPost, suffix: sendPath,
			edit: func(_ *http.Response, b []byte) []byte {
				return bytes.Replace(b, []byte(`"NumSegments":1`), []byte(`"NumSegments":"1"`), 1)
			}})
		got := problems(sendOne(t, e, chk), true)
		assert.Contains(t, got, "NumSegments")
	})

	t.Run("an undocumented status", func(t *testing.T) {
		e, chk := newEnvWith(t, strictContract(t), rewrite{next: base, method: http.MethodPost, suffix: sendPath,
			edit: func(r *http.Response, b []byte) []byte {
				r.StatusCode, r.Status = http.StatusCreated, "201 Created"
				return b
			}})
		got := problems(sendOne(t, e, chk), true)
		assert.Contains(t, got, "201")
	})

	t.Run("a number-block datetime with an offset of 24 hours", func(t *testing.T) {
		// The SDK refuses hours over 23; so must the contract.
		e, chk := newEnvWith(t, strictContract(t), rewrite{next: base, method: http.MethodGet, suffix: "/numberblocks",
			edit: replaceAll(t, "+0000)/", "+2400)/")})
		got := problems(listBlocks(t, e, chk), true)
		assert.Contains(t, got, "+2400)/")
	})

	t.Run("a number-block datetime without its offset", func(t *testing.T) {
		// The service writes /Date(<epoch_ms><utc_offset>)/, offset included.
		e, chk := newEnvWith(t, strictContract(t), rewrite{next: base, method: http.MethodGet, suffix: "/numberblocks",
			edit: replaceAll(t, "+1000)/", ")/")})
		got := problems(listBlocks(t, e, chk), true)
		assert.Contains(t, got, "Modified")
	})

	t.Run("a number block whose Created is null", func(t *testing.T) {
		// The spec makes Modified and the quarantine dates nullable, not
		// Created.
		e, chk := newEnvWith(t, strictContract(t), rewrite{next: base, method: http.MethodGet, suffix: "/numberblocks",
			edit: func(_ *http.Response, b []byte) []byte {
				out := createdDate.ReplaceAll(b, []byte(`"Created":null`))
				assert.NotEqual(t, string(b), string(out), "no Created to drift")
				return out
			}})
		got := problems(listBlocks(t, e, chk), true)
		assert.Contains(t, got, "Created")
	})

	t.Run("a request field the contract renamed", func(t *testing.T) {
		// A deliberately altered copy of the contract: Send's To is now
		// Recipient. The SDK still sends To, and the checker says so.
		doc := strictContract(t)
		body := doc.Components.Schemas["SendMessageRequest"].Value
		body.Properties["Recipient"] = body.Properties["To"]
		delete(body.Properties, "To")
		body.Required = []string{"Recipient", "Text"}
		e, chk := newEnvWith(t, doc, base)
		got := problems(sendOne(t, e, chk), false)
		assert.Contains(t, got, "Recipient")
	})

	t.Run("a query parameter the contract no longer declares", func(t *testing.T) {
		// Another altered copy: OnlineLogins.List loses Results_Count,
		// which the SDK sends.
		doc := strictContract(t)
		op := doc.Paths.Value("/v2/OnlineLogins").Get
		var kept openapi3.Parameters
		for _, p := range op.Parameters {
			if p.Value.Name != "Results_Count" {
				kept = append(kept, p)
			}
		}
		require.Len(t, kept, len(op.Parameters)-1)
		op.Parameters = kept
		e, chk := newEnvWith(t, doc, base)
		_, err := e.c.OnlineLogins.List(e.ctx, &telco.ListParams{Count: 10})
		require.NoError(t, err)
		got := problems(chk.take(), false)
		assert.Contains(t, got, `"Results_Count" is not declared`)
	})

	t.Run("an operation the contract names otherwise", func(t *testing.T) {
		// The SDK names each call (CallInfo); the contract's route for it
		// must carry the same operationId.
		doc := strictContract(t)
		doc.Paths.Value("/v2/Messages/{MessageSid}").Get.OperationID = "Messages.Read"
		e, chk := newEnvWith(t, doc, base)
		_, _ = e.c.Messages.Get(e.ctx, "MG1")
		assert.Contains(t, problems(chk.take(), false), "the SDK calls it Messages.Get, the contract routes it to Messages.Read")
	})

	t.Run("a path the contract does not know", func(t *testing.T) {
		// The contract's Messages.Get moved: the SDK's path matches no
		// route any more.
		doc := strictContract(t)
		doc.Paths.Set("/v2/Messages/{MessageSid}/Detail", doc.Paths.Value("/v2/Messages/{MessageSid}"))
		doc.Paths.Delete("/v2/Messages/{MessageSid}")
		e, chk := newEnvWith(t, doc, base)
		_, _ = e.c.Messages.Get(e.ctx, "MG1")
		seen := chk.take()
		require.NotEmpty(t, seen)
		assert.Contains(t, problems(seen, false), "route")
		assert.Empty(t, seen[0].op)
	})
}
