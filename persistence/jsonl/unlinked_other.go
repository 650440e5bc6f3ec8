//go:build !unix

package jsonl

import (
	"errors"
	"io/fs"
	"os"
)

// unlinked reports whether af's file has lost its name since it was
// opened: removed, or another file in its place.
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
