package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// emptySchema stands in for a tool without parameters: providers reject a
// function whose parameters are missing or null.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// encodeRequest builds the JSON body for req.
func encodeRequest(req *llm.Request, model string, sendReasoning bool) ([]byte, error) {
	body := Request{
		Model:         model,
		Messages:      make([]Message, 0, len(req.Messages)+1),
		Stream:        true,
		StreamOptions: includeUsage,
	}
	if req.System != "" {
		body.Messages = append(body.Messages, Message{Role: session.RoleSystem, Content: TextContent(req.System)})
	}
	var media llm.Media
	if f, ok := req.Forward.(*Forward); ok && req.API == API {
		media = f.Media
	}
	for i := range req.Messages {
		var err error
		if body.Messages, err = appendMessage(body.Messages, req.Messages, i, sendReasoning, media); err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	set, err := ownSettings(req)
	if err != nil {
		return nil, err
	}
	if _, ok := set["tools"]; !ok {
		// The agent's tools, when they said more than the specs, go as
		// sent among the settings.
		if body.Tools, err = specTools(req.Tools); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&body); err != nil {
		return nil, err
	}
	return withSettings(buf.Bytes(), set)
}

// specTools is the API's function tools for specs.
func specTools(specs []llm.ToolSpec) ([]Tool, error) {
	var out []Tool
	for _, t := range specs {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
			params = emptySchema
		} else if !json.Valid(params) {
			return nil, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
		}
		out = append(out, Tool{Type: "function", Function: Function{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return out, nil
}

// ownSettings returns the settings of a call made in this API (an agent's
// temperature, max_tokens, tool_choice, …, as the wire layer decoded
// them) without what the body says itself — the model, the messages,
// streaming — but the tools when they are a setting (Call.ToolsSetting);
// nil for a call of another API, whose settings mean nothing here.
func ownSettings(req *llm.Request) (map[string]json.RawMessage, error) {
	if req.API != API || len(req.Settings) == 0 {
		return nil, nil
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(req.Settings, &set); err != nil {
		return nil, fmt.Errorf("the request's settings are not a JSON object: %w", err)
	}
	for _, k := range Known {
		if k != "tools" {
			delete(set, k)
		}
	}
	return set, nil
}

// withSettings adds set to the body, as sent.
func withSettings(body []byte, set map[string]json.RawMessage) ([]byte, error) {
	if len(set) == 0 {
		return body, nil
	}
	extra, err := json.Marshal(set) // members in name order
	if err != nil {
		return nil, err
	}
	body = bytes.TrimRight(body, "\n")
	out := append(body[:len(body)-1:len(body)-1], ',')
	return append(append(out, extra[1:]...), '\n'), nil
}

// appendMessage appends the Chat Completions messages for m. Each
// tool-result part becomes its own role:"tool" message, placed before the
// rest of m: the API wants tool answers right after the assistant message
// that called the tools. Reasoning parts are dropped unless sendReasoning.
// A message left with nothing to say is dropped when it is an assistant
// message or when it carried tool results; other empty messages are kept.
// A message with images or files goes out as a content array, each of
// them the agent's own part from media. m is msgs[i].
func appendMessage(out []Message, msgs []session.Message, i int, sendReasoning bool, media llm.Media) ([]Message, error) {
	m := &msgs[i]
	if hasMedia(m.Content) {
		content, err := mediaContent(m.Content, i, media)
		return append(out, Message{Role: m.Role, Content: content}), err
	}
	var text, reasoning strings.Builder
	var calls []ToolCall
	hadResults := false
	for _, p := range m.Content {
		switch p.Type {
		case session.PartText:
			text.WriteString(p.Text)
		case session.PartReasoning:
			reasoning.WriteString(p.Text)
		case session.PartToolCall:
			calls = append(calls, toolCall(p))
		case session.PartToolResult:
			hadResults = true
			out = append(out, Message{Role: session.RoleTool, ToolCallID: p.ToolCallID, Content: TextContent(session.PartsText(p.Content))})
		}
	}
	msg := Message{Role: m.Role, ToolCalls: calls}
	if sendReasoning && m.Role == session.RoleAssistant {
		msg.ReasoningContent = reasoning.String()
	}
	if s := text.String(); s != "" || len(calls) == 0 {
		msg.Content = TextContent(s)
	}
	empty := text.Len() == 0 && len(calls) == 0 && msg.ReasoningContent == ""
	if empty && (hadResults || m.Role == session.RoleAssistant || m.Role == session.RoleTool) {
		return out, nil
	}
	return append(out, msg), nil
}

// hasMedia reports whether parts hold an image or file part.
func hasMedia(parts []session.Part) bool {
	for _, p := range parts {
		if p.Type == session.PartImage || p.Type == session.PartFile {
			return true
		}
	}
	return false
}

// mediaContent is the content array of a user message with images or
// files: its text parts, and for each image or file the agent's part;
// parts are those of the conversation's message i.
func mediaContent(parts []session.Part, i int, media llm.Media) (json.RawMessage, error) {
	out := []byte{'['}
	for j := range parts {
		if j > 0 {
			out = append(out, ',')
		}
		switch p := &parts[j]; p.Type {
		case session.PartImage, session.PartFile:
			block, err := media.Block(p, llm.Place{Message: i, Part: j})
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", j, err)
			}
			out = append(out, block...)
		case session.PartText:
			out = append(append(append(out, `{"type":"text","text":`...), TextContent(p.Text)...), '}')
		default:
			return nil, fmt.Errorf("content[%d]: a %s part beside an image or file; the API takes text there", j, p.Type)
		}
	}
	return append(out, ']'), nil
}

// toolCall maps a tool-call part. Empty arguments are sent as "{}": the
// part may come from a stream cut short, and providers reject "".
func toolCall(p session.Part) ToolCall {
	args := p.Arguments
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	return ToolCall{ID: p.ID, Type: "function", Function: FunctionCall{Name: p.Name, Arguments: args}}
}

// Forward is what an agent's Chat Completions request carries beyond
// agentsnap's terms that a live model of this API gets as sent: the wire
// layer hands it over in llm.Request.Forward.
type Forward struct {
	// Media is the agent's own content part for each image and file part
	// of the request (Call.Media): the log holds only their digests.
	Media llm.Media
}
