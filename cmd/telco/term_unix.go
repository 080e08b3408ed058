//go:build unix

package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// termWidth is the width of the terminal f, else $COLUMNS, else 80.
// (golang.org/x/sys comes with bbolt, the journal's store: no new module.)
func termWidth(f *os.File, env func(string) string) int {
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
		return int(ws.Col)
	}
	return columnsEnv(env)
}

func columnsEnv(env func(string) string) int {
	if n, err := strconv.Atoi(env("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}

// hasTerminalModes reports whether f has a terminal's modes (the ioctl
// that reads them succeeds). It asks through SyscallConn, which leaves f's
// blocking mode as it is, unlike Fd.
func hasTerminalModes(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var ioctlErr error
	if err := rc.Control(func(fd uintptr) {
		_, ioctlErr = unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	}); err != nil {
		return false
	}
	return ioctlErr == nil
}

// readNoEcho reads a line from the terminal f without showing it: echo is
// turned off for the read and back on after.
func readNoEcho(f *os.File) (string, error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return "", err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &quiet); err != nil {
		return "", err
	}
	defer func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, old) }()
	return readLine(f)
}
