// Package standin is TEMPORARY: SendOnce and FindByExternalID until the branch adding them to the SDK is merged.
package standin

import (
	"context"
	"errors"
	"time"

	"github.com/telcosdk/telco"
)

// Messages is a temporary stand-in for client.Messages.
type Messages struct{ c *telco.Client }

// SendOnce sends and reconciles.
func (s Messages) SendOnce(ctx context.Context, prop string, p *telco.SendMessageParams) (*telco.Message, error) {
	since := time.Now().Add(-time.Minute)
	var err error
	for range 5 {
		var m *telco.Message
		m, err = s.c.Messages.Send(ctx, prop, p)
		if err == nil || !errors.Is(err, telco.ErrMaybeSent) {
			return m, err
		}
		time.Sleep(20 * time.Millisecond)
		found, ferr := s.FindByExternalID(ctx, prop, since, p.ExternalID)
		if ferr != nil {
			return nil, err
		}
		if m, ok := found[p.ExternalID]; ok {
			return &m, nil
		}
	}
	return nil, err
}

// FindByExternalID scans.
func (s Messages) FindByExternalID(ctx context.Context, prop string, since time.Time, ids ...string) (map[string]telco.Message, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[string]telco.Message{}
	for m, err := range s.c.Messages.FindAll(ctx, prop, &telco.FindMessagesParams{DateFrom: since, DateTo: time.Now().Add(time.Minute),
		ListParams: telco.ListParams{Count: 200}}) {
		if err != nil {
			return nil, err
		}
		if want[m.ExternalID] {
			out[m.ExternalID] = m
		}
	}
	return out, nil
}

// Of wraps c.
func Of(c *telco.Client) Messages { return Messages{c} }
