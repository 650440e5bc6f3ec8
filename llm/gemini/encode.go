package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// encodeRequest builds the body of a streamed call for req. A call the
// wire layer decoded from an agent's Gemini request has its settings
// (generationConfig, toolConfig, safetySettings, …) added as sent, and the
// tools the settings hold (googleSearch, …) after the functions — or in
// their place, when they are the agent's tools as sent, declarations and
// all (Call.Settings).
func encodeRequest(req *llm.Request) ([]byte, error) {
	if req == nil {
		return nil, fmt.Errorf("nil request")
	}
	var media llm.Media
	var responses Responses
	if f, ok := req.Forward.(*Forward); ok && req.API == API {
		media, responses = f.Media, f.Responses
	}
	contents, err := toContents(req.Messages, media, responses)
	if err != nil {
		return nil, err
	}
	body := map[string]any{"contents": contents}
	if req.System != "" {
		body["systemInstruction"] = Content{Parts: []Part{{Text: ptr(req.System)}}}
	}
	var tools []any
	if len(req.Tools) > 0 {
		decls := make([]FunctionDeclaration, len(req.Tools))
		for i, t := range req.Tools {
			params := bytes.TrimSpace(t.Parameters)
			if len(params) > 0 && string(params) != "null" && !json.Valid(params) {
				return nil, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
			}
			if string(params) == "null" {
				params = nil
			}
			decls[i] = FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJSONSchema: params}
		}
		tools = append(tools, Tool{FunctionDeclarations: decls})
	}
	if req.API == API && len(req.Settings) > 0 {
		var set map[string]json.RawMessage
		if err := json.Unmarshal(req.Settings, &set); err != nil {
			return nil, fmt.Errorf("the request's settings are not a JSON object: %w", err)
		}
		if raw, ok := set["tools"]; ok {
			var more []json.RawMessage
			if err := json.Unmarshal(raw, &more); err != nil {
				return nil, fmt.Errorf("the request's settings: tools is not an array: %w", err)
			}
			if declaresFunctions(more) {
				tools = nil // the agent's declarations say more than the specs: as sent
			}
			for _, t := range more {
				tools = append(tools, t)
			}
		}
		for k, v := range set {
			if k != "contents" && k != "systemInstruction" && k != "tools" {
				body[k] = v
			}
		}
	}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	return session.MarshalData(body) // members in name order
}

// toContents returns the Gemini contents for a conversation: assistant
// messages become model contents (reasoning as thought parts, tool calls
// as functionCall parts, each with its thought signature), tool results
// functionResponse parts of a user content ({"output": text}, or
// {"error": text} for a result that is an error; the agent's own response
// when responses has one for it; the willContinue and scheduling its meta
// holds), and what one role says in a row one content, as the API wants a
// call's responses together.
func toContents(msgs []session.Message, media llm.Media, responses Responses) ([]Content, error) {
	names := map[string]string{} // tool call id -> name, for results without one
	var out []Content
	add := func(role string, p Part) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, p)
			return
		}
		out = append(out, Content{Role: role, Parts: []Part{p}})
	}
	for i := range msgs {
		m := &msgs[i]
		role := "user"
		if m.Role == session.RoleAssistant {
			role = "model"
		}
		for j, p := range m.Content {
			sig := Signature(p.Meta)
			switch p.Type {
			case session.PartText:
				add(role, Part{Text: ptr(p.Text), ThoughtSignature: sig})
			case session.PartReasoning:
				if role == "model" {
					add(role, Part{Text: ptr(p.Text), Thought: true, ThoughtSignature: sig})
				}
			case session.PartToolCall:
				args, ok := argsObject(p.Arguments)
				if !ok {
					return nil, fmt.Errorf("message %d: the arguments of tool call %s (%s) are not a JSON object, which functionCall.args must be: %.60q", i+1, p.ID, p.Name, p.Arguments)
				}
				names[p.ID] = p.Name
				add("model", Part{FunctionCall: &FunctionCall{ID: p.ID, Name: p.Name, Args: args}, ThoughtSignature: sig})
			case session.PartToolResult:
				name := p.Name
				if name == "" {
					name = names[p.ToolCallID]
				}
				resp, ok := responses.at(i, p.ToolCallID)
				if !ok {
					resp = resultResponse(p)
				}
				fr := &FunctionResponse{ID: p.ToolCallID, Name: name, Response: resp}
				setResultExtras(fr, p.Meta)
				add("user", Part{FunctionResponse: fr})
			case session.PartImage, session.PartFile:
				block, err := media.Block(&p, llm.Place{Message: i, Part: j})
				if err != nil {
					return nil, fmt.Errorf("message %d: %w", i+1, err)
				}
				var part Part
				if err := json.Unmarshal(block, &part); err != nil {
					return nil, fmt.Errorf("message %d: the agent's part: %w", i+1, err)
				}
				add(role, part)
			}
		}
	}
	if out == nil {
		out = []Content{}
	}
	return out, nil
}

// resultResponse is functionResponse.response for a tool result:
// {"output": text}, or {"error": text} for an error, as encoding/json
// writes it with HTML escaping off.
func resultResponse(p session.Part) json.RawMessage {
	return slices.Clip(appendResultResponse(nil, p))
}

// appendResultResponse appends resultResponse(p) to dst. Every tool
// result a request sends is compared with it (Responses.keep), so it is
// written by hand into the caller's buffer: encoding/json with a map
// cost eight allocations a result.
func appendResultResponse(dst []byte, p session.Part) []byte {
	if p.IsError {
		dst = append(dst, `{"error":`...)
	} else {
		dst = append(dst, `{"output":`...)
	}
	return append(jsonscan.AppendStdString(dst, session.PartsText(p.Content)), '}')
}

// Forward is what an agent's generateContent request carries beyond
// agentsnap's terms that a live model of this API gets as sent: the wire
// layer hands it over in llm.Request.Forward.
type Forward struct {
	// Media is the agent's own part for each image and file part of the
	// request (Call.Media): the log holds only their digests.
	Media llm.Media
	// Responses is the agent's own functionResponse.response for each
	// tool result of the request whose response says other than its text
	// (Call.Responses): the log holds the text.
	Responses Responses
}
