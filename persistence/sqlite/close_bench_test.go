package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
)

// BenchmarkClose times Close of a store on a healthy database of n
// sessions of 8 events that it only read: with no -wal file at open (the
// normal case: Close checks for a WAL it did not write, a stat), and with
// the -wal of a killed writer beside it (Close runs quick_check over the
// whole database before SQLite checkpoints the WAL into it).
func BenchmarkClose(b *testing.B) {
	for _, n := range []int{8, 10_000} {
		for _, foreign := range []bool{false, true} {
			b.Run(fmt.Sprintf("sessions=%d/foreign-wal=%t", n, foreign), func(b *testing.B) {
				benchClose(b, n, foreign)
			})
		}
	}
}

func benchClose(b *testing.B, n int, foreign bool) {
	ctx := context.Background()
	template := filepath.Join(b.TempDir(), "template.db")
	generate(b, template, n, foreign)
	files := map[string][]byte{}
	for _, suffix := range []string{"", "-wal"} {
		if data, err := os.ReadFile(template + suffix); err == nil {
			files[suffix] = data
		}
	}
	if foreign != (files["-wal"] != nil) {
		b.Fatalf("template: a -wal file is %t, want %t", files["-wal"] != nil, foreign)
	}
	path := filepath.Join(b.TempDir(), "bench.db")
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for suffix, data := range files {
			if err := os.WriteFile(path+suffix, data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "MB")
}

// generate writes an agentsnap database of n sessions of 8 events at path
// in one transaction, and with foreign the -wal of a killed writer: one
// more commit that is not checkpointed.
func generate(b *testing.B, path string, n int, foreign bool) {
	s, err := sqlite.Open(context.Background(), path) // the schema
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite", path+"?_pragma=wal_autocheckpoint(0)")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	stmts := []string{
		fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
		INSERT INTO sessions (id, version, created_at, delegation_depth) SELECT 'root-' || i, 0, i, 0 FROM n`, n-1),
		`WITH RECURSIVE k(seq) AS (SELECT 0 UNION ALL SELECT seq + 1 FROM k WHERE seq < 7)
		INSERT INTO events (session_id, seq, type, time, data) SELECT id, seq, 'x/tick', seq,
		'{"text":"' || hex(randomblob(48)) || '"}' FROM sessions, k`,
		"PRAGMA wal_checkpoint(TRUNCATE)",
	}
	if foreign {
		stmts = append(stmts, "UPDATE events SET time = time + 1 WHERE seq = 7 AND session_id = 'root-0'")
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			b.Fatal(q, ": ", err)
		}
	}
	if foreign {
		// A copy of the file and its -wal, as a killed writer leaves them:
		// closing db would checkpoint.
		for _, suffix := range []string{"", "-wal"} {
			data, err := os.ReadFile(path + suffix)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path+".copy"+suffix, data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if foreign {
		for _, suffix := range []string{"", "-wal"} {
			if err := os.Rename(path+".copy"+suffix, path+suffix); err != nil {
				b.Fatal(err)
			}
		}
	}
}
