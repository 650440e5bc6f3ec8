package open_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/session"
)

// FuzzParse feeds arbitrary text to Parse, as --store gives it. Nothing
// may panic; an error quotes the spec; a spec it accepts reads back the
// same from its String. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 60s ./persistence/open
func FuzzParse(f *testing.F) {
	for _, s := range []string{"jsonl:sessions", "sqlite:a.db", "memory:", "memory:x", "sqlite:", "jsonl:a:b", "redis:x", ":", "", "jsonl"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := open.Parse(s)
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
				t.Fatalf("Parse(%q): the error does not quote the spec: %v", s, err)
			}
			return
		}
		if back, err := open.Parse(spec.String()); err != nil || back != spec {
			t.Fatalf("Parse(%q) = %+v, whose String %q reads back as %+v, %v", s, spec, spec.String(), back, err)
		}
	})
}

// FuzzReadOnly writes the fuzzer's bytes as a file named with one of the
// extensions Detect weighs and opens it with ReadOnly, as inspect and
// convert open a file they are given, reading every session. Nothing may
// panic or change the file; an error names it; a file Detect takes for a
// log reads as session.ReadFile reads it, refused by one exactly when by
// the other. The seeds are a fixture's log, SQLite's magic and the
// shapes between. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzReadOnly$' -fuzztime 60s ./persistence/open
func FuzzReadOnly(f *testing.F) {
	logs, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "fork", "codeword", session.RootFile))
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
		f.Add(b, uint8(1))
	}
	for _, s := range []string{"SQLite format 3\x00", "\xef\xbb\xbf{", "                ", "   ", "hello", ""} {
		for ext := range uint8(3) {
			f.Add([]byte(s), ext)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, ext uint8) {
		path := filepath.Join(t.TempDir(), "sessions"+[]string{".jsonl", ".db", ""}[ext%3])
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		spec, err := open.Detect(path)
		if err != nil {
			t.Fatalf("Detect of a file: %v", err)
		}
		logs, err := readOnly(ctx, path)
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("ReadOnly(%s): the error does not name the file: %v", path, err)
		}
		if b, rerr := os.ReadFile(path); rerr != nil || string(b) != string(data) {
			t.Fatalf("ReadOnly changed the file (%v)", rerr)
		}
		if spec.Kind != open.JSONL {
			return
		}
		want, werr := session.ReadFile(path)
		switch {
		case (err == nil) != (werr == nil):
			t.Fatalf("ReadOnly of a log: %v; session.ReadFile: %v", err, werr)
		case err == nil && (len(logs) != 1 || !reflect.DeepEqual(logs[0], want)):
			t.Fatalf("ReadOnly read %d logs, unlike session.ReadFile's", len(logs))
		}
	})
}

// readOnly reads every session ReadOnly finds at path.
func readOnly(ctx context.Context, path string) ([]*session.Log, error) {
	src, err := open.ReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return persistence.ReadAll(ctx, src)
}
