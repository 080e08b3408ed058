package main

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/telcosdk/telco"
)

// column is one column of a resource's table. Each command group's file
// holds its resources' columns: lists show them as a header and rows, a
// single resource one per line (often with more columns than its list).
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
