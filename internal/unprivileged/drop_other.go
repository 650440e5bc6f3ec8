//go:build !linux

package unprivileged

import (
	"os"
	"runtime"
)

// lockAndDrop locks the calling goroutine to its thread. Only Linux has
// per-thread capabilities to drop: root elsewhere is refused.
func lockAndDrop() {
	runtime.LockOSThread()
	if os.Geteuid() == 0 {
		panic("unprivileged: root's permission overrides can be dropped on Linux only: run this spec as another user")
	}
}
