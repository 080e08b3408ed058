//go:build !unix && !windows

package main

import (
	"errors"
	"os"
	"strconv"
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

// hasTerminalModes cannot ask the system here: a character device is
// taken for a terminal.
func hasTerminalModes(*os.File) bool { return true }

// readNoEcho cannot turn echo off here.
func readNoEcho(*os.File) (string, error) {
	return "", errors.New("this system's terminal cannot hide the token: give --token-stdin")
}
