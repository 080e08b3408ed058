package boltledger

import (
	"bytes"
	"encoding/json"
	"os"
	"time"
)

// Header is what Salvage finds of a ledger's header in a damaged file.
type Header struct {
	Created time.Time
	App     json.RawMessage
}

// Salvage looks for the ledger's header in the raw bytes of the file at
// path, which bbolt cannot read: a copy whose checksum still holds. Of
// several (earlier versions left in free pages), the one of the latest
// epoch and creation wins. false when none is intact.
func Salvage(path string) (Header, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Header{}, false
	}
	mark := []byte(`{"Format":"` + formatName + `"`)
	var best header
	found := false
	for off := 0; ; {
		i := bytes.Index(raw[off:], mark)
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		if i < 4 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw[i:]))
		var h header
		if dec.Decode(&h) != nil {
			continue
		}
		v := raw[i-4 : i+int(dec.InputOffset())]
		if _, ok := unseal(keyMeta, v); !ok {
			continue
		}
		if !found || h.Epoch > best.Epoch || (h.Epoch == best.Epoch && h.Created.After(best.Created)) {
			best, found = h, true
		}
	}
	return Header{Created: best.Created, App: best.App}, found
}

// MoveAside renames the file at path to path.damaged-<UTC time>, keeping
// it for inspection, and returns the new name.
func MoveAside(path string, now time.Time) (string, error) {
	to := path + ".damaged-" + now.UTC().Format("20060102T150405Z")
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	return to, nil
}
