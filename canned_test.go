package telco

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// cannedTransport answers every request with 200 and body.
type cannedTransport struct{ body []byte }

func (t cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(t.body)),
		Request: r, ContentLength: int64(len(t.body))}, nil
}

// cannedClient is a Client whose transport answers every request with
// body, from memory: what the SDK itself does on a call, without a network.
func cannedClient(b testing.TB, body []byte) *Client {
	c, err := NewClient(testSid, testToken, WithBaseURL("http://127.0.0.1:1"),
		WithHTTPClient(&http.Client{Transport: cannedTransport{body}}))
	if err != nil {
		b.Fatal(err)
	}
	return c
}
