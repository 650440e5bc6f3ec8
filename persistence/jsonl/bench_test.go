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
