package memory_test

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// A process stored the start of a turn and died. Opened again, the store
// loads the log with the interrupted turn closed; the next Append writes
// the closers, and the session carries on after them.
func Example_crashRepair() {
	ctx := context.Background()
	backend := memory.NewBackend()
	store := memory.Open(backend)
	_ = store.Create(ctx, session.Header{ID: "root", CreatedAt: 1}, nil)
	start, _ := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 1})
	_ = store.Append(ctx, "root", []session.Event{start})
	_ = store.Close() // the process dies here

	store = memory.Open(backend)
	defer store.Close()
	l, _ := store.Load(ctx, "root")
	for _, e := range l.Events {
		fmt.Println(e.Seq, e.Type, string(e.Data))
	}
	next, _ := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 2})
	next.Seq = int64(len(l.Events))
	fmt.Println(store.Append(ctx, "root", []session.Event{next}))
	// Output:
	// 0 turn/start {"turn":1}
	// 1 turn/end {"turn":1,"reason":{"kind":"interrupted","message":"the session stopped before the turn ended"}}
	// <nil>
}
