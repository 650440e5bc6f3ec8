package memory_test

import (
	"fmt"
	"testing"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

// BenchmarkAppend appends batches of assistant/chunk events to one session
// of a memory store: what the store's coordinator costs an Append, with
// no disk under it.
func BenchmarkAppend(b *testing.B) {
	for _, batch := range []int{1, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := memory.New()
			defer s.Close()
			storetest.BenchAppend(b, s, batch)
		})
	}
}

// BenchmarkLoad loads a session of 10,000 events from a memory store.
func BenchmarkLoad(b *testing.B) {
	s := memory.New()
	defer s.Close()
	storetest.BenchLoad(b, s, 10_000)
}
