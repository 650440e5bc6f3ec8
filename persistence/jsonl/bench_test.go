package jsonl_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// BenchmarkAppend appends batches of assistant/chunk events to one session,
// with the fsync of every batch (the default) and without (NoSync).
func BenchmarkAppend(b *testing.B) {
	for _, sync := range []bool{true, false} {
		for _, batch := range []int{1, 64} {
			b.Run(fmt.Sprintf("sync=%t/batch=%d", sync, batch), func(b *testing.B) {
				var opts []jsonl.Option
				if !sync {
					opts = append(opts, jsonl.NoSync())
				}
				ctx := context.Background()
				s, err := jsonl.Open(ctx, b.TempDir(), opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				if err := s.Create(ctx, storetest.RootHeader("root"), nil); err != nil {
					b.Fatal(err)
				}
				events := storetest.Deltas(0, batch)
				var seq int64
				for b.Loop() {
					if err := s.Append(ctx, "root", storetest.Renumber(seq, events)); err != nil {
						b.Fatal(err)
					}
					seq += int64(batch)
				}
				report(b, b.N*batch)
			})
		}
	}
}

// report reports events/s and ns per event.
func report(b *testing.B, events int) {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

// BenchmarkLoad loads a session of 10,000 events.
func BenchmarkLoad(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	s, err := jsonl.Open(ctx, b.TempDir(), jsonl.NoSync())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Create(ctx, storetest.RootHeader("root"), nil); err != nil {
		b.Fatal(err)
	}
	if err := s.Append(ctx, "root", storetest.Deltas(0, n)); err != nil {
		b.Fatal(err)
	}
	var l *session.Log
	for b.Loop() {
		if l, err = s.Load(ctx, "root"); err != nil {
			b.Fatal(err)
		}
	}
	if len(l.Events) != n {
		b.Fatalf("loaded %d events, want %d", len(l.Events), n)
	}
	report(b, b.N*n)
}
