//go:build unix

package pgtest

import (
	"os/exec"
	"syscall"
)

func (a account) setCredential(cmd *exec.Cmd) {
	if a.switchTo {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid)}}
	}
}
