package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
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
	// ToolsSetting is the tools as sent, each without its cache_control,
	// when one of them says more than Tools and Cache hold
	// (eager_input_streaming, strict, a server tool, …); nil otherwise. It
	// is a setting, "tools": a live model of this API gets the tools as
	// the agent sent them, and a change is drift.
	ToolsSetting json.RawMessage
	Stream       bool
	// Members is every member of the request object as sent; all but
	// Known are its settings.
	Members map[string]json.RawMessage
	// Cache is where the request's cache_control members were, by what
	// they mark in these terms; nil when it has none.
	Cache *Cache
	// Media is the agent's own block for each image and file part of
	// Messages (Forward.Media); nil when there are none.
	Media llm.Media
}

// DecodeRequest reads the body of an agent's POST /v1/messages.
//
// A user message's tool_result blocks are the results of the calls of the
// answer before it, not a new user turn: each becomes a message of role
// tool with one tool-result part (named after the tool_use block that made
// the call, its is_error kept), and the message's other text, if any,
// a user message after them. A thinking block becomes a reasoning part
// and a redacted_thinking block an empty one, each with its signature or
// data in Part.Meta, so it goes back to a live model as it came. An image
// or document block, in a user message or a tool result's content, is an
// image or file part (see session.Attachment), its block kept in Media
// for a live model; a tool result's text around them is a text part
// each. Any other block (a server tool's, a search result) is an error:
// agentsnap does not record it yet, and does not drop it. A tool that
// says more than a name, a description, an input_schema and a
// cache_control makes the tools a setting (ToolsSetting).
func DecodeRequest(body []byte) (*Call, error) {
	call, ok := fastRequest(body)
	if !ok {
		var err error
		if call, err = decodeStd(body); err != nil {
			return nil, err
		}
	}
	set, err := toolsSetting(call.Members["tools"])
	if err != nil {
		return nil, err
	}
	call.ToolsSetting = set
	return call, nil
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
		Model    string       `json:"model"`
		System   Content      `json:"system"`
		Messages []rawMessage `json:"messages"`
		Tools    []Tool       `json:"tools"`
		Stream   bool         `json:"stream"`
	}
	if err := json.Unmarshal(body, &top); err != nil {
		if shape := jsonscan.TypeError(body, "", err); shape != nil {
			return nil, shape
		}
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
		if err := json.Unmarshal(raw.RawMessage, &m); err != nil {
			if shape := jsonscan.TypeError(raw.RawMessage, fmt.Sprintf("messages[%d]", i), err); shape != nil {
				return nil, shape
			}
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		msgs, err := decodeMessage(&m, names, len(call.Messages), &marks, &call.Media)
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

// rawMessage is one element of messages, kept whole to be read on its
// own, so an error names its index. A struct, not a json.RawMessage, so a
// messages member of another kind is worded "send an array of message
// objects" (jsonscan.TypeError names an array's elements by their Go
// kind); the embedded RawMessage's UnmarshalJSON keeps the bytes.
type rawMessage struct{ json.RawMessage }

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
func decodeMessage(m *Message, names map[string]string, at int, marks *[]Mark, media *llm.Media) ([]session.Message, error) {
	switch m.Role {
	case session.RoleUser:
		return decodeUser(m.Content, names, at, marks, media)
	case session.RoleAssistant:
		msg, err := decodeAssistant(m.Content, names, at, marks)
		return []session.Message{msg}, err
	}
	return nil, fmt.Errorf(".role: %q; want user or assistant (the system prompt is the request's system member)", m.Role)
}

func decodeUser(c Content, names map[string]string, at int, marks *[]Mark, media *llm.Media) ([]session.Message, error) {
	var out []session.Message
	user := session.Message{Role: session.RoleUser, Content: []session.Part{}}
	var texts []Mark // the user message's, which comes after the results
	var images []int // the indexes in c of the user message's images and files, in its parts' order
	for i, b := range c {
		switch b.Type {
		case TypeText:
			if b.CacheControl != nil {
				texts = append(texts, Mark{Part: len(user.Content), CacheControl: b.CacheControl})
			}
			user.Content = append(user.Content, session.TextPart(b.Text))
		case TypeImage, TypeDocument:
			p, err := mediaPart(&c[i], fmt.Sprintf(".content[%d]", i))
			if err != nil {
				return nil, err
			}
			images = append(images, i)
			user.Content = append(user.Content, p)
		case TypeToolResult:
			if b.ToolUseID == "" {
				return nil, fmt.Errorf(".content[%d]: a tool_result block needs its tool_use_id", i)
			}
			if b.CacheControl != nil {
				*marks = append(*marks, Mark{Message: at + len(out), CacheControl: b.CacheControl})
			}
			content, inner, err := resultContent(b.Content, i, at+len(out), media)
			if err != nil {
				return nil, err
			}
			if inner.CacheControl != nil {
				inner.Message = at + len(out)
				*marks = append(*marks, inner)
			}
			out = append(out, session.Message{Role: session.RoleTool, Content: []session.Part{{
				Type: session.PartToolResult, ToolCallID: b.ToolUseID, Name: names[b.ToolUseID],
				Content: content, IsError: b.IsError,
			}}})
		default:
			return nil, llm.NotRecorded(fmt.Sprintf(".content[%d]", i), b.Type)
		}
	}
	if len(out) == 0 || len(user.Content) > 0 {
		for _, t := range texts {
			t.Message = at + len(out)
			*marks = append(*marks, t)
		}
		k := 0
		for j := range user.Content {
			if p := &user.Content[j]; p.Attachment != nil {
				*media = media.Add(p, llm.Place{Message: at + len(out), Part: j}, c[images[k]].raw)
				k++
			}
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
			return msg, llm.NotRecorded(fmt.Sprintf(".content[%d] (in an assistant message)", i), b.Type)
		}
		if b.CacheControl != nil {
			*marks = append(*marks, Mark{Message: at, Part: len(msg.Content) - 1, CacheControl: b.CacheControl})
		}
	}
	return msg, nil
}

// resultContent is a tool result's content as parts: its text in one
// part, or, when it holds images or documents, the text between them a
// part each and an image or file part for each of them; and the Inner
// mark of its last text block with a cache_control (its Message to be
// set), or none. Any other block is an error; the result is block i of
// its message and message at of the conversation, in its first part; its
// images' and files' blocks go into media. A result of text alone (every
// result of most agents) costs no allocation here: its place is
// formatted for an error only, its text joined by Content.Text.
func resultContent(c Content, i, at int, media *llm.Media) ([]session.Part, Mark, error) {
	var parts []session.Part
	inner := Mark{Inner: true}
	run := 0 // the first block of the text not yet in parts
	for k := range c {
		switch b := &c[k]; b.Type {
		case TypeText:
			if b.CacheControl != nil {
				inner.Part, inner.CacheControl = len(parts), b.CacheControl // the part this run becomes
			}
		case TypeImage, TypeDocument:
			p, err := mediaPart(b, fmt.Sprintf(".content[%d].content[%d]", i, k))
			if err != nil {
				return nil, inner, err
			}
			if text := c[run:k].Text(); text != "" {
				parts = append(parts, session.TextPart(text))
			}
			run = k + 1
			*media = media.Add(&p, llm.Place{Message: at, Inner: len(parts) + 1}, b.raw)
			parts = append(parts, p)
		default:
			return nil, inner, llm.NotRecorded(fmt.Sprintf(".content[%d].content[%d]", i, k), b.Type)
		}
	}
	if parts == nil {
		return []session.Part{session.TextPart(c.Text())}, inner, nil
	}
	if text := c[run:].Text(); text != "" {
		parts = append(parts, session.TextPart(text))
	}
	return parts, inner, nil
}

// mediaPart is the image or file part of b, an image or document block;
// where is b's place, for the error.
func mediaPart(b *Block, where string) (session.Part, error) {
	var w struct {
		Source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
			URL       string `json:"url"`
			FileID    string `json:"file_id"`
		} `json:"source"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(b.raw, &w); err != nil {
		if shape := jsonscan.TypeError(b.raw, where, err); shape != nil {
			return session.Part{}, shape
		}
		return session.Part{}, fmt.Errorf("%s: %w", where, err)
	}
	kind := session.PartImage
	if b.Type == TypeDocument {
		kind = session.PartFile
	}
	src := &w.Source
	var p session.Part
	var err error
	switch src.Type {
	case "base64":
		p, err = llm.AttachBase64(kind, src.MediaType, w.Title, src.Data)
	case "text":
		p = llm.Attach(kind, src.MediaType, w.Title, []byte(src.Data))
	case "url":
		p, err = llm.AttachURL(kind, "", w.Title, src.URL)
	case "file":
		p = llm.AttachFile(kind, "", w.Title, src.FileID)
	default:
		return session.Part{}, llm.NotRecorded(where, fmt.Sprintf("%s with a %q source", b.Type, src.Type))
	}
	if err != nil {
		return session.Part{}, fmt.Errorf("%s: %w", where, err)
	}
	return p, nil
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
