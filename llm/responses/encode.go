package responses

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// emptySchema stands in for a tool without parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// encodeRequest builds the body of a streamed call of req to model: the
// whole conversation as input with store false (agentsnap holds the
// chain), then the request's settings (see the package doc).
func encodeRequest(req *llm.Request, model string) ([]byte, error) {
	items := []Item{}
	for i := range req.Messages {
		items = appendItems(items, &req.Messages[i])
	}
	input, err := session.MarshalData(items)
	if err != nil {
		return nil, err
	}
	body := Request{Model: model, Instructions: req.System, Input: input, Stream: true, Store: ptr(false)}
	set, err := sendSettings(req)
	if err != nil {
		return nil, err
	}
	if _, ok := set["tools"]; !ok {
		// A call of another API, or a runtime's own, says nothing of
		// strictness; its schemas were not written for strict mode, which
		// the Responses API assumes by default.
		var strict *bool
		if req.API != API {
			strict = ptr(false)
		}
		for _, t := range req.Tools {
			params := bytes.TrimSpace(t.Parameters)
			if len(params) == 0 || string(params) == "null" {
				params = emptySchema
			} else if !json.Valid(params) {
				return nil, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
			}
			body.Tools = append(body.Tools, Tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params, Strict: strict})
		}
	}
	out, err := session.MarshalData(body)
	if err != nil || len(set) == 0 {
		return out, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(out, &members); err != nil {
		return nil, err
	}
	for k, v := range set {
		members[k] = v
	}
	return session.MarshalData(members) // members in name order
}

// appendItems appends the input items of m: each text part a message, each
// tool call a function_call, each tool result a function_call_output, and
// each reasoning part that carries its encrypted content a reasoning item
// (one without cannot go back: with store false the API keeps none).
// Output items go without their ids, which the API would look up.
func appendItems(out []Item, m *session.Message) []Item {
	role := m.Role
	if role == session.RoleTool {
		role = session.RoleUser
	}
	for _, p := range m.Content {
		switch p.Type {
		case session.PartText:
			if role == session.RoleAssistant {
				content, _ := json.Marshal([]Part{{Type: "output_text", Text: p.Text}})
				out = append(out, Item{Type: ItemMessage, Role: role, Phase: ReadMeta(p.Meta).Phase, Content: content})
				continue
			}
			content, _ := json.Marshal(p.Text)
			out = append(out, Item{Type: ItemMessage, Role: role, Content: content})
		case session.PartToolCall:
			args := p.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			out = append(out, Item{Type: ItemFunctionCall, CallID: p.ID, Name: p.Name, Arguments: &args})
		case session.PartToolResult:
			text, _ := json.Marshal(resultText(p.Content))
			out = append(out, Item{Type: ItemFunctionCallOutput, CallID: p.ToolCallID, Output: text})
		case session.PartReasoning:
			mt := ReadMeta(p.Meta)
			if mt.EncryptedContent == "" || mt.ID == "" {
				continue
			}
			it := Item{Type: ItemReasoning, ID: mt.ID, Summary: []Part{}, EncryptedContent: ptr(mt.EncryptedContent)}
			if p.Text != "" {
				it.Summary = []Part{{Type: "summary_text", Text: p.Text}}
			}
			out = append(out, it)
		}
	}
	return out
}

// resultText is the text a tool result sends back: its text parts, joined.
func resultText(parts []session.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == session.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// sendSettings returns the settings to send with req: a call made in
// this API sends its own as they are; a call decoded from another API
// sends those that mean the same here (see the package doc).
func sendSettings(req *llm.Request) (map[string]json.RawMessage, error) {
	if len(req.Settings) == 0 {
		return nil, nil
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(req.Settings, &set); err != nil {
		return nil, errors.New("the request's settings are not a JSON object")
	}
	if req.API != API {
		set = mapSettings(req.API, set)
	}
	for _, k := range transport {
		if k != "tools" {
			delete(set, k)
		}
	}
	return set, nil
}
