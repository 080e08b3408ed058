package batch

// How the engine reads the account's send ledger without changing it.

import (
	"context"
	"errors"

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
