package jsonl

import (
	"errors"
	"io/fs"
	"os"
)

// unlinked reports whether af's path no longer names af's file, which
// was opened from it: nothing is there (removed, renamed away), or
// another file is (renamed over it). Only the path tells: the open file's
// link count misses a file with a second name (a hard link a backup or a
// snapshot made) and one renamed away or removed on NFS (kept under a
// .nfs name while open), and writes to such a file would be acknowledged
// and never read again. On Windows neither happens while the file is
// open (it is opened without FILE_SHARE_DELETE, so a removal or a rename
// over it fails), but a file closed after a failed write may go.
func unlinked(af *appendFile) (bool, error) {
	fi, err := os.Stat(af.f.Name())
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return !os.SameFile(fi, af.fi), nil
}
