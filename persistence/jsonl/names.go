package jsonl

import (
	"fmt"
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
