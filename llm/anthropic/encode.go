package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// emptySchema stands in for a tool without parameters: the API requires
// an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// encodeRequest builds the JSON body of a streamed call of req to model.
// A request decoded from this API keeps its settings, max_tokens among
// them, and its cache breakpoints (Forward.Cache) where the agent put
// them; any other gets maxTokens.
func encodeRequest(req *llm.Request, model string, maxTokens int) ([]byte, error) {
	return encodeBody(req, model, maxTokens, true)
}

// encodeBody is encodeRequest, or with stream false the body of a token
// count (POST /v1/messages/count_tokens), which takes no stream member and
// no max_tokens unless the agent sent one (maxTokens 0 adds none).
func encodeBody(req *llm.Request, model string, maxTokens int, stream bool) ([]byte, error) {
	set, err := ownSettings(req)
	if err != nil {
		return nil, err
	}
	cache := cacheOf(req)
	msgs, err := encodeMessages(req.Messages, cache.marks(), mediaOf(req))
	if err != nil {
		return nil, err
	}
	body := Request{Model: model, Messages: msgs, Stream: stream}
	body.MaxTokens = set["max_tokens"]
	delete(set, "max_tokens")
	if len(body.MaxTokens) == 0 && maxTokens > 0 {
		body.MaxTokens = json.RawMessage(strconv.Itoa(maxTokens))
	}
	if body.System = cache.system(req.System); body.System == nil && req.System != "" {
		body.System = Content{{Type: TypeText, Text: req.System}}
	}
	if tools, ok := set["tools"]; ok {
		// The agent's tools say more than the specs: they go as sent,
		// among the settings, their breakpoints where the agent put them.
		if set["tools"], err = markedTools(tools, cache); err != nil {
			return nil, err
		}
	} else if body.Tools, err = specTools(req.Tools, cache); err != nil {
		return nil, err
	}
	out, err := session.MarshalData(&body)
	if err != nil {
		return nil, err
	}
	return appendMembers(out, set)
}

// specTools is the API's tools for specs, each with the cache_control
// cache has for it.
func specTools(specs []llm.ToolSpec, cache *Cache) ([]Tool, error) {
	var out []Tool
	for i, t := range specs {
		params := bytes.TrimSpace(t.Parameters)
		if len(params) == 0 || string(params) == "null" {
			params = emptySchema
		} else if !json.Valid(params) {
			return nil, fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
		}
		out = append(out, Tool{Name: t.Name, Description: t.Description, InputSchema: params, CacheControl: cache.tool(i, len(specs))})
	}
	return out, nil
}

// ownSettings returns the settings of a call made in this API (an agent's
// max_tokens, temperature, tool_choice, thinking, …, as the wire layer
// decoded them), without the members the body says itself but the tools
// when they are a setting (Call.ToolsSetting); nil for a call of another
// API, whose settings mean nothing here.
func ownSettings(req *llm.Request) (map[string]json.RawMessage, error) {
	if req.API != API || len(req.Settings) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(req.Settings, &set); err != nil || set == nil {
		return nil, fmt.Errorf("the request's settings are not a JSON object: %v", err)
	}
	for _, k := range Known {
		if k != "tools" {
			delete(set, k)
		}
	}
	return set, nil
}

// appendMembers adds members to the JSON object obj, in name order.
func appendMembers(obj []byte, members map[string]json.RawMessage) ([]byte, error) {
	if len(members) == 0 {
		return obj, nil
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := obj[: len(obj)-1 : len(obj)-1]
	for _, k := range keys {
		kb, _ := session.MarshalData(k)
		out = append(append(append(out, ','), kb...), ':')
		out = append(out, bytes.TrimSpace(members[k])...)
	}
	return append(out, '}'), nil
}

// EncodeMessages returns the API's conversation for msgs. Tool results
// (role tool, one result each) go back as tool_result blocks of a user
// message, and consecutive messages of one role become one message (the
// API joins them anyway), so the results of one answer and a text sent
// after them travel as the agent sent them: one user message, results
// first. A reasoning part goes back as the thinking or redacted_thinking
// block its meta says it was; one without (another API's reasoning, a
// playbook's) is left out, since the API refuses a thinking block it did
// not sign. Empty text and messages left empty are left out too. An
// image or file part is an error: the log holds its digest, not the
// block a model needs.
func EncodeMessages(msgs []session.Message) ([]Message, error) { return encodeMessages(msgs, nil, nil) }

// encodeMessages is EncodeMessages, each block that marks carries its
// cache_control, and each image or file part goes out as the agent's
// block in media.
func encodeMessages(msgs []session.Message, marks []Mark, media llm.Media) ([]Message, error) {
	var out []Message
	for i := range msgs {
		n := 0 // marks are in message order: message i's come first
		for n < len(marks) && marks[n].Message == i {
			n++
		}
		role, content, err := encodeMessage(msgs, i, marks[:n], media)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		marks = marks[n:]
		if len(content) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, content...)
			continue
		}
		out = append(out, Message{Role: role, Content: content})
	}
	if out == nil {
		out = []Message{}
	}
	return out, nil
}

// encodeMessage returns the role and blocks of msgs[i], each block of a
// part that marks names with its cache_control.
func encodeMessage(msgs []session.Message, i int, marks []Mark, media llm.Media) (string, Content, error) {
	m := &msgs[i]
	role := m.Role
	if role != session.RoleAssistant {
		role = session.RoleUser // tool results are the user's
	}
	var results, rest Content
	for j, p := range m.Content {
		var cc, inner json.RawMessage
		innerAt := 0 // the text part of a tool result's content inner marks
		for _, mk := range marks {
			switch {
			case mk.Inner:
				if p.Type == session.PartToolResult { // a tool message's one part
					inner, innerAt = mk.CacheControl, mk.Part
				}
			case mk.Part == j:
				cc = mk.CacheControl
			}
		}
		switch p.Type {
		case session.PartText:
			if p.Text != "" {
				rest = append(rest, Block{Type: TypeText, Text: p.Text, CacheControl: cc})
			}
		case session.PartReasoning:
			switch meta := MetaOf(p.Meta); {
			case meta.Data != "":
				rest = append(rest, Block{Type: TypeRedactedThinking, Data: meta.Data, CacheControl: cc})
			case meta.Signature != "":
				rest = append(rest, Block{Type: TypeThinking, Thinking: p.Text, Signature: meta.Signature, CacheControl: cc})
			}
		case session.PartToolCall:
			rest = append(rest, Block{Type: TypeToolUse, ID: p.ID, Name: p.Name, Input: toolInput(p.Arguments), CacheControl: cc})
		case session.PartImage, session.PartFile:
			b, err := mediaBlock(&p, llm.Place{Message: i, Part: j}, media)
			if err != nil {
				return "", nil, fmt.Errorf("content[%d]: %w", j, err)
			}
			rest = append(rest, b)
		case session.PartToolResult:
			content := Content{{Type: TypeText, Text: session.PartsText(p.Content), CacheControl: inner}}
			if hasMedia(p.Content) {
				var err error
				if content, err = mediaContent(p.Content, llm.Place{Message: i, Part: j}, media, inner, innerAt); err != nil {
					return "", nil, fmt.Errorf("content[%d].content%w", j, err)
				}
			}
			results = append(results, Block{Type: TypeToolResult, ToolUseID: p.ToolCallID,
				Content: content, IsError: p.IsError, CacheControl: cc})
		}
	}
	return role, append(results, rest...), nil
}

// mediaBlock is the agent's block in media for p, an image or file part:
// as sent, its cache_control too (no Mark notes one on such a block).
func mediaBlock(p *session.Part, at llm.Place, media llm.Media) (Block, error) {
	raw, err := media.Block(p, at)
	return Block{raw: raw}, err
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

// mediaContent is a tool result's content with images or files: a text
// block per text part, text part innerAt carrying inner (the breakpoint
// of the content's text), and the agent's block per image or file; the
// result is the part at.
func mediaContent(parts []session.Part, at llm.Place, media llm.Media, inner json.RawMessage, innerAt int) (Content, error) {
	out := make(Content, 0, len(parts))
	for k := range parts {
		switch p := &parts[k]; p.Type {
		case session.PartText:
			b := Block{Type: TypeText, Text: p.Text}
			if k == innerAt {
				b.CacheControl = inner
			}
			out = append(out, b)
		case session.PartImage, session.PartFile:
			b, err := mediaBlock(p, llm.Place{Message: at.Message, Part: at.Part, Inner: k + 1}, media)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", k, err)
			}
			out = append(out, b)
		}
	}
	return out, nil
}

// toolInput is a tool call's arguments as the input object the API
// wants: {} for none, or for arguments that are not a JSON object (a
// stream cut short).
func toolInput(args string) json.RawMessage {
	t := strings.TrimSpace(args)
	if !strings.HasPrefix(t, "{") || !json.Valid([]byte(t)) {
		return emptyObject
	}
	return json.RawMessage(t)
}
