package telco

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allMessages yields n messages with ExternalIds prefix-0, prefix-1...,
// counting how many were read.
func sendAllInput(prefix string, n int, read *atomic.Int32) iter.Seq[SendMessageParams] {
	return func(yield func(SendMessageParams) bool) {
		for i := range n {
			if read != nil {
				read.Add(1)
			}
			if !yield(*onceParams(fmt.Sprint(prefix, "-", i))) {
				return
			}
		}
	}
}

// Chunks in flight answer in any order; the results come in input order,
// each message stored once, a request per chunk.
func TestSendAllYieldsInInputOrder(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{delay: func(n int) time.Duration {
		return time.Duration(n%2) * 20 * time.Millisecond // every other request answers late
	}})
	c := srv.client(t, fastReconcile, WithLedger(NewMemoryLedger()))
	var ids []string
	for res, err := range c.Messages.SendAll(bg, testProp, sendAllInput("all", 20, nil), &SendAllOptions{ChunkSize: 3, Parallel: 4}) {
		require.NoError(t, err)
		require.NotNil(t, res.Message)
		ids = append(ids, res.Message.ExternalID)
	}
	want := make([]string, 20)
	for i := range want {
		want[i] = fmt.Sprint("all-", i)
		assert.Equal(t, 1, srv.stored()[want[i]], want[i])
	}
	assert.Equal(t, want, ids, "input order")
	assert.Equal(t, 7, srv.sendCount(), "a request per chunk of 3")

	// Again: every message is answered from the ledger, nothing sent.
	got := 0
	for res, err := range c.Messages.SendAll(bg, testProp, sendAllInput("all", 20, nil), nil) {
		require.NoError(t, err)
		require.NotNil(t, res.Message)
		got++
	}
	assert.Equal(t, 20, got)
	assert.Equal(t, 7, srv.sendCount())
}

// A loop that stops early starts no more chunks; those in flight finish
// before SendAll returns, and what they sent is in the ledger.
func TestSendAllStopsWhenTheLoopStops(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	l := NewMemoryLedger()
	c := srv.client(t, fastReconcile, WithLedger(l))
	var read atomic.Int32
	k := 0
	for _, err := range c.Messages.SendAll(bg, testProp, sendAllInput("stop", 1000, &read), &SendAllOptions{ChunkSize: 10, Parallel: 3}) {
		require.NoError(t, err)
		if k++; k == 5 {
			break
		}
	}
	sends := srv.sendCount()
	assert.LessOrEqual(t, sends, 3, "no more than the chunks in flight")
	assert.LessOrEqual(t, int(read.Load()), 31, "the input is read as chunks start, not ahead")
	stored := 0
	for id, n := range srv.stored() {
		require.Equal(t, 1, n, id)
		assert.Equal(t, LedgerSent, ledgerRecord(t, l, testProp, id).State, "%s: recorded before SendAll returned", id)
		stored++
	}
	assert.Equal(t, sends*10, stored)
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, sends, srv.sendCount(), "nothing goes on after SendAll returned")
}

// A chunk refused as a whole gives each of its messages the chunk's
// error; the other chunks go on.
func TestSendAllChunkErrorsStayWithTheirMessages(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	c := srv.client(t, fastReconcile, WithLedger(NewMemoryLedger()))
	msgs := slices.Collect(sendAllInput("chunk", 6, nil))
	msgs[4].ExternalID = "chunk-3" // chunk [3 4 5] repeats an ExternalId
	var errs []error
	for res, err := range c.Messages.SendAll(bg, testProp, slices.Values(msgs), &SendAllOptions{ChunkSize: 3, Parallel: 2}) {
		if err == nil {
			require.NotNil(t, res.Message)
		}
		errs = append(errs, err)
	}
	require.Len(t, errs, 6)
	for i, err := range errs {
		if i < 3 {
			assert.NoError(t, err, i)
			continue
		}
		var ve *ValidationError
		assert.ErrorAs(t, err, &ve, i)
	}
	assert.Len(t, srv.stored(), 3)
}

// When ctx ends, nothing more is started; after the pairs of the chunks in
// flight, one pair carries the context's error.
func TestSendAllEndsWithTheContext(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	c := srv.client(t, fastReconcile, WithLedger(NewMemoryLedger()))
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	var last error
	pairs := 0
	for _, err := range c.Messages.SendAll(ctx, testProp, sendAllInput("ctx", 100, nil), &SendAllOptions{ChunkSize: 5}) {
		pairs++
		last = err
		if pairs == 5 {
			cancel()
		}
	}
	assert.ErrorIs(t, last, context.Canceled)
	assert.Equal(t, 5*srv.sendCount()+1, pairs, "the pairs of the chunks sent, then the context's error")
}

func TestSendAllRefusesBadOptions(t *testing.T) {
	t.Parallel()
	c, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	for _, tc := range []struct {
		prop string
		opts *SendAllOptions
		want string
	}{
		{testProp, &SendAllOptions{Parallel: MaxSendAllParallel + 1}, "Parallel"},
		{testProp, &SendAllOptions{Parallel: -1}, "Parallel"},
		{testProp, &SendAllOptions{ChunkSize: -1}, "ChunkSize"},
		{"", nil, "PropertySid"},
	} {
		pairs := 0
		for _, err := range c.Messages.SendAll(bg, tc.prop, sendAllInput("bad", 3, nil), tc.opts) {
			pairs++
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.True(t, strings.Contains(err.Error(), tc.want), err.Error())
		}
		assert.Equal(t, 1, pairs)
	}
}
