package openai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// foreignCall returns the error finish of a delta whose tool_calls hold a
// call of a type other than "function" (OpenAI's custom tools), or nil. A
// session log records function calls only: read as one, such a call would
// become a tool call with no name and no arguments, and the recording would
// go on as if the model had called something else. choice is the delta's
// position in the frame's choices, to find the call's name in data.
func (d *decoder) foreignCall(dl *Delta, data []byte, choice int) *session.Chunk {
	for i := range dl.ToolCalls {
		tc := &dl.ToolCalls[i]
		if tc.Type == "" || tc.Type == "function" {
			continue
		}
		what := fmt.Sprintf("a tool of type %q", tc.Type)
		if name := foreignName(data, choice, i, tc.Type); name != "" {
			what = fmt.Sprintf("%q, %s", live.Snippet([]byte(name)), what)
		}
		if tc.ID != "" {
			what += fmt.Sprintf(" (call %q)", live.Snippet([]byte(tc.ID)))
		}
		fin := live.UnrecordableFinish(d.scrub, fmt.Sprintf("openai: stream frame %d: the model called %s", d.frameCount, what),
			"give the agent that tool as a function tool")
		return &fin
	}
	return nil
}

// foreignRead is foreignCall over the choices of f, a frame encoding/json
// read as far as it could, when err says only that a member of it is of
// the wrong kind (a function call's arguments a number); nil for any other
// error. Such a call is refused for what the model called before the
// frame's decode error: the call is what the user must change, and a
// server that mended the frame would send it again.
func (d *decoder) foreignRead(f *Chunk, data []byte, err error) *session.Chunk {
	if _, ok := errors.AsType[*json.UnmarshalTypeError](err); !ok {
		return nil
	}
	for i := range f.Choices {
		if f.Choices[i].Index != 0 {
			continue
		}
		if fin := d.foreignCall(&f.Choices[i].Delta, data, i); fin != nil {
			return fin
		}
	}
	return nil
}

// foreignName is the name of tool call entry of the delta of choice
// number choice in data: the name member of the object named after its
// type, as "function" holds a function call's ({"type":"custom",
// "custom":{"name":…,"input":…}}); "" when there is none.
func foreignName(data []byte, choice, entry int, typ string) string {
	var f struct {
		Choices []struct {
			Delta struct {
				ToolCalls []map[string]json.RawMessage `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &f) != nil || choice >= len(f.Choices) || entry >= len(f.Choices[choice].Delta.ToolCalls) {
		return ""
	}
	var named struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(f.Choices[choice].Delta.ToolCalls[entry][typ], &named)
	return named.Name
}
