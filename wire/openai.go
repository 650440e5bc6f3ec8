package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// ChatCompletions is OpenAI's Chat Completions format (POST
// .../chat/completions), streamed as server-sent events or answered whole,
// as the official SDKs (openai-go, the openai npm package) and every
// OpenAI-compatible server speak it. Reasoning goes out as
// reasoning_content, as DeepSeek sends it.
var ChatCompletions Format = chatCompletions{}

type chatCompletions struct{}

func (chatCompletions) Name() string { return "OpenAI Chat Completions (POST /v1/chat/completions)" }

func (chatCompletions) API() string { return "openai-chat" }

func (chatCompletions) Match(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
}

// ccRequest is the part of a Chat Completions request the handler reads.
type ccRequest struct {
	Model    string      `json:"model"`
	Messages []ccMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type ccMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, an array of parts, or null
	ToolCalls  []ccToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Reasoning  string          `json:"reasoning_content"`
}

type ccToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ccKnown are the request members the handler reads itself; every other
// member is a setting. stream_options only shapes the answer's framing.
var ccKnown = []string{"model", "messages", "tools", "stream", "stream_options"}

func (chatCompletions) DecodeRequest(_ *http.Request, body []byte) (*Request, error) {
	var in ccRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("the body is not a chat completions request: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, fmt.Errorf("the body is not a JSON object: %w", err)
	}
	set, err := settings(members, ccKnown...)
	if err != nil {
		return nil, fmt.Errorf("reading the request's settings: %w", err)
	}
	out := &Request{Model: in.Model, Stream: in.Stream, Settings: set}
	names := map[string]string{} // tool call id -> tool name, for the results
	var system []string
	for i, m := range in.Messages {
		text, err := contentText(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case session.RoleUser:
			out.Messages = append(out.Messages, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(text)}})
		case session.RoleAssistant:
			msg := session.Message{Role: session.RoleAssistant, Content: []session.Part{}}
			if m.Reasoning != "" {
				msg.Content = append(msg.Content, session.Part{Type: session.PartReasoning, Text: m.Reasoning})
			}
			if text != "" {
				msg.Content = append(msg.Content, session.TextPart(text))
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Function.Name
				msg.Content = append(msg.Content, session.Part{Type: session.PartToolCall, ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
			out.Messages = append(out.Messages, msg)
		case session.RoleTool:
			out.Messages = append(out.Messages, session.Message{Role: session.RoleTool, Content: []session.Part{{
				Type: session.PartToolResult, ToolCallID: m.ToolCallID, Name: names[m.ToolCallID],
				Content: []session.Part{session.TextPart(text)},
			}}})
		default:
			return nil, fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	out.System = strings.Join(system, "\n\n")
	for _, t := range in.Tools {
		out.Tools = append(out.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return out, nil
}

// contentText reads a message content: a string, or an array of parts of
// which the text parts count.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or an array of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// ccFrame is one chat.completion.chunk. created is 0 and the id fixed, so
// the bytes an agent reads are the same in every run.
type ccFrame struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int             `json:"created"`
	Model   string          `json:"model"`
	Choices []ccChoice      `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

type ccChoice struct {
	Index        int     `json:"index"`
	Delta        ccDelta `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type ccDelta struct {
	Role      string        `json:"role,omitempty"`
	Content   *string       `json:"content,omitempty"`
	Reasoning *string       `json:"reasoning_content,omitempty"`
	ToolCalls []ccDeltaCall `json:"tool_calls,omitempty"`
}

type ccDeltaCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

const frameID = "chatcmpl-agentsnap"

// ccCall is a tool call being streamed. Its deltas wait until its id is
// known, so the first one the agent reads carries it.
type ccCall struct {
	index      int // in tool_calls
	sentID     bool
	name, args string // held back until the id
}

// delta returns the tool_calls entry to send for a chunk of the call, if
// any yet.
func (c *ccCall) delta(id, name, args string) (ccDeltaCall, bool) {
	if !c.sentID && id == "" {
		c.name += name
		c.args += args
		return ccDeltaCall{}, false
	}
	dc := ccDeltaCall{Index: c.index, ID: id}
	if !c.sentID {
		dc.Type = "function"
		name, args = c.name+name, c.args+args
		c.sentID = true
	}
	if name != "" {
		dc.Type = "function"
	}
	dc.Function.Name, dc.Function.Arguments = name, args
	return dc, true
}

func (f chatCompletions) WriteStream(w http.ResponseWriter, req *Request, chunks iter.Seq[llm.Chunk]) error {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		flush()
		return nil
	}
	frame := func(d ccDelta, finish *string) ccFrame {
		return ccFrame{ID: frameID, Object: "chat.completion.chunk", Model: req.Model, Choices: []ccChoice{{Delta: d, FinishReason: finish}}}
	}
	calls := map[int]*ccCall{} // by block index
	var usage *session.Usage
	role := "assistant"
	for c := range chunks {
		var err error
		switch c.Type {
		case session.ChunkTextDelta:
			text := c.Text
			err = send(frame(ccDelta{Role: role, Content: &text}, nil))
			role = ""
		case session.ChunkReasoningDelta:
			text := c.Text
			err = send(frame(ccDelta{Role: role, Reasoning: &text}, nil))
			role = ""
		case session.ChunkToolCallDelta:
			tc := calls[c.Index]
			if tc == nil {
				tc = &ccCall{index: len(calls)}
				calls[c.Index] = tc
			}
			if dc, ok := tc.delta(c.ID, c.Name, c.ArgumentsDelta); ok {
				err = send(frame(ccDelta{Role: role, ToolCalls: []ccDeltaCall{dc}}, nil))
				role = ""
			}
		case session.ChunkBlockEnd:
			// A call whose deltas named no id (a recording from a server
			// that sends none) goes out whole here, with the id the log
			// gave it: the agent must name the same call as the log.
			if tc := calls[c.Index]; tc != nil && !tc.sentID && c.Block != nil && c.Block.Type == session.BlockToolCall {
				tc.name, tc.args = "", ""
				if dc, ok := tc.delta(c.Block.ID, c.Block.Name, c.Block.Arguments); ok {
					err = send(frame(ccDelta{Role: role, ToolCalls: []ccDeltaCall{dc}}, nil))
					role = ""
				}
			}
		case session.ChunkUsage:
			usage = c.Usage
		case session.ChunkFinish:
			return f.finish(w, send, frame, c.Reason, usage)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// finish writes the end of a stream: the finish_reason and the usage, or
// an error event for a failed call. An aborted call ends the stream
// without [DONE], as a connection that is cut does.
func (chatCompletions) finish(w http.ResponseWriter, send func(any) error, frame func(ccDelta, *string) ccFrame, r *session.FinishReason, usage *session.Usage) error {
	if r == nil {
		r = &session.FinishReason{Kind: session.FinishStop}
	}
	switch r.Kind {
	case session.FinishAborted:
		return nil
	case session.FinishError:
		code, msg := failure(r)
		return send(map[string]any{"error": map[string]any{"message": msg, "type": "agentsnap_replay_error", "code": code}})
	}
	reason := finishReason(r.Kind)
	if err := send(frame(ccDelta{}, &reason)); err != nil {
		return err
	}
	if usage != nil {
		u := ccFrame{ID: frameID, Object: "chat.completion.chunk", Model: "", Choices: []ccChoice{}, Usage: usageJSON(usage)}
		if err := send(u); err != nil {
			return err
		}
	}
	_, err := fmt.Fprint(w, "data: [DONE]\n\n")
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	return err
}

func finishReason(kind string) string {
	switch kind {
	case session.FinishToolCalls:
		return "tool_calls"
	case session.FinishMaxTokens:
		return "length"
	}
	return "stop"
}

func usageJSON(u *session.Usage) json.RawMessage {
	m := map[string]any{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens}
	if u.CacheReadTokens != nil {
		m["prompt_tokens_details"] = map[string]int{"cached_tokens": *u.CacheReadTokens}
	}
	if u.ReasoningTokens != nil {
		m["completion_tokens_details"] = map[string]int{"reasoning_tokens": *u.ReasoningTokens}
	}
	b, _ := json.Marshal(m)
	return b
}

func (f chatCompletions) WriteMessage(w http.ResponseWriter, req *Request, msg session.Message, usage *session.Usage, finish *session.FinishReason) error {
	if finish != nil && finish.Kind == session.FinishError {
		code, text := failure(finish)
		f.WriteError(w, statusFor(code), code, text)
		return nil
	}
	out := map[string]any{"role": "assistant", "content": nil}
	var text, reasoning strings.Builder
	var calls []map[string]any
	for _, p := range msg.Content {
		switch p.Type {
		case session.PartText:
			text.WriteString(p.Text)
		case session.PartReasoning:
			reasoning.WriteString(p.Text)
		case session.PartToolCall:
			calls = append(calls, map[string]any{"id": p.ID, "type": "function", "function": map[string]string{"name": p.Name, "arguments": p.Arguments}})
		}
	}
	if text.Len() > 0 || len(calls) == 0 {
		out["content"] = text.String()
	}
	if reasoning.Len() > 0 {
		out["reasoning_content"] = reasoning.String()
	}
	if len(calls) > 0 {
		out["tool_calls"] = calls
	}
	kind := session.FinishStop
	if finish != nil {
		kind = finish.Kind
	}
	body := map[string]any{
		"id": frameID, "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": out, "finish_reason": finishReason(kind)}},
	}
	if usage != nil {
		body["usage"] = usageJSON(usage)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	return json.NewEncoder(w).Encode(body)
}

func (chatCompletions) WriteError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": "agentsnap_error", "code": code}})
}

// failure returns the code and message of a failed call's finish.
func failure(r *session.FinishReason) (code, message string) {
	if r.Failure == nil {
		return "", "the model call failed"
	}
	return r.Failure.Code, r.Failure.Message
}

// statusFor maps a failure code to the HTTP status a provider would send.
func statusFor(code string) int {
	switch code {
	case "AUTH":
		return http.StatusUnauthorized
	case "RATE_LIMIT":
		return http.StatusTooManyRequests
	case "BAD_REQUEST":
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
