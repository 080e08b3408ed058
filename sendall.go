package telco

// SendAll: many messages, sent in chunks through SendBatchOnce with a few
// chunks in flight, their results handed back in input order. The CLI's
// `telco sms batch` is built on it.

import (
	"context"
	"fmt"
	"iter"
	"sync"
)

// SendAllOptions govern SendAll. Zero values take the defaults, which are
// those of `telco sms batch`.
type SendAllOptions struct {
	// ChunkSize is how many messages go in one request (one
	// SendBatchOnce). Default DefaultSendAllChunkSize.
	ChunkSize int
	// Parallel is how many chunks are in flight at once, from 1 to
	// MaxSendAllParallel. Default 1.
	Parallel int
}

// Defaults and bounds of SendAllOptions.
const (
	DefaultSendAllChunkSize = 100
	MaxSendAllParallel      = 16
)

// SendAll sends msgs in chunks of opts.ChunkSize, each through
// SendBatchOnce (so at most once, by the Client's Ledger), with up to
// opts.Parallel chunks in flight, and yields one pair per message in
// input order, whatever order the answers come in: the message's
// BatchResult (Message when it was sent, now or by an earlier call; Err
// when the service refused it) and a nil error, or, for a message its
// chunk left unsettled, that chunk's error (an *UnresolvedError naming
// it, a *ValidationError, a whole-request refusal). Every message needs an
// ExternalID, distinct within its chunk (SendBatchOnce's rules): a chunk
// with one that breaks them is refused as a whole, before any request.
//
// msgs is read as chunks are started, and at most opts.Parallel chunks
// are started ahead of the pairs yielded, so a slow chunk holds back new
// ones rather than letting results pile up. When the loop stops early,
// SendAll starts no more chunks, waits for those in flight to finish
// (what they sent is in the ledger), and returns. When ctx ends, chunks
// in flight end with its error and nothing more is started: after their
// pairs, one last pair carries ctx's error, and no message after the last
// pair yielded was sent. Bad options yield one pair with a
// *ValidationError. With ReconcilePolicy.LookBack, each chunk looks its
// new ExternalIds up in a scan of its own: to start a large campaign on a
// fresh ledger, FillLedger once first instead.
func (s *MessagesService) SendAll(ctx context.Context, propertySid string, msgs iter.Seq[SendMessageParams], opts *SendAllOptions) iter.Seq2[BatchResult, error] {
	const op = "Messages.SendAll"
	return func(yield func(BatchResult, error) bool) {
		o := deref(opts)
		var fe fieldErrs
		if o.ChunkSize < 0 {
			fe.invalid("ChunkSize", "ChunkSize must not be negative")
		}
		if o.Parallel < 0 || o.Parallel > MaxSendAllParallel {
			fe.invalid("Parallel", fmt.Sprintf("Parallel must be from 0 to %d", MaxSendAllParallel))
		}
		err := pathParam(op, "PropertySid", propertySid)
		if err == nil {
			err = fe.err(op)
		}
		if err != nil {
			yield(BatchResult{}, err)
			return
		}
		if o.ChunkSize == 0 {
			o.ChunkSize = DefaultSendAllChunkSize
		}
		if o.Parallel == 0 {
			o.Parallel = 1
		}
		ctx = ctxOrBackground(ctx)
		next, stop := iter.Pull(msgs)
		defer stop()
		read := func() []SendMessageParams {
			var chunk []SendMessageParams
			for len(chunk) < o.ChunkSize {
				m, ok := next()
				if !ok {
					break
				}
				chunk = append(chunk, m)
			}
			return chunk
		}

		type sent struct {
			n   int
			res []BatchResult
			err error
		}
		var inFlight []chan sent // in input order
		var wg sync.WaitGroup
		defer wg.Wait() // a chunk in flight finishes, and records what it sent, before SendAll returns
		more := true
		for {
			for more && len(inFlight) < o.Parallel && ctx.Err() == nil {
				chunk := read()
				if more = len(chunk) > 0; !more {
					break
				}
				done := make(chan sent, 1)
				inFlight = append(inFlight, done)
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := s.SendBatchOnce(ctx, propertySid, chunk)
					done <- sent{len(chunk), res, err}
				}()
			}
			if len(inFlight) == 0 {
				if more && ctx.Err() != nil {
					if _, left := next(); left {
						yield(BatchResult{}, fmt.Errorf("telco: %s: %w", op, ctx.Err()))
					}
				}
				return
			}
			c := <-inFlight[0]
			inFlight = inFlight[1:]
			for i := range c.n {
				var res BatchResult
				if c.res != nil {
					res = c.res[i]
				}
				var err error
				if res.Message == nil && res.Err == nil {
					err = c.err
				}
				if !yield(res, err) {
					return
				}
			}
		}
	}
}
