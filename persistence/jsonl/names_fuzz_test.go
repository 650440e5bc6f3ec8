package jsonl_test

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/persistence/jsonl"
)

// FuzzFileName holds the name of the file a session is stored in — made
// from its id, which a database or a log being converted supplies — to
// what a folder of logs needs: one plain name, not hidden, ending in Ext,
// of safe bytes and %XX escapes only, that unescapes to the id, so two
// ids never share a file. An empty id, which no reader or store
// accepts, is left out. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzFileName$' -fuzztime 60s ./persistence/jsonl
func FuzzFileName(f *testing.F) {
	for _, s := range [][2]string{
		{"root", "root/call_1"}, {"a/b", "a%2Fb"}, {".hidden", "%2Ehidden"}, {"..", "."}, {"", "x"},
		{"é", "\xc3\xa9"}, {"A", "a"}, {"x.jsonl", "x"}, {"\x00", "%00"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" {
			return // no log reader or store takes a session without an id
		}
		name := jsonl.FileName(a)
		stem, ok := strings.CutSuffix(name, jsonl.Ext)
		switch {
		case !ok || filepath.Base(name) != name || strings.HasPrefix(name, "."):
			t.Fatalf("FileName(%q) = %q, not a plain visible log name", a, name)
		case strings.TrimLeft(stem, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-%") != "":
			t.Fatalf("FileName(%q) = %q, with a byte outside [A-Za-z0-9_.-%%]", a, name)
		}
		if back, err := url.PathUnescape(stem); err != nil || back != a {
			t.Fatalf("FileName(%q) = %q, which unescapes to %q, %v", a, name, back, err)
		}
		if a != b && jsonl.FileName(b) == name {
			t.Fatalf("sessions %q and %q share the file %s", a, b, name)
		}
	})
}
