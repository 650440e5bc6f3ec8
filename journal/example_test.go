package journal_test

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// One turn with one model call, written to the contract: the events a
// runtime's calls produce, in the order they land in the log.
func Example() {
	ctx := context.Background()
	// A scripted model: every call streams the same short answer.
	model := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
		answer := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("Hello there.")}}
		return slices.Values(llm.StreamMessage(answer, &session.Usage{InputTokens: 9, OutputTokens: 3}, "")), nil
	})
	store := memory.New()
	defer store.Close()
	clock := func() time.Time { return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) }

	j, err := journal.NewRoot(ctx, journal.Config{Store: store, Clock: clock})
	if err != nil {
		panic(err)
	}
	j.StartTurn(journal.TriggerUser, journal.UserText("Say hello."))
	j.StartStep()
	req := &llm.Request{Model: "m", System: "Be brief."}
	call, err := j.BeginCall(ctx, "scripted", req) // fills req.Session, Turn, Step, Attempt, Messages
	if err != nil {
		panic(err)
	}
	stream, err := model.Stream(ctx, req)
	if err != nil {
		panic(err)
	}
	for c := range llm.Normalize(ctx, stream) {
		call.Chunk(c)
	}
	msg, finish := call.End()
	if err := j.EndStep(ctx); err != nil {
		panic(err)
	}
	if err := j.EndTurn(ctx, session.EndReason{Kind: session.TurnCompleted}); err != nil {
		panic(err)
	}

	fmt.Printf("%s: %q, finish %s\n", req.Session.ID, msg.Text(), finish.Kind)
	l, err := store.Load(ctx, j.ID())
	if err != nil {
		panic(err)
	}
	for _, e := range l.Events {
		if e.Type == session.TypeAssistantChunk {
			d, _ := session.DecodeChunkData(e.Data)
			fmt.Println(e.Seq, e.Type, d.Chunk.Type)
			continue
		}
		fmt.Println(e.Seq, e.Type)
	}
	// Output:
	// root: "Hello there.", finish stop
	// 0 turn/start
	// 1 user/message
	// 2 step/start
	// 3 request/header
	// 4 assistant/chunk block-start
	// 5 assistant/chunk text-delta
	// 6 assistant/chunk text-delta
	// 7 assistant/chunk block-end
	// 8 assistant/chunk usage
	// 9 assistant/chunk finish
	// 10 assistant/message
	// 11 step/end
	// 12 turn/end
}

// A fork child inherits its parent's completed turns, and its header says
// where the inherited prefix ends (seedLength) and which call created it.
func ExampleJournal_Child() {
	ctx := context.Background()
	store := memory.New()
	defer store.Close()
	clock := func() time.Time { return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) }
	parent, err := journal.NewRoot(ctx, journal.Config{Store: store, Clock: clock})
	if err != nil {
		panic(err)
	}
	// Turn 1 completes (a turn without model calls keeps the example short).
	parent.StartTurn(journal.TriggerUser, journal.UserText("The codeword is MARMALADE."))
	if err := parent.EndTurn(ctx, session.EndReason{Kind: session.TurnCompleted}); err != nil {
		panic(err)
	}
	// Turn 2's model asked for a fork (its call and answer are left out).
	parent.StartTurn(journal.TriggerUser, journal.UserText("Fork and ask for the codeword."))
	parent.StartStep()
	fork := session.Part{Type: session.PartToolCall, ID: "call_1", Name: "subagent_fork", Arguments: `{"prompt":"What is the codeword?"}`}
	if err := parent.ToolCalls(ctx, []session.Part{fork}); err != nil {
		panic(err)
	}
	child, err := parent.Child(ctx, fork.ID, session.ModeFork)
	if err != nil {
		panic(err)
	}
	h, _ := child.Header().MarshalJSON()
	fmt.Println(string(h))
	fmt.Println("child turn", child.StartTurn(journal.TriggerSubagent, journal.UserText("What is the codeword?")))
	fmt.Println("messages sent by its first call:", len(child.Messages()))
	// Output:
	// {"type":"session","version":0,"id":"root/call_1","createdAt":946684800000,"parentSession":"root","seedLength":3,"origin":"subagent","delegationDepth":1,"parentCallId":"call_1","mode":"fork"}
	// child turn 2
	// messages sent by its first call: 2
}
