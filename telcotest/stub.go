package telcotest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/telcosdk/telco"
)

// ErrNotStubbed is returned by a MessagesStub method whose func is not set
// and has nothing to fall back on.
var ErrNotStubbed = errors.New("telcotest: not stubbed")

// MessagesStub is a telco.MessagesAPI for unit tests of code that depends
// on the interface: each method calls its func field when it is set. It
// is the safe version of a hand-written fake that embeds the interface,
// which panics on any method it does not define (SendOnce, say).
//
// A method whose func is nil falls back on the others, so that a stub of
// Send alone serves code that calls SendOnce:
//
//   - Send and Get answer ErrNotStubbed.
//   - SendBatch sends each element with Send: an accepted one carries its
//     message, one refused with an *telco.APIError not matching
//     telco.ErrMaybeSent its error; any other error ends the batch with
//     the results so far.
//   - SendOnce calls Send once and remembers the message it returns by
//     ExternalId, as the SDK's ledger does: a second SendOnce of the same
//     ExternalId returns it without calling Send. An error matching
//     telco.ErrMaybeSent becomes an *telco.UnresolvedError naming the
//     ExternalId, as SendOnce returns when its look-ups run out; other
//     errors are returned as they are. SendBatchOnce does the same per
//     element.
//   - Find answers ErrNotStubbed; FindAll pages Find as the SDK does.
//   - FindByExternalID and ListByExternalID answer from the messages the
//     stub's sends returned; FillLedger answers 0, nil: the stub's memory
//     is those sends.
//   - SendAll sends msgs in chunks of ChunkSize with SendBatchOnce, one
//     chunk at a time, and yields each message's result in input order
//     (with its chunk's error when the chunk left it unsettled).
//
// The zero value is ready to use; a MessagesStub is safe for concurrent use
// once its funcs are set.
type MessagesStub struct {
	SendFunc             func(ctx context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error)
	SendBatchFunc        func(ctx context.Context, propertySid string, msgs []telco.SendMessageParams) ([]telco.BatchResult, error)
	FindFunc             func(ctx context.Context, propertySid string, p *telco.FindMessagesParams) (*telco.Page[telco.Message], error)
	GetFunc              func(ctx context.Context, messageSid string) (*telco.Message, error)
	SendOnceFunc         func(ctx context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error)
	SendBatchOnceFunc    func(ctx context.Context, propertySid string, msgs []telco.SendMessageParams) ([]telco.BatchResult, error)
	FindByExternalIDFunc func(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string]telco.Message, error)
	ListByExternalIDFunc func(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string][]telco.Message, error)
	FillLedgerFunc       func(ctx context.Context, propertySid string, from, to time.Time) (int, error)
	SendAllFunc          func(ctx context.Context, propertySid string, msgs iter.Seq[telco.SendMessageParams], opts *telco.SendAllOptions) iter.Seq2[telco.BatchResult, error]

	mu   sync.Mutex
	sent map[[2]string][]telco.Message // by project and ExternalId, what the sends returned
}

var _ telco.MessagesAPI = (*MessagesStub)(nil)

func notStubbed(method string) error { return fmt.Errorf("%w: MessagesStub.%s", ErrNotStubbed, method) }

// remember keeps a message a send returned, for the look-ups.
func (s *MessagesStub) remember(propertySid string, m *telco.Message) {
	if m == nil || m.ExternalID == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent == nil {
		s.sent = map[[2]string][]telco.Message{}
	}
	k := [2]string{propertySid, m.ExternalID}
	s.sent[k] = append(s.sent[k], *m)
}

func (s *MessagesStub) remembered(propertySid, externalID string) []telco.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]telco.Message(nil), s.sent[[2]string{propertySid, externalID}]...)
}

// Send calls SendFunc.
func (s *MessagesStub) Send(ctx context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error) {
	if s.SendFunc == nil {
		return nil, notStubbed("Send")
	}
	m, err := s.SendFunc(ctx, propertySid, p)
	if err == nil {
		s.remember(propertySid, m)
	}
	return m, err
}

// SendBatch calls SendBatchFunc, else Send for each element.
func (s *MessagesStub) SendBatch(ctx context.Context, propertySid string, msgs []telco.SendMessageParams) ([]telco.BatchResult, error) {
	if s.SendBatchFunc != nil {
		res, err := s.SendBatchFunc(ctx, propertySid, msgs)
		for _, r := range res {
			s.remember(propertySid, r.Message)
		}
		return res, err
	}
	res := make([]telco.BatchResult, len(msgs))
	for i := range msgs {
		m, err := s.Send(ctx, propertySid, &msgs[i])
		var ae *telco.APIError
		switch {
		case err == nil:
			res[i].Message = m
		case errors.As(err, &ae) && !errors.Is(err, telco.ErrMaybeSent):
			res[i].Err = ae
		default:
			return res, err
		}
	}
	return res, nil
}

// Find calls FindFunc.
func (s *MessagesStub) Find(ctx context.Context, propertySid string, p *telco.FindMessagesParams) (*telco.Page[telco.Message], error) {
	if s.FindFunc == nil {
		return nil, notStubbed("Find")
	}
	return s.FindFunc(ctx, propertySid, p)
}

// FindAll pages Find with Results_Skip until an empty page.
func (s *MessagesStub) FindAll(ctx context.Context, propertySid string, p *telco.FindMessagesParams) iter.Seq2[telco.Message, error] {
	return func(yield func(telco.Message, error) bool) {
		q := telco.FindMessagesParams{}
		if p != nil {
			q = *p
		}
		for {
			page, err := s.Find(ctx, propertySid, &q)
			if err != nil {
				yield(telco.Message{}, err)
				return
			}
			if len(page.Items) == 0 {
				return
			}
			for _, m := range page.Items {
				if !yield(m, nil) {
					return
				}
			}
			q.Skip += len(page.Items)
		}
	}
}

// Get calls GetFunc.
func (s *MessagesStub) Get(ctx context.Context, messageSid string) (*telco.Message, error) {
	if s.GetFunc == nil {
		return nil, notStubbed("Get")
	}
	return s.GetFunc(ctx, messageSid)
}

// SendOnce calls SendOnceFunc, else Send at most once per ExternalId.
func (s *MessagesStub) SendOnce(ctx context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error) {
	if s.SendOnceFunc != nil {
		m, err := s.SendOnceFunc(ctx, propertySid, p)
		if err == nil {
			s.remember(propertySid, m)
		}
		return m, err
	}
	if p != nil && p.ExternalID != "" {
		if ms := s.remembered(propertySid, p.ExternalID); len(ms) > 0 {
			return &ms[0], nil
		}
	}
	m, err := s.Send(ctx, propertySid, p)
	if err != nil && errors.Is(err, telco.ErrMaybeSent) {
		id := ""
		if p != nil {
			id = p.ExternalID
		}
		return nil, &telco.UnresolvedError{Op: "Messages.SendOnce", ExternalIDs: []string{id}, Err: err}
	}
	return m, err
}

// SendBatchOnce calls SendBatchOnceFunc, else SendOnce for each element.
func (s *MessagesStub) SendBatchOnce(ctx context.Context, propertySid string, msgs []telco.SendMessageParams) ([]telco.BatchResult, error) {
	if s.SendBatchOnceFunc != nil {
		res, err := s.SendBatchOnceFunc(ctx, propertySid, msgs)
		for _, r := range res {
			s.remember(propertySid, r.Message)
		}
		return res, err
	}
	res := make([]telco.BatchResult, len(msgs))
	var unresolved []string
	var last error
	for i := range msgs {
		m, err := s.SendOnce(ctx, propertySid, &msgs[i])
		var ae *telco.APIError
		switch {
		case err == nil:
			res[i].Message = m
		case errors.Is(err, telco.ErrMaybeSent):
			unresolved = append(unresolved, msgs[i].ExternalID)
			last = errors.Unwrap(err)
		case errors.As(err, &ae):
			res[i].Err = ae
		default:
			return res, err
		}
	}
	if len(unresolved) > 0 {
		return res, &telco.UnresolvedError{Op: "Messages.SendBatchOnce", ExternalIDs: unresolved, Err: last}
	}
	return res, nil
}

// FindByExternalID calls FindByExternalIDFunc, else answers from the
// messages the stub's sends returned (the first for each ExternalId).
func (s *MessagesStub) FindByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string]telco.Message, error) {
	if s.FindByExternalIDFunc != nil {
		return s.FindByExternalIDFunc(ctx, propertySid, since, externalIDs...)
	}
	out := map[string]telco.Message{}
	for _, id := range externalIDs {
		if ms := s.remembered(propertySid, id); len(ms) > 0 {
			out[id] = ms[0]
		}
	}
	return out, nil
}

// ListByExternalID calls ListByExternalIDFunc, else answers from the
// messages the stub's sends returned.
func (s *MessagesStub) ListByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string][]telco.Message, error) {
	if s.ListByExternalIDFunc != nil {
		return s.ListByExternalIDFunc(ctx, propertySid, since, externalIDs...)
	}
	out := map[string][]telco.Message{}
	for _, id := range externalIDs {
		if ms := s.remembered(propertySid, id); len(ms) > 0 {
			out[id] = ms
		}
	}
	return out, nil
}

// FillLedger calls FillLedgerFunc, or answers 0: the stub remembers what
// its own sends returned, and has no history to read.
func (s *MessagesStub) FillLedger(ctx context.Context, propertySid string, from, to time.Time) (int, error) {
	if s.FillLedgerFunc != nil {
		return s.FillLedgerFunc(ctx, propertySid, from, to)
	}
	return 0, nil
}

// SendAll calls SendAllFunc, or sends msgs in chunks with SendBatchOnce.
func (s *MessagesStub) SendAll(ctx context.Context, propertySid string, msgs iter.Seq[telco.SendMessageParams], opts *telco.SendAllOptions) iter.Seq2[telco.BatchResult, error] {
	if s.SendAllFunc != nil {
		return s.SendAllFunc(ctx, propertySid, msgs, opts)
	}
	size := telco.DefaultSendAllChunkSize
	if opts != nil && opts.ChunkSize > 0 {
		size = opts.ChunkSize
	}
	return func(yield func(telco.BatchResult, error) bool) {
		var chunk []telco.SendMessageParams
		flush := func() bool {
			if len(chunk) == 0 {
				return true
			}
			res, err := s.SendBatchOnce(ctx, propertySid, chunk)
			for i := range chunk {
				var r telco.BatchResult
				if res != nil {
					r = res[i]
				}
				var e error
				if r.Message == nil && r.Err == nil {
					e = err
				}
				if !yield(r, e) {
					return false
				}
			}
			chunk = chunk[:0]
			return true
		}
		for m := range msgs {
			if chunk = append(chunk, m); len(chunk) == size && !flush() {
				return
			}
		}
		flush()
	}
}
