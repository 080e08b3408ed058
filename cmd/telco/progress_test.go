package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProgressBar(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := &progress{w: &buf, label: "sending", total: 4, shown: -1}
	p.add(1)
	p.add(1)
	p.add(2)
	p.finish()
	out := buf.String()
	assert.Contains(t, out, "\rsending [")
	assert.Contains(t, out, "] 4/4")
	assert.Contains(t, out, "["+strings.Repeat("=", barWidth)+"]")
	assert.True(t, strings.HasSuffix(out, "\n"))

	buf.Reset()
	q := &progress{w: &buf, label: "messages", shown: -1}
	for i := 0; i < 250; i++ {
		q.tick()
	}
	q.finish()
	assert.Contains(t, buf.String(), "messages 200")
	assert.Contains(t, buf.String(), "messages 250\n")

	buf.Reset()
	r := &progress{w: &buf, label: "messages", shown: -1}
	for i := 0; i < 200; i++ {
		r.tick()
	}
	r.finish()
	assert.Equal(t, 1, strings.Count(buf.String(), "messages 200"), "the last count is not drawn twice")

	var nilBar *progress // what newProgress returns off a terminal
	nilBar.add(3)
	nilBar.tick()
	nilBar.finish()

	a := &app{stderr: &buf}
	assert.Nil(t, a.newProgress("x", 1), "a buffer is not a terminal")
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a regular file is not a terminal")
	if tty, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		assert.False(t, isTerminal(tty), "/dev/null is a character device, but not a terminal")
	}
}
