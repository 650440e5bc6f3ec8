package wire_test

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
)

// A tool whose answer changes from run to run (here the time) is run
// through Handler.Tool (wire.Env.Tool in a wire.Runtime): while recording
// its output goes into the log, right before the call's result; a replay
// serves it from there and does not run the tool.
func ExampleHandler_Tool() {
	// The model asks for the time, then answers with text.
	model := llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
		msg := session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("It is noon.")}}
		finish := session.FinishStop
		if len(req.Messages) == 1 {
			msg.Content = []session.Part{{Type: session.PartToolCall, ID: "call_1", Name: "clock", Arguments: "{}"}}
			finish = session.FinishToolCalls
		}
		return slices.Values(llm.StreamMessage(msg, nil, finish)), nil
	})
	store := memory.New()
	h, err := wire.NewHandler(wire.Config{Driver: model, Store: store})
	if err != nil {
		panic(err)
	}
	agent := &http.Client{Transport: wire.Transport(h)}
	send := func(messages string) {
		resp, err := agent.Post("http://model/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[`+messages+`]}`))
		if err != nil {
			panic(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	ask := `{"role":"user","content":"What time is it?"}`
	send(ask)
	// The agent runs the tool the answer called, as its framework gives
	// it: a name and arguments.
	ctx := context.Background()
	out, err := h.Tool(ctx, nil, session.Part{Name: "clock", Arguments: "{}"}, func(context.Context) session.ToolOutput {
		return session.ToolOutput{Text: "12:00"} // time.Now(), while recording
	})
	if err != nil {
		panic(err)
	}
	send(ask + `,{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"clock","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"` + out.Text + `"}`)
	if err := h.Close(ctx); err != nil {
		panic(err)
	}

	logs, err := persistence.LoadAll(ctx, store)
	if err != nil {
		panic(err)
	}
	for _, e := range logs[0].Events {
		if e.Type == session.TypeToolRecorded || e.Type == session.TypeToolResult {
			fmt.Println(e.Type, string(e.Data))
		}
	}
	// Output:
	// tool/recorded {"turn":1,"step":1,"callId":"call_1","name":"clock","arguments":"{}","result":{"text":"12:00"}}
	// tool/result {"turn":1,"step":1,"message":{"role":"tool","content":[{"type":"tool-result","toolCallId":"call_1","name":"clock","content":[{"type":"text","text":"12:00"}],"isError":false}]}}
}
