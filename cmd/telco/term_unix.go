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
