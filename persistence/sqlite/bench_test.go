package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

// BenchmarkAppend appends batches of assistant/chunk events to one session
// through the store, and, as the reference, through a raw INSERT loop on a
// connection with the writer's settings (WAL, synchronous=FULL, one
// transaction per batch). x-raw is the store's time per event over the raw
// loop's, measured in the same run.
func BenchmarkAppend(b *testing.B) {
	for _, batch := range []int{1, 64} {
		var rawNs float64
		b.Run(fmt.Sprintf("raw/batch=%d", batch), func(b *testing.B) { rawNs = benchRaw(b, batch) })
		b.Run(fmt.Sprintf("store/batch=%d", batch), func(b *testing.B) {
			ns := benchStore(b, batch)
			if rawNs > 0 {
				b.ReportMetric(ns/rawNs, "x-raw")
			}
		})
	}
}

func benchStore(b *testing.B, batch int) float64 {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	return storetest.BenchAppend(b, s, batch)
}

func benchRaw(b *testing.B, batch int) float64 {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.db")
	s, err := sqlite.Open(ctx, path) // the schema
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	name, err := sqlite.WriterDSN(path)
	if err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ins, err := db.Prepare(`INSERT INTO events (session_id, seq, type, time, data, source_event_seqs, surface_op) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	defer ins.Close()
	events := storetest.Deltas(0, batch)
	data := make([]string, batch)
	for i, e := range events {
		data[i] = string(e.Data)
	}
	var seq int64
	for b.Loop() {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		stmt := tx.Stmt(ins)
		for i, e := range events {
			if _, err := stmt.Exec("root", seq+int64(i), e.Type, e.Time, data[i], nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		seq += int64(batch)
	}
	return storetest.ReportRate(b, b.N*batch)
}

// BenchmarkLoad loads a session of 10,000 events.
func BenchmarkLoad(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchLoad(b, s, 10_000)
}
