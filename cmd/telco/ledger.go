package main

// The account's send ledger: one boltledger file per service and account
// in the state directory, which sms send --external-id and sms batch both
// send through, so that an ExternalId goes out once per account whatever
// the command, journal, file or flags that carry it. --ledger PATH names
// another file (one shared with a program, say).

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
	"before it: telco ledger sync --since TIME records what the service " +
	"shows as sent in a window, and --look-up-first looks an ExternalId " +
	"the ledger has never seen up at the service before its first send."

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
	path    string // --ledger
	recover bool   // --recover
	since   string // --since, with --recover
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
		return &exitError{code: exitService, msg: fmt.Sprintf("ledger %s: in use by another telco process (an sms batch or sms send of this account?): nothing sent; try again when it ends", path)}
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
