//go:build unix

package jsonl

import "syscall"

// unlinked reports whether af's file has lost its name since it was
// opened: removed, or replaced by a rename over it. The open file's own
// link count tells, without walking the path (an fstat costs a tenth of a
// stat here).
func unlinked(af *appendFile) (bool, error) {
	fi, err := af.f.Stat()
	if err != nil {
		return false, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0, nil
}
