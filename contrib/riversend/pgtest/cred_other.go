//go:build !unix

package pgtest

import "os/exec"

func (a account) setCredential(*exec.Cmd) {}
