package recorder

import (
	"os"
	"syscall"
)

// FailWritesAfter makes fixture writes fail like a full disk once n files
// were written whole: the next file gets half its bytes, then ENOSPC. It
// returns the restore.
func FailWritesAfter(n int) func() {
	written := 0
	writeFile = func(path string, b []byte) error {
		if written == n {
			_ = os.WriteFile(path, b[:len(b)/2], 0o644)
			return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
		}
		written++
		return writeSynced(path, b)
	}
	return func() { writeFile = writeSynced }
}
