package boltfile

import (
	"bytes"
	"encoding/json"
	"os"
	"time"
)

// Salvage looks in the raw bytes of the file at path, which bbolt cannot
// read, for copies of a sealed JSON value stored under key whose payload
// begins with mark (a header record's first member, say), and returns
// the payload of each copy whose seal still holds, in the order found.
// Copies from earlier commits may be among them (bbolt leaves them in
// free pages): the caller tells the latest by what it holds.
func Salvage(path string, key, mark []byte) []json.RawMessage {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []json.RawMessage
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
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			continue
		}
		sealed := raw[i-4 : i+int(dec.InputOffset())]
		if payload, ok := Unseal(key, sealed); ok {
			out = append(out, append(json.RawMessage(nil), payload...))
		}
	}
	return out
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
