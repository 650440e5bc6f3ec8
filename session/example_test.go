package session_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
)

// exampleLog is a fork child: it inherited one completed turn (seedLength
// 3) and streamed its own answer as a packed row of two deltas.
const exampleLog = `{"type":"session","version":0,"id":"child","createdAt":1767225600000,"parentSession":"root","seedLength":3,"origin":"subagent","delegationDepth":1,"parentCallId":"call_1","mode":"fork"}
{"type":"turn/start","seq":0,"time":1767225600001,"data":{"turn":1}}
{"type":"user/message","seq":1,"time":1767225600002,"data":{"role":"user","content":[{"type":"text","text":"hi"}]}}
{"type":"turn/end","seq":2,"time":1767225600003,"data":{"turn":1,"reason":{"kind":"completed"}}}
{"type":"turn/start","seq":3,"time":1767225600004,"data":{"turn":2,"trigger":"subagent"}}
{"type":"text-chunks","seq0":4,"time0":1767225600005,"data":{"turn":2,"step":1,"index":0,"dt":[7],"texts":["SAF","FRON"]}}
`

func ExampleRead() {
	l, err := session.Read(strings.NewReader(exampleLog), "session.1.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Header.ID, l.Header.Mode, "of", l.Header.ParentSession, "via", l.Header.ParentCallID)
	fmt.Println("inherited:", len(l.Seed()), "own:", len(l.Own()))
	for _, e := range l.Own() {
		fmt.Println(e.Seq, e.Time-l.Header.CreatedAt, e.Type)
	}
	// Output:
	// child fork of root via call_1
	// inherited: 3 own: 3
	// 3 4 turn/start
	// 4 5 assistant/chunk
	// 5 12 assistant/chunk
}

func ExampleRead_error() {
	bad := strings.Replace(exampleLog, `"seq":3`, `"seq":4`, 1)
	_, err := session.Read(strings.NewReader(bad), "session.1.jsonl")
	fmt.Println(err)
	fmt.Println(errors.Is(err, session.ErrSeqGap))
	// Output:
	// session.1.jsonl:5: seq is not dense: seq is 4, expected 3 (seq counts logical events from 0)
	// true
}

func ExampleReader() {
	r := session.NewReader(strings.NewReader(exampleLog), "session.1.jsonl")
	var text strings.Builder
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		if e.Type != session.TypeAssistantChunk {
			continue
		}
		d, err := session.DecodeChunkData(e.Data)
		if err != nil {
			fmt.Println(err)
			return
		}
		text.WriteString(d.Chunk.Text)
	}
	fmt.Println(r.Count(), "events;", "streamed text:", text.String())
	// Output: 6 events; streamed text: SAFFRON
}

func ExampleEncode() {
	h := session.Header{ID: "root", CreatedAt: 1767225600000}
	start, _ := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
	chunk, _ := session.NewEvent(session.TypeAssistantChunk, &session.ChunkData{Turn: 1, Step: 1, Attempt: 1,
		Chunk: session.Chunk{Type: session.ChunkTextDelta, Text: "<ok>"}})
	events := []session.Event{start, chunk}
	for i := range events {
		events[i].Seq, events[i].Time = int64(i), h.CreatedAt+int64(i)
	}
	if err := session.Validate(&h, events); err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(session.Encode(&h, events))
	// Output:
	// {"type":"session","version":0,"id":"root","createdAt":1767225600000,"delegationDepth":0}
	// {"type":"turn/start","seq":0,"time":1767225600000,"data":{"turn":1,"trigger":"user"}}
	// {"type":"assistant/chunk","seq":1,"time":1767225600001,"data":{"turn":1,"step":1,"attempt":1,"chunk":{"type":"text-delta","index":0,"text":"<ok>"}}}
}

func ExampleCompletedPrefix() {
	parent, _ := session.Read(strings.NewReader(exampleLog), "session.1.jsonl")
	// The parent is in turn 2 when it forks: the child inherits turn 1 only.
	fmt.Println(session.CompletedPrefix(parent.Events))
	// A fork on the first turn inherits nothing.
	fmt.Println(session.CompletedPrefix(parent.Events[:2]))
	// Output:
	// 3
	// 0
}

func ExampleLineageOrder() {
	call := func(id string) session.Event {
		e, _ := session.NewEvent(session.TypeToolCall, session.ToolCallData{CallID: id, Name: "subagent_spawn"})
		return e
	}
	root := &session.Log{Header: session.Header{ID: "root"}, Events: []session.Event{call("call_a"), call("call_b")}}
	b := &session.Log{Header: session.Header{ID: "b", ParentSession: "root", ParentCallID: "call_b", CreatedAt: 1}}
	a := &session.Log{Header: session.Header{ID: "a", ParentSession: "root", ParentCallID: "call_a", CreatedAt: 2}}
	ordered, err := session.LineageOrder([]*session.Log{b, a, root})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, l := range ordered {
		name := fixture.RootLog
		if i > 0 {
			name = fixture.ChildLog(i)
		}
		fmt.Println(name, l.Header.ID)
	}
	// Output:
	// session.jsonl root
	// session.1.jsonl a
	// session.2.jsonl b
}
