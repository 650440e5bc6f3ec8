// Package fuzztree builds a small folder from a fuzzer's bytes, for the
// fuzz targets of the readers of folders (a JSONL store, a fixture), and
// snapshots one, to show that reading it changed nothing.
package fuzztree

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxEntries bounds the entries Build makes, so an input stays cheap.
const MaxEntries = 16

// Encode writes the entries as Build reads them: each "NAME\nCONTENT",
// separated by NUL bytes. A NAME ending in "/" is a folder (its content
// ignored), "NAME -> TARGET" a symlink; any other is a file.
func Encode(entries ...string) []byte { return []byte(strings.Join(entries, "\x00")) }

// Build makes the entries data encodes (see Encode) in dir, creating the
// folders a NAME with slashes names on the way. Names are kept inside
// dir; a symlink's target is read as a path from dir, so a link never
// points outside (a reader must not meet /dev/zero). It returns the error of
// the first entry the file system refuses; a fuzz target skips such an
// input.
func Build(dir string, data []byte) error {
	for i, rec := range bytes.Split(data, []byte{0}) {
		if i == MaxEntries {
			break
		}
		head, content, _ := bytes.Cut(rec, []byte{'\n'})
		if err := build(dir, string(head), content); err != nil {
			return err
		}
	}
	return nil
}

func build(dir, head string, content []byte) error {
	name, target, link := strings.Cut(head, " -> ")
	folder := strings.HasSuffix(name, "/")
	rel := filepath.Clean("/" + name)[1:]
	if rel == "" {
		return nil
	}
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	switch {
	case link:
		return os.Symlink(filepath.Join(dir, filepath.Clean("/"+target)), path)
	case folder:
		return os.MkdirAll(path, 0o755)
	}
	return os.WriteFile(path, content, 0o644)
}

// Snapshot describes every entry under dir — its kind and mode, a file's
// bytes, a link's target — without following links.
func Snapshot(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(path)
			if err != nil {
				return err
			}
			desc += " -> " + t
		case info.Mode().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %d %q", len(b), b)
		}
		out[path] = desc
		return nil
	})
	return out, err
}
