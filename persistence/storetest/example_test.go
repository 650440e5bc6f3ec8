package storetest_test

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// memStorage is one memory backend; each Open opens a new store on it, as
// reopening a folder would.
type memStorage struct{ b *memory.Backend }

func newMemStorage() (storetest.Storage, error) { return memStorage{memory.NewBackend()}, nil }

func (m memStorage) Open() (persistence.Store, error) { return memory.Open(m.b), nil }

// Crash writes the first half of events and dies: what a JSONL backend
// keeps of a batch whose write stopped between two lines.
func (m memStorage) Crash(id string, events []session.Event) error {
	ctx := context.Background()
	l, err := m.b.Read(ctx, id)
	if err != nil {
		return err
	}
	return m.b.Write(ctx, &persistence.Batch{Header: &l.Header, Events: events[:len(events)/2]})
}

// Run checks a store against the whole contract; in a test, call it with
// t.Context() and t.Fatal the error. The memory backend passes.
func Example() {
	err := storetest.Run(context.Background(), newMemStorage)
	fmt.Println("violations:", err)
	// Output:
	// violations: <nil>
}
