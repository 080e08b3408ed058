package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// isTerminal reports whether w is a terminal, where a progress bar can
// redraw itself and a person can be asked for a token; a pipe, a file or a
// test buffer is not, nor is /dev/null: it is a character device, but
// not one with a terminal's modes (CI and cron give it as standard input).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && hasTerminalModes(f)
}

// progress draws a bar on w, redrawn in place with a carriage return:
// count, rate, elapsed time, time left and refusals. total 0 means
// unknown: a count is shown instead of a bar. It is a few lines of our own
// rather than a progress library: the tool needs one kind of bar, and
// every library pulls a terminal stack into the SDK's module graph.
type progress struct {
	w       io.Writer
	label   string
	total   int
	done    int
	refused int
	shown   int // last drawn width (or count), to avoid redrawing every item
	start   time.Time
	drawn   time.Time // when the bar was last drawn
	now     func() time.Time

	finished bool
}

// newProgress returns a progress display on the tool's standard error, or
// nil (whose methods do nothing) when standard error is not a terminal, so
// that logs and scripts get no control characters.
func (a *app) newProgress(label string, total int) *progress {
	if !isTerminal(a.stderr) {
		return nil
	}
	return &progress{w: a.stderr, label: label, total: total, shown: -1, start: time.Now()}
}

const barWidth = 30

// redrawEvery is how often the rate and times are refreshed when the bar
// itself has not moved.
const redrawEvery = 250 * time.Millisecond

func (p *progress) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

func (p *progress) add(n int) {
	if p == nil {
		return
	}
	p.done += n
	if p.total > 0 {
		filled := barWidth * min(p.done, p.total) / p.total
		if filled == p.shown && p.done < p.total && p.clock().Sub(p.drawn) < redrawEvery {
			return
		}
		p.shown = filled
		p.draw()
		return
	}
	if p.done%100 == 0 || p.done == 1 {
		p.shown = p.done
		p.draw()
	}
}

// draw writes the whole line, erasing what a longer one left.
func (p *progress) draw() {
	now := p.clock()
	p.drawn = now
	if p.total == 0 {
		fmt.Fprintf(p.w, "\r%s %d", p.label, p.done)
		return
	}
	if p.start.IsZero() {
		p.start = now
	}
	filled := barWidth * min(p.done, p.total) / p.total
	line := fmt.Sprintf("\r%s [%s%s] %d/%d", p.label, strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), p.done, p.total)
	elapsed := now.Sub(p.start)
	if p.done > 0 && elapsed > 0 {
		rate := float64(p.done) / elapsed.Seconds()
		line += fmt.Sprintf("  %.0f/s  %s", rate, clockTime(elapsed))
		if left := p.total - p.done; left > 0 && rate > 0 {
			line += "  ETA " + clockTime(time.Duration(float64(left)/rate*float64(time.Second)))
		}
	}
	if p.refused > 0 {
		line += fmt.Sprintf("  %d refused", p.refused)
	}
	fmt.Fprint(p.w, line+"\x1b[K")
}

// clockTime is d as m:ss, or h:mm:ss from an hour.
func clockTime(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func (p *progress) tick() { p.add(1) }

// refuse counts n refusals, shown beside the count.
func (p *progress) refuse(n int) {
	if p == nil {
		return
	}
	p.refused += n
}

// clear erases the bar's line, so that other output can take it.
func (p *progress) clear() {
	if p == nil || p.finished || p.drawn.IsZero() {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
}

// redraw draws the bar again after clear.
func (p *progress) redraw() {
	if p == nil || p.finished || p.drawn.IsZero() {
		return
	}
	p.draw()
}

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
