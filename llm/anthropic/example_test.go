package anthropic_test

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
)

// ExampleDecodeRequest reads what an agent on an Anthropic SDK posts to
// /v1/messages into agentsnap's terms: the tool_result block of its user
// message becomes a tool message, named after the tool_use that made the
// call, and every member that is not Known is a setting, kept as sent.
func ExampleDecodeRequest() {
	call, err := anthropic.DecodeRequest([]byte(`{
		"model": "claude-sonnet-4-5",
		"max_tokens": 1024,
		"system": "Be brief.",
		"stream": true,
		"tools": [{"name": "lookup", "description": "Look up a fact.", "input_schema": {"type": "object"}}],
		"messages": [
			{"role": "user", "content": "Which release is current?"},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"key": "release"}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "v2.4.1"}]}
		]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(call.Model, call.Stream, call.System, call.Tools[0].Name)
	for _, m := range call.Messages {
		for _, p := range m.Content {
			b, _ := p.MarshalJSON()
			fmt.Println(m.Role, string(b))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(call.Members)) {
		if !slices.Contains(anthropic.Known, k) {
			fmt.Println("setting:", k, string(call.Members[k]))
		}
	}
	// Output:
	// claude-sonnet-4-5 true Be brief. lookup
	// user {"type":"text","text":"Which release is current?"}
	// assistant {"type":"tool-call","id":"toolu_1","name":"lookup","arguments":"{\"key\":\"release\"}"}
	// tool {"type":"tool-result","toolCallId":"toolu_1","name":"lookup","content":[{"type":"text","text":"v2.4.1"}],"isError":false}
	// setting: max_tokens 1024
}

// ExampleServeStream answers a call with the chunks of a recorded answer
// as the Messages API streams it: events with their event: lines, the
// message id derived from the call's key (the session, turn, step and
// attempt, so every replay hands out the same id), the stop_reason and the
// usage. The wire layer (wire.AnthropicMessages) does this for a replay.
func ExampleServeStream() {
	answer := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("Jupiter")}}
	chunks := llm.StreamMessage(answer, &session.Usage{InputTokens: 12, OutputTokens: 1}, "")

	var w bytes.Buffer
	err := anthropic.ServeStream(&w, nil, anthropic.MessageID("root:1:1:1"), "claude-sonnet-4-5", slices.Values(chunks))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(w.String())
	// Output:
	// event: message_start
	// data: {"type":"message_start","message":{"id":"msg_agentsnap_a147073dc299b14db2cf1af0","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}
	//
	// event: content_block_start
	// data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}
	//
	// event: content_block_delta
	// data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Jupiter"}}
	//
	// event: content_block_stop
	// data: {"type":"content_block_stop","index":0}
	//
	// event: message_delta
	// data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":12,"output_tokens":1}}
	//
	// event: message_stop
	// data: {"type":"message_stop"}
}
