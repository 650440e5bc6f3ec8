package open_test

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/session"
)

// A command that takes --store opens whatever the user named.
func ExampleStore() {
	ctx := context.Background()
	store, err := open.Store(ctx, "memory:") // or "jsonl:runs", "sqlite:runs.db"
	if err != nil {
		panic(err)
	}
	defer store.Close()
	if err := store.Create(ctx, session.Header{ID: "root", CreatedAt: 1}, nil); err != nil {
		panic(err)
	}
	ev, _ := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 1})
	if err := store.Append(ctx, "root", []session.Event{ev}); err != nil {
		panic(err)
	}
	l, _ := store.Load(ctx, "root")
	fmt.Print(string(session.Encode(&l.Header, l.Events)))
	// Output:
	// {"type":"session","version":0,"id":"root","createdAt":1,"delegationDepth":0}
	// {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
}
