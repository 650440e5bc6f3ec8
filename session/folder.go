package session

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// RootFile is the file name of the root log in a folder of a session tree's
// logs (a fixture); children are ChildFile(n) for n from 1, in lineage
// order.
const RootFile = "session.jsonl"

// ChildFile returns the file name of the n-th child log (n from 1).
func ChildFile(n int) string { return "session." + strconv.Itoa(n) + ".jsonl" }

// ReadFolder reads every *.jsonl log in dir: session.jsonl first, then
// session.<n>.jsonl by n, then any other log by name. A folder without logs
// is an error.
func ReadFolder(dir string) ([]*Log, error) {
	paths, err := FolderLogs(dir)
	if err != nil {
		return nil, err
	}
	logs := make([]*Log, 0, len(paths))
	for _, p := range paths {
		l, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		logs = append(logs, l)
	}
	return logs, nil
}

// FolderLogs lists the *.jsonl files of dir in the order ReadFolder reads them.
func FolderLogs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	return ListedLogs(dir, entries)
}

// ListedLogs is FolderLogs of entries, dir's listing as os.ReadDir returns
// it, for a caller that reads the folder once for more than its logs.
func ListedLogs(dir string, entries []os.DirEntry) ([]string, error) {
	type named struct {
		path string
		rank int // 0 root, 1 numbered child, 2 other
		n    int
	}
	var files []named
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, ".") {
			continue
		}
		f := named{path: filepath.Join(dir, name), rank: 2}
		if name == RootFile {
			f.rank = 0
		} else if mid, ok := strings.CutPrefix(strings.TrimSuffix(name, ".jsonl"), "session."); ok {
			if n, err := strconv.Atoi(mid); err == nil && n > 0 {
				f.rank, f.n = 1, n
			}
		}
		if ok, err := checkLogEntry(f.path, e, f.rank); !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("session: %s holds no *.jsonl session logs", dir)
	}
	slices.SortFunc(files, func(a, b named) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.n, b.n), strings.Compare(a.path, b.path))
	})
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out, nil
}

// checkLogEntry decides about a *.jsonl entry of a folder: listed (true),
// skipped (false: a folder such as sub.jsonl), or an error naming it — a
// log name of a fixture (session.jsonl, session.<n>.jsonl) that is a
// directory, and any symlink to nothing, which a listing would otherwise
// skip silently or a reader report as a bare open error.
func checkLogEntry(path string, e os.DirEntry, rank int) (bool, error) {
	isDir := e.IsDir()
	if e.Type()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return false, fmt.Errorf("session: %s is a symlink to %s, which does not exist; restore the log or remove the link", path, target)
		case err != nil:
			return false, fmt.Errorf("session: %s is unreadable: %w", path, err)
		}
		isDir = st.IsDir()
	}
	switch {
	case !isDir:
		return true, nil
	case rank < 2:
		return false, fmt.Errorf("session: %s is a directory, not a session log; move it away (or restore the log it replaced)", path)
	}
	return false, nil
}
