package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/internal/fuzztree"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// FuzzDatabase opens a database file of the fuzzer's bytes, read-only
// (inspect, convert) and read-write (--store), and reads every session.
// SQLite must return an error rather than crash, and agentsnap must word
// it: an error names the file. Neither way changes the folder (no Write
// is made; a fresh, empty file aside). What both read, they read alike.
// The seeds are a database agentsnap wrote, cut short and with a page
// zeroed. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzDatabase$' -fuzztime 60s ./persistence/sqlite
func FuzzDatabase(f *testing.F) {
	ctx := context.Background()
	base := filepath.Join(f.TempDir(), "sessions.db")
	s, err := sqlite.Open(ctx, base)
	if err != nil {
		f.Fatal(err)
	}
	for i := range 2 {
		id := fmt.Sprintf("root-%d", i)
		if err := s.Create(ctx, storetest.RootHeader(id), nil); err != nil {
			f.Fatal(err)
		}
		if err := s.Append(ctx, id, storetest.CompletedTurn(0, 1, "a prompt", "an answer")); err != nil {
			f.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		f.Fatal(err)
	}
	db, err := os.ReadFile(base)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(db)
	f.Add(db[:100])
	f.Add(db[:len(db)-4096])
	f.Add(append(append(append([]byte{}, db[:4096]...), make([]byte, 4096)...), db[8192:]...))
	f.Add([]byte("SQLite format 3\x00"))
	f.Add([]byte(`{"type":"session","version":0,"id":"s","createdAt":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "sessions.db")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		before, err := fuzztree.Snapshot(dir)
		if err != nil {
			t.Fatal(err)
		}
		ro, roErr := readDatabase(t, path, func() (persistence.Source, func() error, error) {
			b, err := sqlite.OpenReadOnly(ctx, path)
			if err != nil {
				return nil, nil, err
			}
			return b, b.Close, nil
		})
		unchanged(t, dir, before, "read-only")
		if len(data) == 0 {
			return // a fresh store: the read-write open initialises it
		}
		rw, rwErr := readDatabase(t, path, func() (persistence.Source, func() error, error) {
			s, err := sqlite.Open(ctx, path)
			if err != nil {
				return nil, nil, err
			}
			return s.Backend(), s.Close, nil
		})
		unchanged(t, dir, before, "read-write")
		if roErr == nil && rwErr == nil && !reflect.DeepEqual(ro, rw) {
			t.Fatalf("read-only and read-write read different sessions:\n%v\n%v", ro, rw)
		}
	})
}

// readDatabase opens a source with open and reads every session of it,
// failing t when an error does not name path.
func readDatabase(t *testing.T, path string, open func() (persistence.Source, func() error, error)) ([]*session.Log, error) {
	ctx := context.Background()
	named := func(err error) error {
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("the error does not name the database: %v", err)
		}
		return err
	}
	src, closeSrc, err := open()
	if err != nil {
		return nil, named(err)
	}
	var logs []*session.Log
	hs, err := src.Sessions(ctx)
	for _, h := range hs {
		var l *session.Log
		if l, err = src.Read(ctx, h.ID); err != nil {
			break
		}
		logs = append(logs, l)
	}
	if cerr := closeSrc(); err == nil {
		err = cerr
	}
	return logs, named(err)
}

// unchanged fails t when dir is not as before.
func unchanged(t *testing.T, dir string, before map[string]string, how string) {
	after, err := fuzztree.Snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("opening the database %s and reading it changed its folder", how)
	}
}
