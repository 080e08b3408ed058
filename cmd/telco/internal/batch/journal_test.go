package batch

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco/internal/boltfile"
	bolt "go.etcd.io/bbolt"
)

// writeLedgerJournal writes a journal as the previous telco did: a send
// ledger's file whose header keeps the batch's in App, with records.
func writeLedgerJournal(t *testing.T, path string, created time.Time) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	// The send ledger's header, Format first, as it wrote it.
	head, err := json.Marshal(struct {
		Format  string
		Created time.Time
		Epoch   int
		App     map[string]string
	}{"telco-ledger/1", created, 1, map[string]string{"Kind": "sms-batch", "Input": "abc", "Property": "PR1", "BatchID": "tbearlier0002"}})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		recs, err := tx.CreateBucket([]byte("records"))
		if err != nil {
			return err
		}
		for i := range 200 { // enough pages for a cut to leave the header behind
			k := []byte{byte(i)}
			if err := recs.Put(k, boltfile.Seal(k, []byte(`{"E":1,"R":{"State":"sent"}}`))); err != nil {
				return err
			}
		}
		return meta.Put(keyMeta, boltfile.Seal(keyMeta, head))
	}))
}

// The previous telco's journal, which kept the batch's records itself, is
// an earlier journal: readable, it says its batch; damaged, RecoverJournal
// salvages its batch from the bytes; either way the new journal makes the
// same ExternalIds again, from when the batch began.
func TestRecoverTheLedgerJournalOfAnEarlierTelco(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	lines := csvLines(t, "To,Text\n+61400000001,a\n")
	for _, damaged := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "j")
		writeLedgerJournal(t, path, created)
		_, err := OpenJournal(path, JournalOptions{Property: "PR1"})
		var ee *EarlierError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, "tbearlier0002", ee.BatchID)
		if damaged {
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			raw[16+56] ^= 0xff      // both header pages' checksums: bbolt cannot read it
			raw[4096+16+56] ^= 0xff //
			require.NoError(t, os.WriteFile(path, raw, 0o600))
			_, err = OpenJournal(path, JournalOptions{Property: "PR1"})
			require.True(t, errors.Is(err, boltfile.ErrUnreadable), "%v", err)
		}
		j, rec, err := RecoverJournal(path, JournalOptions{Property: "PR1"}, RecoverOptions{NeedBatchID: true})
		require.NoError(t, err, "damaged %v", damaged)
		assert.True(t, rec.Salvaged)
		assert.Equal(t, "tbearlier0002", rec.BatchID)
		assert.True(t, rec.Since.Equal(created))
		ids, err := j.IDs(lines, true)
		require.NoError(t, err)
		assert.Equal(t, []string{"tbearlier0002-2"}, ids, "the earlier journal's ExternalIds")
		require.NoError(t, j.Close())
		j, err = OpenJournal(path, JournalOptions{Property: "PR1"})
		require.NoError(t, err, "the new journal opens")
		assert.True(t, j.Created().Equal(created), "it began when the batch did")
		require.NoError(t, j.Close())
	}
}
