package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

// syncBuffer lets the test read what the tool prints while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestMockServesTheFake(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"mock", "--addr", "127.0.0.1:0", "--account-sid", "ACMOCKMOCKMOCKMOCKMOCKMOCKMOCKMO", "--token", "t0ken"}, &out, &errOut)
	}()

	var url, project string
	require.Eventually(t, func() bool {
		url = field(out.String(), "URL")
		project = field(out.String(), "project SID")
		return url != "" && project != ""
	}, 5*time.Second, 10*time.Millisecond, "the tool prints its URL: %s %s", out.String(), errOut.String())
	assert.Equal(t, "ACMOCKMOCKMOCKMOCKMOCKMOCKMOCKMO", field(out.String(), "account SID"))
	assert.Equal(t, "t0ken", field(out.String(), "token"))

	c, err := telco.NewClient("ACMOCKMOCKMOCKMOCKMOCKMOCKMOCKMO", "t0ken", telco.WithBaseURL(url))
	require.NoError(t, err)
	p, err := c.Properties.Get(context.Background(), project)
	require.NoError(t, err)
	assert.True(t, p.SmsEnabled)

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(5 * time.Second):
		t.Fatal("mock did not stop when its context ended")
	}
}

// field finds "  name:   value" in the tool's output.
func field(out, name string) string {
	re := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(name) + `:\s+(\S+)`)
	if m := re.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

func TestUsageAndVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), nil, &out, &errOut))
	assert.Contains(t, errOut.String(), "telco mock")

	out.Reset()
	assert.Equal(t, 0, run(context.Background(), []string{"version"}, &out, io.Discard))
	assert.Equal(t, "telco-go "+telco.Version+"\n", out.String())

	errOut.Reset()
	assert.Equal(t, 2, run(context.Background(), []string{"frobnicate"}, io.Discard, &errOut))
	assert.Contains(t, errOut.String(), `unknown command "frobnicate"`)
}

func TestMockFlagErrors(t *testing.T) {
	var errOut bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"mock", "--token", "only"}, io.Discard, &errOut))
	assert.Contains(t, errOut.String(), "both")

	errOut.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"mock", "--addr", "256.0.0.1:1"}, io.Discard, &errOut))
	assert.True(t, strings.Contains(errOut.String(), "listen"), errOut.String())

	sc := bufio.NewScanner(strings.NewReader(usage))
	require.True(t, sc.Scan())
	assert.Equal(t, "usage:", sc.Text())
}
