package jsonl_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
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
				s, err := jsonl.Open(context.Background(), b.TempDir(), opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				storetest.BenchAppend(b, s, batch)
			})
		}
	}
}

// BenchmarkLoad loads a session of 10,000 events.
func BenchmarkLoad(b *testing.B) {
	s, err := jsonl.Open(context.Background(), b.TempDir(), jsonl.NoSync())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchLoad(b, s, 10_000)
}

// BenchmarkCreate creates sessions of one completed turn each, the first
// Append of each writing its file, with fsync (the default) and without.
func BenchmarkCreate(b *testing.B) {
	for _, sync := range []bool{true, false} {
		b.Run(fmt.Sprintf("sync=%t", sync), func(b *testing.B) {
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
			turn := storetest.CompletedTurn(0, 1, "p", "a")
			for i := 0; b.Loop(); i++ {
				id := fmt.Sprintf("s%d", i)
				if err := s.Create(ctx, storetest.RootHeader(id), nil); err != nil {
					b.Fatal(err)
				}
				if err := s.Append(ctx, id, turn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
