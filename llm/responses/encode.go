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
	var media llm.Media
	if f, ok := req.Forward.(*Forward); ok && req.API == API {
		media = f.media.all()
	}
	items := []Item{}
	for i := range req.Messages {
		var err error
		if items, err = appendItems(items, req.Messages, i, media); err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
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
// Output items go without their ids, which the API would look up. A user
// message with images or files is one message of input parts, each image
// or file the agent's part in media; a tool result's, its output. m is
// msgs[i].
func appendItems(out []Item, msgs []session.Message, i int, media llm.Media) ([]Item, error) {
	m := &msgs[i]
	role := m.Role
	if role == session.RoleTool {
		role = session.RoleUser
	}
	if m.Role == session.RoleUser && hasMedia(m.Content) {
		content, err := inputParts(m.Content, func(k int) llm.Place { return llm.Place{Message: i, Part: k} }, media)
		return append(out, Item{Type: ItemMessage, Role: role, Content: content}), err
	}
	for j, p := range m.Content {
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
			text, _ := json.Marshal(session.PartsText(p.Content))
			if hasMedia(p.Content) {
				var err error
				if text, err = inputParts(p.Content, func(k int) llm.Place { return llm.Place{Message: i, Part: j, Inner: k + 1} }, media); err != nil {
					return nil, err
				}
			}
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
	return out, nil
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

// inputParts is an array of input parts: an input_text per text part,
// and the agent's part in media per image or file, parts[k] at place(k).
func inputParts(parts []session.Part, place func(k int) llm.Place, media llm.Media) (json.RawMessage, error) {
	out := []byte{'['}
	for k := range parts {
		if k > 0 {
			out = append(out, ',')
		}
		switch p := &parts[k]; p.Type {
		case session.PartImage, session.PartFile:
			block, err := media.Block(p, place(k))
			if err != nil {
				return nil, err
			}
			out = append(out, block...)
		default:
			b, err := session.MarshalData(Part{Type: "input_text", Text: p.Text})
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		}
	}
	return append(out, ']'), nil
}

// Forward is what an agent's Responses request carries beyond agentsnap's
// terms that a live model of this API gets as sent: the wire layer hands
// it over in llm.Request.Forward (Decoded.Forward).
type Forward struct {
	// media is the agent's own part for each image and file of the
	// request's conversation, a chain's earlier requests' too: the log
	// holds only their digests.
	media *media
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
