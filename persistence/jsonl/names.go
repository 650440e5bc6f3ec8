package jsonl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Ext is the extension of every session file.
const Ext = ".jsonl"

// FileName returns the name of the file that holds session id: the id with
// every byte outside [A-Za-z0-9_.-], and a leading dot, written as %XX,
// plus [Ext]. Distinct ids get distinct names, on any file system that
// keeps case.
func FileName(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if safe(c) && (i > 0 || c != '.') {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	b.WriteString(Ext)
	return b.String()
}

func safe(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// Foreign returns the name of an entry of dir that no JSONL store writes
// — a folder, or a file that is neither a session log (*.jsonl) nor
// hidden (the store's own: an unfinished deletion's intent, a write's
// temporary file; or a file manager's) — or "" when dir holds only such
// files, holds nothing or does not exist. A store writes its logs into its folder
// itself, so a folder that holds other things (scenario folders, a
// fixture's scenario.json) would get session logs among them.
func Foreign(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("jsonl: %w", err)
	}
	for _, e := range entries {
		if name := e.Name(); e.IsDir() || !strings.HasPrefix(name, ".") && !strings.HasSuffix(name, Ext) {
			return name, nil
		}
	}
	return "", nil
}
