package telco

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A member of the guessed name but another type stays in Extra, and is
// written back as it was sent rather than as the field's zero value.
func TestInferredKeepsMistypedMembers(t *testing.T) {
	t.Parallel()
	var c Call
	require.NoError(t, json.Unmarshal([]byte(`{"CallSid":5,"Duration":"12s","Disposition":"Busy"}`), &c))
	assert.Empty(t, c.CallSid)
	assert.Zero(t, c.Duration)
	assert.Equal(t, CallBusy, c.Disposition)
	assert.Equal(t, map[string]json.RawMessage{"CallSid": json.RawMessage(`5`), "Duration": json.RawMessage(`"12s"`)}, c.Extra)

	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{"CallSid":5,"Duration":"12s","Disposition":"Busy"}`, string(b))
}

// Names are matched exactly first, then in another case, then by alias.
func TestInferredNamesAndAliases(t *testing.T) {
	t.Parallel()
	var c Call
	require.NoError(t, json.Unmarshal([]byte(`{"callsid":"CA1","CallerNumber":"+61412345678","date_start":1700000000}`), &c))
	assert.Equal(t, "CA1", c.CallSid)
	assert.Equal(t, "+61412345678", c.From)
	assert.Equal(t, Timestamp(1700000000), c.DateStart)
	assert.Nil(t, c.Extra)

	// Decoding again starts from zero: nothing of the previous value stays.
	require.NoError(t, json.Unmarshal([]byte(`{"To":"61299999999"}`), &c))
	assert.Equal(t, Call{To: "61299999999"}, c)

	assert.Error(t, json.Unmarshal([]byte(`[1]`), &c), "only an object is a call")
}
