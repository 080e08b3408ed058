package batch

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A run's summary and a chunk's error say one line in the singular.
func TestCountsOfOne(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "1 of 1 line sent", (&Result{Total: 1, Sent: 1}).Summary())
	assert.Equal(t, "0 of 1 line sent, 1 refused", (&Result{Total: 1, Refused: 1}).Summary())
	assert.Equal(t, "1 of 2 lines sent, 1 not sent yet", (&Result{Total: 2, Sent: 1}).Summary())
	boom := errors.New("boom")
	assert.Equal(t, "line 5 was not sent: boom", (&ChunkError{First: 5, End: 5, Err: boom}).Error())
	assert.Equal(t, "line 5 and later were not sent: boom", (&ChunkError{First: 5, End: 5, Later: " and later", Err: boom}).Error())
	assert.Equal(t, "lines 5 to 6 were not sent: boom", (&ChunkError{First: 5, End: 6, Err: boom}).Error())
	assert.Equal(t, "line 5: 1 may have been sent (re-run the same command to look it up): boom",
		(&ChunkError{First: 5, End: 5, Unsure: []string{"x-5"}, Err: boom}).Error())
}
