package batch

// What the CLI does to the account's send ledger beyond the SDK's
// protocol: read it, and have lines a lost journal cannot vouch for
// looked up first.

import (
	"context"
	"errors"
	"time"

	"github.com/telcosdk/telco"
)

// readRecords reads the records of ids from l without changing them.
func readRecords(ctx context.Context, l telco.Ledger, prop string, ids []string) ([]telco.LedgerRecord, error) {
	if r, ok := l.(interface {
		Records(context.Context, string, []string) ([]telco.LedgerRecord, error)
	}); ok {
		return r.Records(ctx, prop, ids)
	}
	var out []telco.LedgerRecord
	err := l.Update(ctx, prop, ids, func(recs []telco.LedgerRecord) error {
		out = append(out, recs...)
		return errUnchanged
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return out, err
}

var errUnchanged = errors.New("read only")

// LookUpFirst puts each of ids that l has no record of in doubt, its first
// attempt at since: the SDK then looks it up at the service, a settle
// time from now, before it sends it. For lines a journal that was lost or
// came from an earlier telco may have sent under these ExternalIds
// without the ledger knowing.
func LookUpFirst(ctx context.Context, l telco.Ledger, prop string, ids []string, since time.Time) error {
	now := time.Now()
	return l.Update(ctx, prop, ids, func(recs []telco.LedgerRecord) error {
		for i := range recs {
			if recs[i].State == telco.LedgerNew {
				recs[i] = telco.LedgerRecord{State: telco.LedgerInDoubt, First: since, Ended: now}
			}
		}
		return nil
	})
}
