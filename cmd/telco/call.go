package main

// The body of a command that calls the service is always the same: build
// the client from the global flags (else the environment), make the call,
// print what it returned, and leave any error to report, which picks the
// exit status. The helpers here are that body, so that a command holds only
// what is its own: its flags, its parameters and the call it makes.

import (
	"iter"

	"github.com/telcosdk/telco"
)

// withClient runs fn with the tool's client, which is built on first use.
func (a *app) withClient(fn func(c *telco.Client) error) error {
	c, err := a.getClient()
	if err != nil {
		return err
	}
	return fn(c)
}

// runCall builds the client, makes call with it and prints the result with
// print. An error from either is returned as it is; nothing is printed for
// a call that failed.
func runCall[R any](a *app, call func(c *telco.Client) (R, error), print func(R) error) error {
	return a.withClient(func(c *telco.Client) error {
		v, err := call(c)
		if err != nil {
			return err
		}
		return print(v)
	})
}

// showOne is runCall's printer for one resource, shown with cols.
func showOne[T any](a *app, cols []column[T]) func(*T) error {
	return func(v *T) error { return printOne(a, v, cols) }
}

// runList is runCall for a listing: with all, every item of the iterator
// that every returns (counted by bar, nil for none); else the one page that
// page returns, beside its items (see pageOf).
func runList[T any](a *app, all bool, cols []column[T], bar *progress,
	page func(c *telco.Client) (any, []T, error), every func(c *telco.Client) iter.Seq2[T, error]) error {
	return a.withClient(func(c *telco.Client) error {
		return printListing(a, all, cols, bar,
			func() (any, []T, error) { return page(c) },
			func() iter.Seq2[T, error] { return every(c) })
	})
}

// printListing is runList once the client is at hand, for a command that
// has more to decide with it first.
func printListing[T any](a *app, all bool, cols []column[T], bar *progress,
	page func() (any, []T, error), every func() iter.Seq2[T, error]) error {
	if all {
		return printAll(a, every(), cols, bar)
	}
	p, items, err := page()
	if err != nil {
		return err
	}
	return printList(a, p, items, cols)
}

// pageOf is a listing's answer as runList's page wants it: a note of
// whether more pages exist (see printList), and the items.
func pageOf[T any](p *telco.Page[T], err error) (any, []T, error) {
	if err != nil {
		return nil, nil, err
	}
	return pageNote{next: p.NextPageToken}, p.Items, nil
}
