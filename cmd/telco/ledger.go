package main

// The account's send ledger: one boltledger file per service and account
// in the state directory, which sms send --external-id and sms batch both
// send through, so that an ExternalId goes out once per account whatever
// the command, journal, file or flags that carry it. --ledger PATH names
// another file (one shared with a program, say). telco ledger sync fills
// it from the service's history.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/boltledger"
)

// ledgerDir holds the accounts' ledgers, in the state directory.
const ledgerDir = "ledgers"

// ledgerHelp is --ledger's help on the commands that send.
const ledgerHelp = "the send ledger file: an ExternalId is sent at most once per ledger (default: the account's, STATE/telco/ledgers/ACCOUNT@HOST-HASH.ledger)"

// onceHelp says what "once" means, for the help of the commands that
// send (wrapped there): the same words in sms send's and sms batch's.
const onceHelp = "An ExternalId is sent at most once per send ledger: each attempt is " +
	"recorded in the ledger before its request, and the same ExternalId " +
	"sent again through the same ledger is answered from it (sent: " +
	"nothing is sent; may have been sent: looked up by its ExternalId " +
	"first). The ledger is the account's unless --ledger PATH names " +
	"another: one file per service and account in the state directory " +
	"(STATE/telco/ledgers/ACCOUNT@HOST-HASH.ledger, STATE being " +
	"$XDG_STATE_HOME, else ~/.local/state; ~/Library/Application Support " +
	"on macOS, %LocalAppData% on Windows), shared by sms send and sms " +
	"batch. A command waits a few seconds for the ledger while another " +
	"holds it (a batch holds it while it runs), then stops, nothing sent." +
	" Another ledger knows nothing of what this one sent: share one file " +
	"(--ledger PATH, or a Go program's boltledger.Open(PATH)) between " +
	"everything that sends for the account on this machine." +
	freshLedgerHelp

// freshLedgerHelp is how a fresh ledger learns what was sent before it.
const freshLedgerHelp = " A fresh ledger (a new machine or container) knows nothing sent " +
	"before it: telco ledger sync --since TIME records every ExternalId the " +
	"service shows as sent in the window, and --look-up-first looks the " +
	"ExternalIds the ledger has never seen up at the service, from --since " +
	"(default -24h), before their first send (a batch: one scan of the " +
	"window)."

// lookUpFirstHelp is --look-up-first's help on the commands that send.
const lookUpFirstHelp = "look ExternalIds this ledger has never seen up among the project's messages since --since (default -24h) before their first send (for a fresh ledger: a new machine or container)"

// defaultLookBack is how far back --look-up-first looks without --since.
const defaultLookBack = "-24h"

// ledgerCmd is "telco ledger": the account's send ledger.
func (a *app) ledgerCmd() *cobra.Command {
	return a.group("ledger", "Fill the account's send ledger from the service's history", a.ledgerSyncCmd())
}

// syncResult is what ledger sync did.
type syncResult struct {
	Ledger      string
	PropertySid string
	From, To    time.Time
	// Recorded counts the ExternalIds the ledger did not hold as sent
	// and now does.
	Recorded int
}

var syncCols = []column[syncResult]{
	{name: "LEDGER", get: func(r *syncResult) string { return r.Ledger }},
	{name: "PROJECT", get: func(r *syncResult) string { return r.PropertySid }},
	{name: "FROM", at: func(r *syncResult) time.Time { return r.From }},
	{name: "TO", at: func(r *syncResult) time.Time { return r.To }},
	{name: "RECORDED", get: func(r *syncResult) string { return itoa(r.Recorded) }},
}

// ledgerSyncCmd is "telco ledger sync".
func (a *app) ledgerSyncCmd() *cobra.Command {
	var prop, since, until, path string
	var recover bool
	c := &cobra.Command{
		Use:         "sync --since TIME [--until TIME]",
		Annotations: ops("Messages.Find"),
		Short:       "Record in the send ledger every ExternalId the service shows as sent in a window",
		Long: `Read the project's sent messages from --since (inclusive) to --until
(exclusive) from the service, and record every ExternalId among them as
sent in the account's send ledger (the one sms send and sms batch use;
--ledger PATH names another), so that a fresh ledger (a new machine or
container, a lost state directory) sends none of them again: sms send and
sms batch report them as sent before, with their MessageSid. Times: ` + timeHelp + `.

It costs one request per 200 messages the project sent in the window. The
service shows a message in its search only after a lag (seconds), so a
message sent moments ago may be missed: sync before sending, not while
another machine sends for the account. It prints how many ExternalIds it
recorded that the ledger did not hold as sent. Records already there are
kept; one in doubt becomes sent. It holds the ledger while it reads, as a
batch does.`,
		Example: `  telco ledger sync --property PR... --since -14d`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			if since == "" {
				return usagef("give --since: the start of the window to read (%s)", timeHelp)
			}
			now := time.Now()
			r := syncResult{PropertySid: prop}
			if r.From, err = a.parseTime("since", since, now); err != nil {
				return err
			}
			if r.To, err = a.parseTime("until", until, now); err != nil {
				return err
			}
			if !r.To.After(r.From) {
				return usagef("--until must be after --since")
			}
			if r.Ledger, err = a.ledgerPath(path); err != nil {
				return err
			}
			l, recovered, err := a.openLedger(r.Ledger, recover, r.From)
			if err != nil {
				return err
			}
			defer l.Close()
			if recover && !recovered {
				return usagef("ledger %s can be read: --recover is only for one that cannot; run without it", r.Ledger)
			}
			c, err := a.newClient(telco.WithLedger(l))
			if err != nil {
				return err
			}
			if r.Recorded, err = c.Messages.FillLedger(cmd.Context(), prop, r.From, r.To); err != nil {
				return fmt.Errorf("%s recorded before it stopped (run it again: what it recorded is kept): %w",
					plural(r.Recorded, "ExternalId"), err)
			}
			return printOne(a, &r, syncCols)
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&since, "since", "", "from this time, inclusive (required)")
	fs.StringVar(&until, "until", "+1m", "to this time, exclusive (a minute past now by default, as sms find: a service clock a little ahead is covered)")
	fs.StringVar(&path, "ledger", "", "the send ledger file to fill (default: the account's, as sms send and sms batch use)")
	fs.BoolVar(&recover, "recover", false, "move a ledger that cannot be read aside first; the new one is filled, and looks up every other ExternalId from --since before it is sent")
	fieldFlags(c, "Date_From", "since", "Date_To", "until")
	return c
}

// ledgerPath is the ledger a sending command uses: flag when given, else
// the account's: ledgers/ACCOUNT@HOST-HASH.ledger in the state directory,
// ACCOUNT the credentials' account SID and HOST and HASH from the
// service's base URL, so that each service and account has one ledger,
// whichever profile, variables or flags name them.
func (a *app) ledgerPath(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	cr, err := a.credentials()
	if err != nil {
		return "", err
	}
	dir, err := a.stateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, ledgerDir, ledgerName(cr.sid, cr.baseURL)), nil
}

// ledgerName is the file name of an account's ledger at a service: its
// account SID, the service's host and a hash of its base URL (scheme,
// host and path prefix, which may tell apart services on one host).
func ledgerName(accountSid, baseURL string) string {
	base := strings.TrimRight(firstNonEmpty(baseURL, telco.DefaultBaseURL), "/")
	host := base
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
		base, host = u.String(), u.Host
	}
	sum := sha256.Sum256([]byte(base))
	return fileSafe(accountSid) + "@" + fileSafe(host) + "-" + hex.EncodeToString(sum[:4]) + ".ledger"
}

// fileSafe keeps letters, digits, '.', '-' and '_' of s, and makes the
// rest '_': a host's port colon, say, which Windows refuses in names.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

// ledgerOpts are the ledger's flags of a sending command.
type ledgerOpts struct {
	path        string // --ledger
	recover     bool   // --recover
	lookUpFirst bool   // --look-up-first
	since       string // --since, with --recover or --look-up-first
}

// lookUpSince is when the look-ups of --recover and --look-up-first
// search from: --since, else, for --look-up-first alone, defaultLookBack;
// zero when neither is asked for. --recover needs --since (when the
// ledger was first used, which only the user knows); --since needs one of
// the two.
func (a *app) lookUpSince(o ledgerOpts, now time.Time) (time.Time, error) {
	switch {
	case o.recover && o.since == "":
		return time.Time{}, usagef("--recover needs --since: when the ledger was first used, at the latest")
	case o.since != "" && !o.recover && !o.lookUpFirst:
		return time.Time{}, usagef("--since goes with --recover or --look-up-first")
	case o.since == "" && !o.lookUpFirst:
		return time.Time{}, nil
	}
	since, err := a.parseTime("since", firstNonEmpty(o.since, defaultLookBack), now)
	if err == nil && !since.Before(now) {
		err = usagef("--since must be in the past")
	}
	return since, err
}

// openLedger opens the send ledger at path (creating its directory) for
// a command that sends, holding it until Close: a second command waits
// for it up to boltledger.DefaultTimeout. With recover, a ledger that
// cannot be read is moved aside and replaced by one in which every
// ExternalId it does not hold as sent is looked up from since before it
// is sent; recovered says whether that happened. Failures are said in the
// command's terms (ledgerError).
func (a *app) openLedger(path string, recover bool, since time.Time) (l *boltledger.Ledger, recovered bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("the ledger's directory: %w", err)
	}
	if !recover {
		l, err = boltledger.Open(path)
	} else {
		var moved string
		if l, moved, err = boltledger.Recover(path, since, boltledger.Options{}); err == nil && moved != "" {
			recovered = true
			fmt.Fprintf(a.stderr, "telco: ledger %s moved aside to %s; every ExternalId the new one does not know is looked up from %s before it is sent\n",
				path, moved, a.formatTime(since))
		}
	}
	if err != nil {
		return nil, false, ledgerError(path, err)
	}
	if from, found, _ := l.Doubt(); found != "" {
		fmt.Fprintf(a.stderr, "telco: ledger %s is damaged (%s): every ExternalId it does not record as sent is looked up, from %s, before it is sent\n",
			path, found, a.formatTime(from))
	}
	return l, recovered, nil
}

// readLedger opens the send ledger at path to read it (a dry run): nil
// when there is none.
func readLedger(path string) (*boltledger.Ledger, error) {
	l, err := boltledger.OpenWith(path, boltledger.Options{ReadOnly: true})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ledgerError(path, err)
	}
	return l, nil
}

// ledgerError says what a failure to open the send ledger means: nothing
// was sent, and, for a ledger that cannot be read, that messages it
// recorded may have been (exit 3) and how to go on.
func ledgerError(path string, err error) error {
	var (
		fe *boltledger.FormatError
		de *boltledger.DamagedError
	)
	switch {
	case errors.Is(err, boltledger.ErrBusy):
		return &exitError{code: exitService, msg: fmt.Sprintf("ledger %s: in use by another telco process (an sms batch, sms send or ledger sync of this account?): nothing sent; try again when it ends", path)}
	case errors.As(err, &fe):
		return usagef("%s is not a send ledger (is it a batch's journal?): give another --ledger", path)
	case errors.As(err, &de):
		return &exitError{code: exitMaybeSent, msg: fmt.Sprintf("ledger %s cannot be read (%s): nothing sent, but messages it recorded may have been sent before; "+
			"run the same command with --recover --since TIME (when the ledger was first used, at the latest) to move it aside and look up every ExternalId it does not know before sending it",
			path, strings.TrimPrefix(de.Error(), "ledger "+path+" is "))}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return usagef("ledger %s: %v", path, err)
	}
	return fmt.Errorf("ledger %s: %w", path, err)
}
