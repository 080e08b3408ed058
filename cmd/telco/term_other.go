//go:build !unix

package main

import (
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
