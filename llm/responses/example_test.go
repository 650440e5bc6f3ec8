package responses_test

import (
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
)

// ExampleServed_Decode reads what an agent on an OpenAI SDK posts to
// /v1/responses into agentsnap's terms. A run keeps one Served: the
// responses it answered, so a later request can continue one by
// previous_response_id.
func ExampleServed_Decode() {
	served := responses.NewServed()
	d, err := served.Decode([]byte(`{
		"model": "gpt-4.1-mini",
		"instructions": "Be brief.",
		"input": [
			{"role": "user", "content": "Which release is current?"},
			{"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": "{\"key\":\"release\"}"},
			{"type": "function_call_output", "call_id": "call_1", "output": "v2.4.1"}
		],
		"tools": [{"type": "function", "name": "lookup", "parameters": {"type": "object"}}],
		"temperature": 0,
		"stream": true
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Model, d.Stream, d.System, d.Tools[0].Name)
	for _, m := range d.Messages {
		for _, p := range m.Content {
			b, _ := p.MarshalJSON()
			fmt.Println(m.Role, string(b))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(d.Settings)) {
		fmt.Println("setting:", k, string(d.Settings[k]))
	}

	_, err = served.Decode([]byte(`{"model": "gpt-4.1-mini", "previous_response_id": "resp_unknown", "input": "And now?"}`))
	fmt.Println(err)
	// Output:
	// gpt-4.1-mini true Be brief. lookup
	// user {"type":"text","text":"Which release is current?"}
	// assistant {"type":"tool-call","id":"call_1","name":"lookup","arguments":"{\"key\":\"release\"}"}
	// tool {"type":"tool-result","toolCallId":"call_1","name":"lookup","content":[{"type":"text","text":"v2.4.1"}],"isError":false}
	// setting: temperature 0
	// previous_response_id "resp_unknown" names no response served in this run (none was served yet); send the id of a response the agent was handed in this run, or send the whole conversation as input
}

// ExampleWriteStream answers a call with the chunks of a recorded answer as
// the Responses API streams it, and keeps the response in the run's Served
// (Put), so the agent's next request may continue it by its id: that
// request sends only its new input, and decodes to the whole conversation.
func ExampleWriteStream() {
	served := responses.NewServed()
	first, err := served.Decode([]byte(`{"model": "gpt-4.1-mini", "input": "Name the largest planet.", "stream": true}`))
	if err != nil {
		fmt.Println(err)
		return
	}

	answer := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("Jupiter")}}
	chunks := llm.StreamMessage(answer, &session.Usage{InputTokens: 12, OutputTokens: 1}, "")
	w := httptest.NewRecorder()
	// The key names the call (session, turn, step, attempt): the ids
	// handed out are derived from it, the same in every replay.
	res, err := responses.WriteStream(w, responses.Answer{Key: "root:1:1:1", Model: first.Model}, slices.Values(chunks))
	if err != nil {
		fmt.Println(err)
		return
	}
	for line := range strings.Lines(w.Body.String()) {
		if strings.HasPrefix(line, "event: ") {
			fmt.Print(line)
		}
	}
	served.Put(res.ID, first.Messages, res.Output, res.ItemIDs, first.Store)

	next, err := served.Decode([]byte(`{"model": "gpt-4.1-mini", "previous_response_id": "` + res.ID + `", "input": "And the smallest?"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range next.Messages {
		fmt.Println(m.Role, m.Content[0].Text)
	}
	// Output:
	// event: response.created
	// event: response.in_progress
	// event: response.output_item.added
	// event: response.content_part.added
	// event: response.output_text.delta
	// event: response.output_text.done
	// event: response.content_part.done
	// event: response.output_item.done
	// event: response.completed
	// user Name the largest planet.
	// assistant Jupiter
	// user And the smallest?
}
