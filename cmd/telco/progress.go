package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// isTerminal reports whether w is a terminal (a character device), where a
// progress bar can redraw itself; a pipe, file or test buffer is not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress draws a bar on w, redrawn in place with a carriage return. total
// 0 means unknown: a count is shown instead of a bar.
type progress struct {
	w     io.Writer
	label string
	total int
	done  int
	shown int // last drawn width (or count), to avoid redrawing every item

	finished bool
}

// newProgress returns a progress display on the tool's standard error, or
// nil (whose methods do nothing) when standard error is not a terminal, so
// that logs and scripts get no control characters.
func (a *app) newProgress(label string, total int) *progress {
	if !isTerminal(a.stderr) {
		return nil
	}
	return &progress{w: a.stderr, label: label, total: total, shown: -1}
}

const barWidth = 30

func (p *progress) add(n int) {
	if p == nil {
		return
	}
	p.done += n
	if p.total > 0 {
		filled := barWidth * min(p.done, p.total) / p.total
		if filled == p.shown && p.done < p.total {
			return
		}
		p.shown = filled
		fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), p.done, p.total)
		return
	}
	if p.done%100 == 0 || p.done == 1 {
		p.shown = p.done
		fmt.Fprintf(p.w, "\r%s %d", p.label, p.done)
	}
}

func (p *progress) tick() { p.add(1) }

// finish ends the bar's line; calling it again does nothing.
func (p *progress) finish() {
	if p == nil || p.finished {
		return
	}
	p.finished = true
	if p.total == 0 && p.shown != p.done {
		fmt.Fprintf(p.w, "\r%s %d", p.label, p.done)
	}
	fmt.Fprintln(p.w)
}
