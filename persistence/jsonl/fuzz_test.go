package jsonl_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/internal/fuzztree"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/session"
)

// FuzzFolder opens a store folder the fuzzer makes (fuzztree's entries:
// logs, other files, folders, symlinks, an unfinished deletion's intent)
// read-only and reads every session it lists. Nothing may panic or change
// a byte of the folder; an error names the folder or the file; a session
// Read returns is the one session.ReadFile reads from the file Where
// names, under the listed id. Opened read-write after that, it removes
// only the intent file and the plain log names the intent lists. The seeds are the committed fixtures' logs
// and the damaged shapes below. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzFolder$' -fuzztime 60s ./persistence/jsonl
func FuzzFolder(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "*", "*"))
	for _, d := range dirs {
		paths, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
		var entries []string
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			entries = append(entries, filepath.Base(p)+"\n"+string(b))
		}
		f.Add(fuzztree.Encode(entries...))
	}
	root := `{"type":"session","version":0,"id":"s1","createdAt":1}` + "\n"
	other := `{"type":"session","version":0,"id":"s2","createdAt":2}` + "\n"
	turn := `{"type":"turn/start","seq":0,"time":1}` + "\n"
	for _, entries := range [][]string{
		{"s1.jsonl\n" + root + turn, "s2.jsonl\n" + other},
		{"a.jsonl\n" + root, "b.jsonl\n" + root},
		{"s1.jsonl\n" + root + `{"type":"turn/start","seq":0,"ti`},
		{"s1.jsonl\n" + root, "s2.jsonl\n" + other, ".agentsnap-delete\ns2.jsonl\n../s1.jsonl\n.x.jsonl"},
		{"s1.jsonl\n" + root, "notes.txt\nx", ".h.jsonl\n", "sub/x.jsonl\n", ".agentsnap-delete\nnotes.txt\n.h.jsonl\nsub/x.jsonl\ns1.jsonl"},
		{"session.jsonl/", "s1.jsonl\n" + root},
		{"sub.jsonl/", "x.jsonl -> gone.jsonl", "s1.jsonl\n" + root},
		{"s1.jsonl\n" + root, "link.jsonl -> s1.jsonl"},
		{"s1.jsonl\n" + root, "loop.jsonl -> loop.jsonl"},
		{"notes.txt\nhello", ".hidden.jsonl\n{"},
		{"s1.jsonl\n"}, {"s1.jsonl\n\n"}, {"s1.jsonl\n[1]\n"}, {},
	} {
		f.Add(fuzztree.Encode(entries...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir, before := fuzztree.Make(t, "store", data)
		readFolder(t, dir)
		after, err := fuzztree.Snapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("reading the store read-only changed its folder:\n%v\nthen\n%v", before, after)
		}
		finishOnly(t, dir, before)
	})
}

// finishOnly opens dir read-write, which finishes an interrupted deletion,
// and fails t when that changed more than it may: it removes the intent
// file and the plain log names the intent lists, and nothing else.
func finishOnly(t *testing.T, dir string, before map[string]string) {
	intent := filepath.Join(dir, ".agentsnap-delete")
	listed := map[string]bool{intent: true}
	if b, err := os.ReadFile(intent); err == nil {
		for _, name := range strings.Split(string(b), "\n") {
			if strings.HasSuffix(name, jsonl.Ext) && filepath.Base(name) == name && !strings.HasPrefix(name, ".") {
				listed[filepath.Join(dir, name)] = true
			}
		}
	}
	if b, err := jsonl.NewBackend(dir, jsonl.NoSync()); err == nil {
		b.Close()
	}
	after, err := fuzztree.Snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for p, was := range before {
		now, kept := after[p]
		switch {
		case kept && now != was:
			t.Fatalf("opening the store changed %s: %s, then %s", p, was, now)
		case !kept && !listed[p] && !listed[filepath.Dir(p)]:
			t.Fatalf("opening the store removed %s, which its deletion intent does not name", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Fatalf("opening the store made %s", p)
		}
	}
}

// readFolder opens dir read-only and reads each session it lists, failing
// t on an error that names neither dir nor the session's file, or a log
// that differs from the file's.
func readFolder(t *testing.T, dir string) {
	ctx := context.Background()
	b, err := jsonl.NewBackend(dir, jsonl.ReadOnly())
	if err != nil {
		if !strings.Contains(err.Error(), dir) {
			t.Fatalf("the error of opening the store does not name its folder: %v", err)
		}
		return
	}
	defer b.Close()
	hs, err := b.Sessions(ctx)
	if err != nil {
		t.Fatalf("Sessions of an open store: %v", err)
	}
	for _, h := range hs {
		path := b.Where(h.ID)
		l, err := b.Read(ctx, h.ID)
		want, werr := session.ReadFile(path)
		switch {
		case err != nil && !strings.Contains(err.Error(), path):
			t.Fatalf("Read(%q): the error does not name %s: %v", h.ID, path, err)
		case err != nil && werr == nil && want.Header.ID == h.ID:
			t.Fatalf("Read(%q) fails (%v), session.ReadFile of %s reads it", h.ID, err, path)
		case err != nil:
		case werr != nil:
			t.Fatalf("Read(%q) reads a log session.ReadFile refuses: %v", h.ID, werr)
		case l.Header.ID != h.ID || !reflect.DeepEqual(l, want):
			t.Fatalf("Read(%q) = a log unlike session.ReadFile's of %s:\n%+v\n%+v", h.ID, path, l, want)
		}
	}
}
