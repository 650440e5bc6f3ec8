package loop_test

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// A runtime whose model forks a child in turn 2: the child's log starts with
// the parent's completed turn 1, and its header says where that ends.
func ExampleRuntime_Run() {
	answer := func(parts ...session.Part) []llm.Chunk {
		return llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: parts}, nil, "")
	}
	script := map[string][][]llm.Chunk{
		"root": {
			answer(session.TextPart("OK")),
			answer(session.Part{Type: session.PartToolCall, ID: "call_1", Name: loop.ForkToolName, Arguments: `{"description":"recall","prompt":"What is the codeword?"}`}),
			answer(session.TextPart("It is MARMALADE.")),
		},
		"root/call_1": {answer(session.TextPart("MARMALADE"))},
	}
	model := llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
		next := script[req.Session.ID][0]
		script[req.Session.ID] = script[req.Session.ID][1:]
		return slices.Values(next), nil
	})
	store := memory.New()
	rt, err := loop.New(loop.Config{
		Driver: model,
		Store:  store,
		Tools:  loop.NewRegistry(loop.ForkTool()),
		IDs:    loop.LineageIDs("root"),
		Serial: true, // the example's map is not safe for concurrent children
	})
	if err != nil {
		panic(err)
	}
	_, results, err := rt.Run(context.Background(), "The codeword is MARMALADE. Reply OK.", "Fork and ask for the codeword.")
	if err != nil {
		panic(err)
	}
	child, _ := store.Load(context.Background(), "root/call_1")
	fmt.Println(results[1].Text)
	fmt.Println(child.Header.Mode, child.Header.ParentCallID, child.Header.SeedLength == session.CompletedPrefix(child.Seed()))
	// Output:
	// It is MARMALADE.
	// fork call_1 true
}
