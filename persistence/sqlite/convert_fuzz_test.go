package sqlite_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/session"
)

// FuzzConvert holds a database to the logs it is given, as agentsnap
// convert and --store write them: a session log that session.Read accepts
// is written whole to a new database (a refusal names the session), and
// read back, read-only, encodes to the same bytes as the log read. The
// seeds are the committed fixtures' root logs and session's runtime log. To
// fuzz:
//
//	go test -run '^$' -fuzz '^FuzzConvert$' -fuzztime 60s ./persistence/sqlite
func FuzzConvert(f *testing.F) {
	// The root logs only: a seed costs a database, and CI runs them all.
	paths, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "*", "*", session.RootFile))
	paths = append(paths, filepath.Join("..", "..", "session", "testdata", "runtime.jsonl"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"session","version":0,"id":"s","createdAt":1,"extra":{"k":[1,"\u00e9"]}}` + "\n" +
		`{"type":"x/odd","seq":0,"time":-1,"data":{"a":1e400},"ignorable":true,"zz":{"b":null}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := session.Read(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			return
		}
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "sessions.db")
		db, err := sqlite.OpenBackend(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Write(ctx, &persistence.Batch{Header: &l.Header, New: true, Events: l.Events})
		if cerr := db.Close(); cerr != nil {
			t.Fatal(cerr)
		}
		if err != nil {
			if !strings.Contains(err.Error(), l.Header.ID) {
				t.Fatalf("writing session %q: the error does not name it: %v", l.Header.ID, err)
			}
			return
		}
		ro, err := sqlite.OpenReadOnly(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		back, err := ro.Read(ctx, l.Header.ID)
		if err != nil {
			t.Fatalf("reading back session %q: %v", l.Header.ID, err)
		}
		if want, got := session.Encode(&l.Header, l.Events), session.Encode(&back.Header, back.Events); !bytes.Equal(want, got) {
			t.Fatalf("the database gives back another log:\n%s\nthen\n%s", want, got)
		}
	})
}
