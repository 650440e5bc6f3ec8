package jsonl_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/session"
)

// A fork child inherits its parent's completed turn as its seed; its file
// appears with its first Append, header first, and a reopened store gives
// the header back with seedLength and lineage as stored.
func ExampleOpen() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sessions")
	defer os.RemoveAll(dir)

	store, _ := jsonl.Open(ctx, dir)
	start, _ := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 1})
	end, _ := session.NewEvent(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
	end.Seq = 1
	seed := []session.Event{start, end}
	child := session.Header{
		ID: "root/call_1", CreatedAt: 1, ParentSession: "root", ParentCallID: "call_1",
		Mode: session.ModeFork, Origin: session.OriginSubagent, DelegationDepth: 1,
		SeedLength: session.CompletedPrefix(seed),
	}
	_ = store.Create(ctx, child, seed)
	ownStart, _ := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 2, Trigger: "subagent"})
	ownEnd, _ := session.NewEvent(session.TypeTurnEnd, session.TurnEndData{Turn: 2, Reason: session.EndReason{Kind: session.TurnCompleted}})
	ownStart.Seq, ownEnd.Seq = 2, 3
	if err := store.Append(ctx, child.ID, []session.Event{ownStart, ownEnd}); err != nil {
		panic(err)
	}
	_ = store.Close()

	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	store, _ = jsonl.Open(ctx, dir)
	defer store.Close()
	l, _ := store.Load(ctx, child.ID)
	fmt.Println(l.Header.SeedLength, len(l.Own()), l.Header.ParentCallID, l.Header.Mode)
	// Output:
	// root%2Fcall_1.jsonl
	// 2 2 call_1 fork
}
