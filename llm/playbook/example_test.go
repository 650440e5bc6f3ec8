package playbook_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/session"
)

// Example authors the model's side of a scenario — the root asks a spawned
// child, the child answers — and plays it to the calls an agent makes:
// each session gets its own turns, the child's keyed by the id of the tool
// call that created it. Unused says which authored turns no call took: here
// the root's last, since the example stops before the root's second call.
func Example() {
	pb, err := playbook.Parse([]byte(`{"sessions": {
		"root": [
			{"toolCalls": [{"id": "call_ask", "name": "subagent_spawn", "arguments": {"prompt": "Name the largest planet."}}]},
			{"text": "It is Jupiter."}
		],
		"call_ask": [{"text": "Jupiter"}]
	}}`), "playbook.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := playbook.NewDriver(pb, "playbook.json")

	root := llm.SessionRef{ID: "root"}
	child := llm.SessionRef{ID: "s1", ParentID: "root", ParentCallID: "call_ask", Mode: session.ModeSpawn, Depth: 1}
	for _, ref := range []llm.SessionRef{root, child} {
		seq, err := d.Stream(context.Background(), &llm.Request{Session: ref, Turn: 1, Step: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		var a llm.Assembler
		for c := range seq {
			a.Add(c)
		}
		msg, _ := json.Marshal(a.Message().Content)
		fmt.Println(playbook.Key(ref), a.Finish().Kind, string(msg))
	}
	fmt.Println(d.Unused())
	// Output:
	// root tool-calls [{"type":"tool-call","id":"call_ask","name":"subagent_spawn","arguments":"{\"prompt\":\"Name the largest planet.\"}"}]
	// call_ask stop [{"type":"text","text":"Jupiter"}]
	// playbook: playbook.json: turns left unused: sessions.root used 1 of 2 turns; the agent took another path than the playbook plans, or the playbook has turns too many
}

// ExampleParse shows a playbook with mistakes: every problem is reported at
// once, each naming its field.
func ExampleParse() {
	_, err := playbook.Parse([]byte(`{"sessions": {
		"root": [
			{"text": "Asking.", "toolCalls": [{"id": "call_1", "name": "subagent_spawn", "arguments": "not an object"}]},
			{"finish": "done"}
		]
	}}`), "playbook.json")
	fmt.Println(err)
	// Output:
	// playbook: playbook.json: invalid playbook: sessions.root[0].toolCalls[0].arguments: must be a JSON object, found "not an object"; sessions.root[1].finish: "done"; use stop, tool-calls or max-tokens (or error for a failure); sessions.root[1]: a turn needs text, reasoning, toolCalls, error or hang
}
