package telco

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A decoded value must not share memory with the pooled body buffer: the
// next call reuses it.
func TestDecodedValuesOutliveThePooledBuffer(t *testing.T) {
	c, mt := newMockClient(t)
	bodies := []string{
		`{"Property":{"PropertySid":"PRFIRST","Name":"First"}}`,
		`{"Property":{"PropertySid":"PRSECOND","Name":"` + strings.Repeat("x", 4096) + `"}}`,
	}
	n := 0
	mt.RegisterResponder(http.MethodGet, `=~^`+testBase+`/v2/Properties/`, func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(http.StatusOK, bodies[n%2])
		n++
		return r, nil
	})
	first, err := c.Properties.Get(context.Background(), "PRFIRST")
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		_, err := c.Properties.Get(context.Background(), "PRSECOND")
		require.NoError(t, err)
	}
	assert.Equal(t, "PRFIRST", first.PropertySid)
	assert.Equal(t, "First", first.Name)
}

func TestBodyBufferPoolKeepsOnlyModestBuffers(t *testing.T) {
	small := getBodyBuffer()
	small.WriteString("leftover")
	putBodyBuffer(small)
	again := getBodyBuffer()
	assert.Zero(t, again.Len(), "a buffer from the pool starts empty")
	putBodyBuffer(again)

	big := bytes.NewBuffer(make([]byte, 0, maxPooledBody+1))
	putBodyBuffer(big)
	for i := 0; i < 10; i++ {
		b := getBodyBuffer()
		assert.NotSame(t, big, b, "a buffer over maxPooledBody is dropped")
		defer putBodyBuffer(b)
	}
}
