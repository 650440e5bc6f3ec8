package fakellm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// exampleParent answers "OK" in turn 1.
const exampleParent = `{"type":"session","version":0,"id":"p","createdAt":1}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}
{"type":"assistant/chunk","seq":1,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}
{"type":"assistant/chunk","seq":2,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"OK"}}}
{"type":"assistant/chunk","seq":3,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}
{"type":"turn/end","seq":4,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}
`

// exampleFork is a fork child of exampleParent: its seed is the parent's
// turn 1, its own turn 2 answers "MARMALADE".
const exampleFork = `{"type":"session","version":0,"id":"c","createdAt":2,"parentSession":"p","seedLength":5,"delegationDepth":1,"parentCallId":"call_1","mode":"fork"}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}
{"type":"assistant/chunk","seq":1,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}
{"type":"assistant/chunk","seq":2,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"OK"}}}
{"type":"assistant/chunk","seq":3,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}
{"type":"turn/end","seq":4,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}
{"type":"turn/start","seq":5,"time":1,"data":{"turn":2}}
{"type":"assistant/chunk","seq":6,"time":1,"data":{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}
{"type":"assistant/chunk","seq":7,"time":1,"data":{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"MARMALADE"}}}
{"type":"assistant/chunk","seq":8,"time":1,"data":{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}
{"type":"turn/end","seq":9,"time":1,"data":{"turn":2,"reason":{"kind":"completed"}}}
`

// A fork child's script holds its own calls only: the parent's answer in
// its seed is not replayed to it.
func ExampleDerive() {
	s, err := fakellm.Derive(strings.NewReader(exampleFork), "session.1.jsonl", fakellm.DeriveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(fakellm.MarshalScript(s.Entries))
	// Output:
	// [
	//   {
	//     "kind": "chunks",
	//     "turn": 2,
	//     "step": 1,
	//     "call": 1,
	//     "chunks": [
	//       {
	//         "type": "block-start",
	//         "index": 0,
	//         "blockType": "text"
	//       },
	//       {
	//         "type": "text-delta",
	//         "index": 0,
	//         "text": "MARMALADE"
	//       },
	//       {
	//         "type": "finish",
	//         "reason": {
	//           "kind": "stop"
	//         }
	//       }
	//     ]
	//   }
	// ]
}

// A driver routes each live call to the recorded session with the same
// lineage; live ids need not match the recorded ones.
func ExampleNew() {
	parent, _ := session.Read(strings.NewReader(exampleParent), "session.jsonl")
	child, _ := session.Read(strings.NewReader(exampleFork), "session.1.jsonl")
	drv, err := fakellm.New([]*session.Log{parent, child})
	if err != nil {
		fmt.Println(err)
		return
	}
	ask := func(ref llm.SessionRef, turn int) {
		seq, err := drv.Stream(context.Background(), &llm.Request{Session: ref, Turn: turn, Step: 1, Attempt: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		for c := range seq {
			if c.Type == session.ChunkTextDelta {
				fmt.Println(ref.ID, "hears", c.Text)
			}
		}
	}
	ask(llm.SessionRef{ID: "live-root"}, 1)
	ask(llm.SessionRef{ID: "live-child", ParentID: "live-root", ParentCallID: "call_1", Mode: session.ModeFork, Depth: 1}, 2)
	fmt.Println("check:", drv.Check())
	// Output:
	// live-root hears OK
	// live-child hears MARMALADE
	// check: <nil>
}

// Check lists what the replay left over, with the command that re-records.
func ExampleDriver_Check() {
	parent, _ := session.Read(strings.NewReader(exampleParent), "fixtures/fork/codeword/session.jsonl")
	child, _ := session.Read(strings.NewReader(exampleFork), "fixtures/fork/codeword/session.1.jsonl")
	drv, _ := fakellm.New([]*session.Log{parent, child})
	seq, _ := drv.Stream(context.Background(), &llm.Request{Session: llm.SessionRef{ID: "live-root"}, Turn: 1, Step: 1})
	for range seq {
	}
	err := drv.Check()
	fmt.Println(errors.Is(err, fakellm.ErrNotConsumed))
	fmt.Println(err)
	// Output:
	// true
	// fakellm: recording not consumed: 1 recorded session not fully replayed — re-record with: go tool agentsnap record fixtures/fork/codeword
	//   session root/call_1 (fork; session.1.jsonl): never called (1 recorded call)
}

// A recording in files is derived as each file is read, no log held; a
// driver that replays it once lets go of each answer as a call takes it.
func ExamplePrepareFiles() {
	dir, err := os.MkdirTemp("", "fixture")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	root, fork := dir+"/session.jsonl", dir+"/session.1.jsonl"
	_ = os.WriteFile(root, []byte(exampleParent), 0o644)
	_ = os.WriteFile(fork, []byte(exampleFork), 0o644)
	rec, err := fakellm.PrepareFiles([]string{root, fork})
	if err != nil {
		fmt.Println(err)
		return
	}
	drv, err := rec.Driver(fakellm.WithReleaseServed())
	if err != nil {
		fmt.Println(err)
		return
	}
	seq, err := drv.Stream(context.Background(), &llm.Request{Session: llm.SessionRef{ID: "live-root"}, Turn: 1, Step: 1, Attempt: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for c := range seq {
		if c.Type == session.ChunkTextDelta {
			fmt.Println("root hears", c.Text)
		}
	}
	fmt.Println("the root's answer, still held:", rec.Scripts()[0].Entries[0].Chunks != nil)
	fmt.Println("the fork's, not yet served:", len(rec.Scripts()[1].Entries[0].Chunks), "chunks")
	// Output:
	// root hears OK
	// the root's answer, still held: false
	// the fork's, not yet served: 3 chunks
}
