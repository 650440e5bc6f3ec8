package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Call is an agent's request in agentsnap's terms, as the wire layer
// records it.
type Call struct {
	Model string
	// System is the system prompt: a string, or the text of its blocks
	// joined by blank lines.
	System string
	// Messages is the conversation, one message per tool result (see
	// DecodeRequest).
	Messages []session.Message
	Tools    []llm.ToolSpec
	Stream   bool
	// Members is every member of the request object as sent; all but
	// Known are its settings.
	Members map[string]json.RawMessage
	// Cache is where the request's cache_control members were, by what
	// they mark in these terms; nil when it has none.
	Cache *Cache
}

// DecodeRequest reads the body of an agent's POST /v1/messages.
//
// A user message's tool_result blocks are the results of the calls of the
// answer before it, not a new user turn: each becomes a message of role
// tool with one tool-result part (named after the tool_use block that made
// the call, its is_error kept), and the message's other text, if any,
// a user message after them. A thinking block becomes a reasoning part
// and a redacted_thinking block an empty one, each with its signature or
// data in Part.Meta, so it goes back to a live model as it came. Blocks
// without text in them (images, documents, server tools) are left out.
func DecodeRequest(body []byte) (*Call, error) {
	if call, ok := fastRequest(body); ok {
		return call, nil
	}
	return decodeStd(body)
}

// decodeStd is DecodeRequest with encoding/json: what fastRequest reads as
// it does, and every body fastRequest leaves to it.
func decodeStd(body []byte) (*Call, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		if err == nil {
			err = errors.New("it is null") // no error of its own to name
		}
		return nil, fmt.Errorf("the body is not a JSON object: %v", err)
	}
	var top struct {
		Model    string            `json:"model"`
		System   Content           `json:"system"`
		Messages []json.RawMessage `json:"messages"`
		Tools    []Tool            `json:"tools"`
		Stream   bool              `json:"stream"`
	}
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("the body is not an Anthropic Messages request: %w", err)
	}
	call := &Call{Model: top.Model, Stream: top.Stream, Members: members}
	var err error
	if call.System, err = systemText(top.System); err != nil {
		return nil, err
	}
	names := map[string]string{} // tool_use id -> tool name, for the results
	var marks []Mark
	for i, raw := range top.Messages {
		var m Message
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		msgs, err := decodeMessage(&m, names, len(call.Messages), &marks)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]%w", i, err)
		}
		call.Messages = append(call.Messages, msgs...)
	}
	var toolCache []json.RawMessage
	for i, t := range top.Tools {
		if t.Name == "" {
			return nil, fmt.Errorf("tools[%d]: a tool needs a name", i)
		}
		call.Tools = append(call.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
		toolCache = markTool(toolCache, i, len(top.Tools), t.CacheControl)
	}
	call.Cache = newCache(top.System, toolCache, marks)
	return call, nil
}

// markTool returns the tools' cache_controls (nil until one has one) with
// tool i of n's, cc.
func markTool(tools []json.RawMessage, i, n int, cc json.RawMessage) []json.RawMessage {
	if cc == nil {
		return tools
	}
	if tools == nil {
		tools = make([]json.RawMessage, n)
	}
	tools[i] = cc
	return tools
}

// systemText is the system prompt's text: the API takes text blocks only.
func systemText(c Content) (string, error) {
	var s string
	for i, b := range c {
		if b.Type != TypeText {
			return "", fmt.Errorf("system[%d]: a %q block; the system prompt holds text blocks only", i, b.Type)
		}
		if i > 0 {
			s += "\n\n"
		}
		s += b.Text
	}
	return s, nil
}

// decodeMessage returns the messages m stands for, the first of them
// message at of the request's conversation, and adds to marks the
// cache_control of each block that became a part. Errors start with the
// path inside m (".content[2]: ...").
func decodeMessage(m *Message, names map[string]string, at int, marks *[]Mark) ([]session.Message, error) {
	switch m.Role {
	case session.RoleUser:
		return decodeUser(m.Content, names, at, marks)
	case session.RoleAssistant:
		msg, err := decodeAssistant(m.Content, names, at, marks)
		return []session.Message{msg}, err
	}
	return nil, fmt.Errorf(".role: %q; want user or assistant (the system prompt is the request's system member)", m.Role)
}

func decodeUser(c Content, names map[string]string, at int, marks *[]Mark) ([]session.Message, error) {
	var out []session.Message
	user := session.Message{Role: session.RoleUser, Content: []session.Part{}}
	var texts []Mark // the user message's, which comes after the results
	for i, b := range c {
		switch b.Type {
		case TypeText:
			if b.CacheControl != nil {
				texts = append(texts, Mark{Part: len(user.Content), CacheControl: b.CacheControl})
			}
			user.Content = append(user.Content, session.TextPart(b.Text))
		case TypeToolResult:
			if b.ToolUseID == "" {
				return nil, fmt.Errorf(".content[%d]: a tool_result block needs its tool_use_id", i)
			}
			if b.CacheControl != nil {
				*marks = append(*marks, Mark{Message: at + len(out), CacheControl: b.CacheControl})
			}
			if cc := innerCache(b.Content); cc != nil {
				*marks = append(*marks, Mark{Message: at + len(out), Inner: true, CacheControl: cc})
			}
			out = append(out, session.Message{Role: session.RoleTool, Content: []session.Part{{
				Type: session.PartToolResult, ToolCallID: b.ToolUseID, Name: names[b.ToolUseID],
				Content: []session.Part{session.TextPart(b.Content.Text())}, IsError: b.IsError,
			}}})
		}
	}
	if len(out) == 0 || len(user.Content) > 0 {
		for _, t := range texts {
			t.Message = at + len(out)
			*marks = append(*marks, t)
		}
		out = append(out, user)
	}
	return out, nil
}

func decodeAssistant(c Content, names map[string]string, at int, marks *[]Mark) (session.Message, error) {
	msg := session.Message{Role: session.RoleAssistant, Content: []session.Part{}}
	for i, b := range c {
		switch b.Type {
		case TypeText:
			msg.Content = append(msg.Content, session.TextPart(b.Text))
		case TypeThinking:
			msg.Content = append(msg.Content, session.Part{Type: session.PartReasoning, Text: b.Thinking, Meta: Meta{Signature: b.Signature}.JSON()})
		case TypeRedactedThinking:
			msg.Content = append(msg.Content, session.Part{Type: session.PartReasoning, Meta: Meta{Data: b.Data}.JSON()})
		case TypeToolUse:
			args, err := inputArguments(b.Input)
			if err != nil || b.ID == "" || b.Name == "" {
				return msg, fmt.Errorf(".content[%d]: a tool_use block needs an id, a name and an input object%s", i, errText(err))
			}
			names[b.ID] = b.Name
			msg.Content = append(msg.Content, session.Part{Type: session.PartToolCall, ID: b.ID, Name: b.Name, Arguments: args})
		default:
			continue // a block without a part: its breakpoint has nothing to mark
		}
		if b.CacheControl != nil {
			*marks = append(*marks, Mark{Message: at, Part: len(msg.Content) - 1, CacheControl: b.CacheControl})
		}
	}
	return msg, nil
}

// inputArguments is a tool_use input as the call's arguments: compact JSON.
func inputArguments(input json.RawMessage) (string, error) {
	s := compact(input)
	switch {
	case s == "":
		return "{}", nil
	case s[0] != '{':
		return "", errors.New("the input is not a JSON object")
	}
	return s, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}
