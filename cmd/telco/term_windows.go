//go:build windows

package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/windows"
)

// termWidth is $COLUMNS, else 80, where the terminal cannot be asked.
func termWidth(_ *os.File, env func(string) string) int {
	return columnsEnv(env)
}

func columnsEnv(env func(string) string) int {
	if n, err := strconv.Atoi(env("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}

// hasTerminalModes reports whether f is a console (it has a console
// mode); NUL and redirected handles are not.
func hasTerminalModes(f *os.File) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}

// readNoEcho reads a line from the console f without showing it: echo is
// turned off for the read and back on after.
func readNoEcho(f *os.File) (string, error) {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return "", err
	}
	if err := windows.SetConsoleMode(h, (mode&^windows.ENABLE_ECHO_INPUT)|windows.ENABLE_LINE_INPUT|windows.ENABLE_PROCESSED_INPUT); err != nil {
		return "", err
	}
	defer func() { _ = windows.SetConsoleMode(h, mode) }()
	return readLine(f)
}
