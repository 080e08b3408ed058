package main

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/telcosdk/telco"
)

// column is one column of a resource's table.
type column[T any] struct {
	name string
	get  func(*T) string
}

func (a *app) jsonOut() bool { return a.output == "json" }

// printJSON writes v as indented JSON: the SDK's own types, as marshalled.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// printOne prints a resource: as JSON, or as a two-column table of its
// fields (empty fields are left out).
func printOne[T any](a *app, v *T, cols []column[T]) error {
	if a.jsonOut() {
		return printJSON(a.stdout, v)
	}
	tw := newTable(a.stdout)
	for _, c := range cols {
		if s := c.get(v); s != "" {
			fmt.Fprintf(tw, "%s\t%s\n", c.name, clean(s))
		}
	}
	return tw.Flush()
}

// printList prints items as a table with a header row, or, as JSON, the
// page value the SDK returned (page may be the items themselves).
func printList[T any](a *app, page any, items []T, cols []column[T]) error {
	if a.jsonOut() {
		return printJSON(a.stdout, page)
	}
	return printRows(a, func(yield func(T, error) bool) {
		for _, it := range items {
			if !yield(it, nil) {
				return
			}
		}
	}, cols, nil)
}

// printAll prints every item of an SDK iterator. JSON is streamed as one
// array, so memory stays flat however many items there are; a table has to
// see every row to align its columns. bar (nil for none) counts the items
// and is finished before the output ends, so that it never shares a line
// with it.
func printAll[T any](a *app, seq iter.Seq2[T, error], cols []column[T], bar *progress) error {
	if !a.jsonOut() {
		return printRows(a, seq, cols, bar)
	}
	defer bar.finish()
	n := 0
	for it, err := range seq {
		if err != nil {
			if n > 0 {
				fmt.Fprintln(a.stdout, "\n]")
			}
			return err
		}
		b, err := json.MarshalIndent(it, "  ", "  ")
		if err != nil {
			return err
		}
		sep := ",\n  "
		if n == 0 {
			sep = "[\n  "
		}
		fmt.Fprintf(a.stdout, "%s%s", sep, b)
		n++
		bar.tick()
	}
	bar.finish()
	if n == 0 {
		fmt.Fprintln(a.stdout, "[]")
	} else {
		fmt.Fprintln(a.stdout, "\n]")
	}
	return nil
}

func printRows[T any](a *app, seq iter.Seq2[T, error], cols []column[T], bar *progress) error {
	tw := newTable(a.stdout)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	fmt.Fprintln(tw, strings.Join(names, "\t"))
	var failed error
	for it, err := range seq {
		if err != nil {
			failed = err
			break
		}
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = clean(c.get(&it))
		}
		fmt.Fprintln(tw, strings.Join(vals, "\t"))
		bar.tick()
	}
	bar.finish()
	if err := tw.Flush(); err != nil {
		return err
	}
	return failed
}

// clean keeps a cell on one line and out of the table's way.
func clean(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func itoa(n int) string { return strconv.Itoa(n) }

func ts(t telco.Timestamp) string { return t.String() }

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
