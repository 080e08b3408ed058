package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/telcosdk/telco"
)

// column is one column of a resource's table. Each command group's file
// holds its resources' columns: lists show them as a header and rows, a
// single resource one per line (often with more columns than its list).
// A column is text (get) or a time (at), which the table shows in the
// user's zone, as -o json does.
type column[T any] struct {
	name string
	get  func(*T) string
	at   func(*T) time.Time
}

// cellOf is column c of v as the table shows it.
func cellOf[T any](a *app, c column[T], v *T) string {
	if c.at != nil {
		return a.formatTime(c.at(v))
	}
	return c.get(v)
}

// formatTime shows t as every table and message of the tool does: RFC
// 3339 in the user's zone (UTC with --utc), as -o json writes it; "" for
// the zero time.
func (a *app) formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(a.location()).Format(time.RFC3339)
}

// timeOf is a service time as a time.Time, zero when unset.
func timeOf[V telco.Timestamp | telco.DateTime](v V) time.Time {
	switch v := any(v).(type) {
	case telco.Timestamp:
		return v.Time()
	case telco.DateTime:
		return v.Time
	}
	return time.Time{}
}

func (a *app) jsonOut() bool { return a.output == "json" }

// printJSON writes v as indented JSON under the contract of jsonout.go,
// its times in the user's zone.
func (a *app) printJSON(w io.Writer, v any) error {
	b, err := encodeJSON(v, a.location())
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// printJSONLine writes v as one line of JSON, for output that streams.
func (a *app) printJSONLine(w io.Writer, v any) error {
	b, err := encodeJSON(v, a.location())
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// printOne prints a resource: as JSON, or as a two-column table of its
// fields (empty fields are left out).
func printOne[T any](a *app, v *T, cols []column[T]) error {
	if a.jsonOut() {
		return a.printJSON(a.stdout, v)
	}
	var rows [][]string
	for _, c := range cols {
		if s := cellOf(a, c, v); s != "" {
			rows = append(rows, []string{c.name, clean(s)})
		}
	}
	return a.writeTable(rows)
}

// morePages is what a listing's page says about the pages after it: a
// note for standard error, or "" on the last page.
type morePages interface{ more() string }

// pageNote is the page value pageOf returns for a Results_Skip listing.
type pageNote struct{ next string }

func (p pageNote) more() string {
	if p.next == "" {
		return ""
	}
	return "more results exist: --all fetches every page, --skip pages on"
}

// printList prints one page's items: a table with a header row, or a JSON
// array (the same shape --all prints). When page says more pages exist,
// a note goes to standard error.
func printList[T any](a *app, page any, items []T, cols []column[T]) error {
	var err error
	if a.jsonOut() {
		if items == nil {
			items = []T{}
		}
		err = a.printJSON(a.stdout, items)
	} else {
		err = printRows(a, func(yield func(T, error) bool) {
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
		}, cols, nil)
	}
	if m, ok := page.(morePages); ok && err == nil {
		if note := m.more(); note != "" {
			fmt.Fprintln(a.stderr, "telco: "+note)
		}
	}
	return err
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
		b, err := encodeJSON(it, a.location())
		if err != nil {
			return err
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, b, "  ", "  "); err != nil {
			return err
		}
		sep := ",\n  "
		if n == 0 {
			sep = "[\n  "
		}
		fmt.Fprintf(a.stdout, "%s%s", sep, ind.Bytes())
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
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	rows := [][]string{names}
	var failed error
	for it, err := range seq {
		if err != nil {
			failed = err
			break
		}
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = clean(cellOf(a, c, &it))
		}
		rows = append(rows, vals)
		bar.tick()
	}
	bar.finish()
	if err := a.writeTable(rows); err != nil {
		return err
	}
	return failed
}

// writeTable writes rows as aligned columns, two spaces apart. On a
// terminal, unless -o wide, the widest columns are narrowed until a row
// fits the terminal's width, and cells cut short end in an ellipsis.
func (a *app) writeTable(rows [][]string) error {
	width := 0
	if a.output == "table" {
		width = a.width
	}
	_, err := io.WriteString(a.stdout, renderTable(rows, width))
	return err
}

// tableGap is the space between columns.
const tableGap = 2

// renderTable aligns rows; width > 0 is the most a line may take.
func renderTable(rows [][]string, width int) string {
	if len(rows) == 0 {
		return ""
	}
	ncol := 0
	for _, r := range rows {
		ncol = max(ncol, len(r))
	}
	widths := make([]int, ncol)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	if width > 0 {
		fitWidths(widths, width)
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			c = cut(c, widths[i])
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+tableGap))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// minColumn is the narrowest a column is cut to: room for a few
// characters and the ellipsis.
const minColumn = 6

// fitWidths narrows the widest column, one character at a time, until
// the columns and the gaps between them fit in width or no column can be
// narrowed further.
func fitWidths(widths []int, width int) {
	total := func() int {
		t := tableGap * (len(widths) - 1)
		for _, w := range widths {
			t += w
		}
		return t
	}
	for total() > width {
		widest := -1
		for i, w := range widths {
			if w > minColumn && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return
		}
		widths[widest]--
	}
}

// cut shortens s to n characters, the last an ellipsis when cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
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

// plural is n and noun, in the plural unless n is 1: "1 line", "0 lines".
// Nouns whose plural is not noun+"s" need a word of their own.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
