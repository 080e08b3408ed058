// Package pgtest starts a throwaway Postgres server for a test: initdb in
// a temporary directory, pg_ctl start on a free port of 127.0.0.1, and
// pg_ctl stop in t.Cleanup. It uses the binaries of Debian's postgresql
// package (/usr/lib/postgresql/<version>/bin), or those in PGTEST_BIN.
//
// When Postgres is not installed the test fails, always: it never skips,
// so that a machine without Postgres cannot pass the suite by running
// none of it. .ci/run installs the package when it is missing.
//
// Run as root, the server runs as the user "postgres" (which the Debian
// package creates), because Postgres refuses to run as root.
//
// It is riversend's own tests' helper, public so that programs built on
// riversend can test against a real Postgres the same way: the
// examples/river-campaign module of this repository does.
package pgtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BinDir finds the directory holding initdb and pg_ctl: PGTEST_BIN, else
// the newest /usr/lib/postgresql/<version>/bin.
func BinDir() (string, error) {
	if d := os.Getenv("PGTEST_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	var ok []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			ok = append(ok, d)
		}
	}
	if len(ok) == 0 {
		return "", fmt.Errorf("pgtest: no initdb under /usr/lib/postgresql/*/bin; install Postgres " +
			"(apt-get install -y postgresql, as .ci/run does) or set PGTEST_BIN")
	}
	// Newest version first, compared as numbers (9.6 < 15).
	sort.Slice(ok, func(i, j int) bool { return version(ok[i]) > version(ok[j]) })
	return ok[0], nil
}

func version(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

// Start runs a new server for t and returns its connection string (user
// "postgres", database "postgres", password-less trust on loopback). The
// server is stopped in t.Cleanup. It is tuned for tests, not for a
// machine's crash: fsync is off. A crash of the server alone (Restart)
// loses no committed transaction, since commits wait for their WAL to be
// written to the operating system, which keeps it.
func Start(t testing.TB) string {
	t.Helper()
	return New(t).DSN
}

// New is Start returning the Server, for a test that restarts it.
func New(t testing.TB) *Server {
	t.Helper()
	srv, err := StartServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// Server is a running throwaway Postgres.
type Server struct {
	DSN  string // connection string
	bin  string
	root string
	data string
	opts string // the server's options, kept for Restart
	log  string
	as   account
}

// StartServer runs a new server outside a test (the river-campaign
// example uses it); Stop stops it and removes its files.
func StartServer() (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	as, err := runAs()
	if err != nil {
		return nil, err
	}
	// Not t.TempDir: its parents are private to the user running the test,
	// and the server may run as another.
	root, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, root: root, data: filepath.Join(root, "data"), as: as}
	fail := func(err error) (*Server, error) {
		_ = os.RemoveAll(root)
		return nil, err
	}
	if err := os.Chmod(root, 0o755); err != nil {
		return fail(err)
	}
	sock := filepath.Join(root, "sock")
	for _, d := range []string{s.data, sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fail(err)
		}
		if err := as.own(d); err != nil {
			return fail(err)
		}
	}
	logFile := filepath.Join(sock, "server.log")
	s.log = logFile
	if out, err := as.run(filepath.Join(bin, "initdb"), "-D", s.data, "-U", "postgres",
		"--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return fail(fmt.Errorf("pgtest: initdb: %v\n%s", err, out))
	}
	// A free port can be taken between our check and the server's bind:
	// try a few.
	for try := 0; ; try++ {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		// synchronous_commit stays on: without fsync it costs a write to
		// the page cache, and it keeps a crashed server's commits.
		s.opts = fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off "+
			"-c full_page_writes=off -c max_connections=300", port, sock)
		out, err := s.start()
		if err == nil {
			s.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
			return s, nil
		}
		if try == 2 {
			log, _ := os.ReadFile(logFile)
			return fail(fmt.Errorf("pgtest: pg_ctl start: %v\n%s\n%s", err, out, log))
		}
	}
}

func (s *Server) start() (string, error) {
	return s.as.run(filepath.Join(s.bin, "pg_ctl"), "start", "-D", s.data, "-w", "-t", "60", "-l", s.log, "-o", s.opts)
}

// Restart crashes the server (pg_ctl stop -m immediate: every connection
// is cut, transactions in progress are lost) and starts it again on the
// same port and data, after down (0 for at once): what a database's crash
// and recovery look like to its clients.
func (s *Server) Restart(down time.Duration) error {
	if out, err := s.as.run(filepath.Join(s.bin, "pg_ctl"), "stop", "-D", s.data, "-m", "immediate", "-w"); err != nil {
		return fmt.Errorf("pgtest: Restart: pg_ctl stop: %v\n%s", err, out)
	}
	time.Sleep(down)
	if out, err := s.start(); err != nil {
		log, _ := os.ReadFile(s.log)
		return fmt.Errorf("pgtest: Restart: pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// Stop stops the server at once (its data is thrown away) and removes its
// directory.
func (s *Server) Stop() error {
	out, err := s.as.run(filepath.Join(s.bin, "pg_ctl"), "stop", "-D", s.data, "-m", "immediate", "-w")
	_ = os.RemoveAll(s.root)
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// account is who the server runs as: nobody in particular (the current
// user) or, under root, the postgres user.
type account struct {
	uid, gid int
	switchTo bool
}

func runAs() (account, error) {
	if os.Geteuid() != 0 {
		return account{}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return account{}, fmt.Errorf("pgtest: running as root, and there is no user postgres to run the server as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return account{uid: uid, gid: gid, switchTo: true}, nil
}

func (a account) own(path string) error {
	if !a.switchTo {
		return nil
	}
	return os.Chown(path, a.uid, a.gid)
}

func (a account) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = "/"
	a.setCredential(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return strings.TrimSpace(out.String()), err
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		return out.String(), fmt.Errorf("%s timed out", filepath.Base(name))
	}
}
