package telco

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

const inboundJSON = `{"MessageSid":"MGIIIIIIIIIIIIIIIIIIIIIIIIIIIIII","Direction":"Receive","Status":"Received",
 "From":"+61411111111","To":"+61400000001","Text":"STOP","Received":1763780100}`

// post delivers one callback over a real connection and returns the status.
func post(t *testing.T, url, body string) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if !assert.NoError(t, err) {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestWebhookRedeliveryRunsOnce is the reproduction: an auto-reply
// sent from an inbound-message function went out twice when the service
// delivered the same callback twice.
func TestWebhookRedeliveryRunsOnce(t *testing.T) {
	t.Parallel()
	var replies atomic.Int64
	srv := httptest.NewServer(InboundMessageHandler(func(context.Context, *MessageEvent) error {
		replies.Add(1) // stands for Messages.Send of an auto-reply
		return nil
	}))
	defer srv.Close()

	assert.Equal(t, http.StatusNoContent, post(t, srv.URL, inboundJSON))
	assert.Equal(t, http.StatusNoContent, post(t, srv.URL, inboundJSON), "a redelivery is answered 2xx, so the sender stops")
	assert.Equal(t, int64(1), replies.Load(), "the auto-reply is sent once")
}
