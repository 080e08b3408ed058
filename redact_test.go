package telco

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRedactedGoSyntaxNamesThePublicType(t *testing.T) {
	lp := CreateOnlineLoginParams{Email: "a@b.example", Password: "Secret-Passw0rd!"}
	out := fmt.Sprintf("%#v", lp)
	assert.Contains(t, out, "telco.CreateOnlineLoginParams{")
	assert.Contains(t, out, `"[REDACTED]"`)
	assert.NotContains(t, out, "Secret-Passw0rd!")

	sc := SipCredentials{Realm: "r", Password: "Aa1!Aa1!bb"}
	out = fmt.Sprintf("%#v", sc)
	assert.Contains(t, out, "telco.SipCredentials{")
	assert.NotContains(t, out, "Aa1!Aa1!bb")
}

func TestPathSegmentEscapesDotSegments(t *testing.T) {
	assert.Equal(t, "%2E", pathSegment("."))
	assert.Equal(t, "%2E%2E", pathSegment(".."))
	assert.Equal(t, "a.b", pathSegment("a.b"))
	assert.Equal(t, "a%2Fb", pathSegment("a/b"))

	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/numberblocks/%2E%2E", 200, []byte(`{"Data":[]}`))
	_, err := c.NumberBlocks.SearchText(bg, "..", nil)
	assert.NoError(t, err)
	assert.Equal(t, "/v2/numberblocks/%2E%2E", got.Path)
}
