package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// API is the name of the Messages API in llm.Request.API, request/header's
// api member and the key of Part.Meta and Block.Meta.
const API = "anthropic-messages"

// Block types of the content this package reads and writes.
const (
	TypeText             = "text"
	TypeThinking         = "thinking"
	TypeRedactedThinking = "redacted_thinking"
	TypeToolUse          = "tool_use"
	TypeToolResult       = "tool_result"
	TypeImage            = "image"
	TypeDocument         = "document"
)

// Request is the body of POST /v1/messages: the members agentsnap reads
// and writes itself. Every other member is a setting (see Known).
type Request struct {
	Model     string          `json:"model"`
	MaxTokens json.RawMessage `json:"max_tokens,omitempty"`
	System    Content         `json:"system,omitempty"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools,omitempty"`
	Stream    bool            `json:"stream,omitempty"`
}

// Known are the members of a request that are not settings: the model,
// the system prompt, the conversation, the tools and the streaming switch.
var Known = []string{"model", "system", "messages", "tools", "stream"}

// Message is one message of a request's conversation.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Content is a message's content (or a system prompt, or a tool result's
// content): a list of blocks. It reads a JSON string as one text block
// and writes one text block as a string.
type Content []Block

// UnmarshalJSON reads a string or an array of blocks.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || jsonscan.IsNull(b):
		*c = nil
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Content{{Type: TypeText, Text: s}}
		return nil
	case b[0] != '[':
		return errors.New("want a string or an array of content blocks")
	}
	var blocks []Block
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	*c = blocks
	return nil
}

// MarshalJSON writes one text block as a string, anything else (a text
// block with a cache_control among it) as an array.
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c) == 1 && c[0].Type == TypeText && c[0].CacheControl == nil {
		return jsonscan.AppendString(nil, c[0].Text), nil
	}
	out := []byte{'['}
	for i := range c {
		if i > 0 {
			out = append(out, ',')
		}
		b, err := c[i].MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return append(out, ']'), nil
}

// Text is the text of the content's text blocks, joined. Content of one
// text block (every tool result sent as a string) is that block's text,
// not a copy: each request read whole asks it of each result.
func (c Content) Text() string {
	n, size, one := 0, 0, ""
	for _, blk := range c {
		if blk.Type == TypeText {
			n, size, one = n+1, size+len(blk.Text), blk.Text
		}
	}
	if n <= 1 {
		return one
	}
	var b strings.Builder
	b.Grow(size)
	for _, blk := range c {
		if blk.Type == TypeText {
			b.WriteString(blk.Text)
		}
	}
	return b.String()
}

// Block is one content block of any type the API knows; which members
// mean something depends on Type. It writes exactly the members of its
// type (a text block its text even when empty, a tool_use block its input
// even when {}); blocks of other types (images, server tools) are read,
// and ignored by this package.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`        // text
	Thinking  string          `json:"thinking"`    // thinking
	Signature string          `json:"signature"`   // thinking
	Data      string          `json:"data"`        // redacted_thinking
	ID        string          `json:"id"`          // tool_use
	Name      string          `json:"name"`        // tool_use
	Input     json.RawMessage `json:"input"`       // tool_use: a JSON object
	ToolUseID string          `json:"tool_use_id"` // tool_result
	Content   Content         `json:"content"`     // tool_result
	IsError   bool            `json:"is_error"`    // tool_result
	// CacheControl is the block's prompt cache breakpoint, as sent; any
	// type but thinking may have one.
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
	// raw is a block of a type but these (an image, a document) as sent,
	// and written as it is.
	raw json.RawMessage
}

// readsOwn reports whether Block holds every member of a block of typ;
// any other block keeps its bytes (raw).
func readsOwn(typ string) bool {
	switch typ {
	case TypeText, TypeThinking, TypeRedactedThinking, TypeToolUse, TypeToolResult:
		return true
	}
	return false
}

// UnmarshalJSON reads a block of any type. Only a tool_result block's
// content is read as Content: other blocks' content (a server tool's
// result, an error object) is not this package's.
func (b *Block) UnmarshalJSON(data []byte) error {
	type plain Block
	var w struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*b = Block(w.plain)
	if !readsOwn(b.Type) {
		b.raw = slices.Clone(json.RawMessage(bytes.TrimSpace(data)))
	}
	if b.Type != TypeToolResult {
		return nil
	}
	return b.Content.UnmarshalJSON(w.Content)
}

// emptyObject is a tool_use block's input when it has none.
var emptyObject = json.RawMessage(`{}`)

// MarshalJSON writes the members of the block's type, in the API's order,
// then its cache_control.
func (b Block) MarshalJSON() ([]byte, error) {
	if b.raw != nil {
		return b.raw, nil
	}
	out := append([]byte(`{"type":`), jsonscan.AppendString(nil, b.Type)...)
	str := func(name, v string) {
		out = append(out, `,"`+name+`":`...)
		out = jsonscan.AppendString(out, v)
	}
	switch b.Type {
	case TypeText:
		str("text", b.Text)
	case TypeThinking:
		str("thinking", b.Thinking)
		str("signature", b.Signature)
	case TypeRedactedThinking:
		str("data", b.Data)
	case TypeToolUse:
		str("id", b.ID)
		str("name", b.Name)
		input := b.Input
		if len(bytes.TrimSpace(input)) == 0 {
			input = emptyObject
		}
		var err error
		if out, err = jsonscan.AppendCompact(append(out, `,"input":`...), input); err != nil {
			return nil, err
		}
	case TypeToolResult:
		str("tool_use_id", b.ToolUseID)
		c, err := b.Content.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(append(out, `,"content":`...), c...)
		if b.IsError {
			out = append(out, `,"is_error":true`...)
		}
	}
	if b.CacheControl != nil {
		var err error
		if out, err = jsonscan.AppendCompact(append(out, `,"cache_control":`...), b.CacheControl); err != nil {
			return nil, err
		}
	}
	return append(out, '}'), nil
}

// Tool is a tool the request offers the model.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
	// CacheControl is the tool's prompt cache breakpoint, as sent.
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

// Response is a whole answer (a request without stream), and the message
// a stream's message_start carries.
type Response struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"` // "message"
	Role         string  `json:"role"` // "assistant"
	Content      []Block `json:"content"`
	Model        string  `json:"model"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        *Usage  `json:"usage"`
}

// Usage is the token accounting of an answer. Input tokens exclude the
// tokens read from or written to the prompt cache; message_delta's counts
// are totals for the whole answer.
type Usage struct {
	InputTokens              *int                 `json:"input_tokens,omitempty"`
	OutputTokens             *int                 `json:"output_tokens,omitempty"`
	CacheCreationInputTokens *int                 `json:"cache_creation_input_tokens,omitempty"`
	CacheReadInputTokens     *int                 `json:"cache_read_input_tokens,omitempty"`
	OutputTokensDetails      *OutputTokensDetails `json:"output_tokens_details,omitempty"`
}

// OutputTokensDetails breaks the output tokens down.
type OutputTokensDetails struct {
	ThinkingTokens *int `json:"thinking_tokens,omitempty"`
}

// Stream event types, each the event name of its server-sent event and
// the type member of its data.
const (
	EventMessageStart      = "message_start"
	EventContentBlockStart = "content_block_start"
	EventContentBlockDelta = "content_block_delta"
	EventContentBlockStop  = "content_block_stop"
	EventMessageDelta      = "message_delta"
	EventMessageStop       = "message_stop"
	EventPing              = "ping"
	EventError             = "error"
)

// Delta types of content_block_delta.
const (
	DeltaText      = "text_delta"
	DeltaInputJSON = "input_json_delta"
	DeltaThinking  = "thinking_delta"
	DeltaSignature = "signature_delta"
)

// Event is one event of a streamed answer; which members mean something
// depends on Type.
type Event struct {
	Type         string       `json:"type"`
	Message      *Response    `json:"message,omitempty"`       // message_start
	Index        *int         `json:"index,omitempty"`         // content_block_*
	ContentBlock *Block       `json:"content_block,omitempty"` // content_block_start
	Delta        *Delta       `json:"delta,omitempty"`         // content_block_delta, message_delta
	Usage        *Usage       `json:"usage,omitempty"`         // message_delta
	Error        *ErrorDetail `json:"error,omitempty"`         // error
}

// Delta is what a content_block_delta adds to its block, or what a
// message_delta says about the whole answer.
type Delta struct {
	Type        string `json:"type,omitempty"`
	Text        string `json:"text,omitempty"`         // text_delta
	PartialJSON string `json:"partial_json,omitempty"` // input_json_delta
	Thinking    string `json:"thinking,omitempty"`     // thinking_delta
	Signature   string `json:"signature,omitempty"`    // signature_delta
	// StopReason and StopSequence are message_delta's; null is written
	// as such.
	StopReason   json.RawMessage `json:"stop_reason,omitempty"`
	StopSequence json.RawMessage `json:"stop_sequence,omitempty"`
}

// ErrorBody is the body of an error answer, and the data of an error event.
type ErrorBody struct {
	Type  string      `json:"type"` // "error"
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong: Type is the API's kind of error
// (invalid_request_error, authentication_error, rate_limit_error,
// overloaded_error, api_error, …).
type ErrorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Meta is what the API hands out with a block and wants back verbatim: a
// thinking block's signature, a redacted_thinking block's data. It
// travels in session.Part.Meta and session.Block.Meta under the key API.
type Meta struct {
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
}

// JSON returns m as a Part.Meta / Block.Meta value, or nil when m is empty.
func (m Meta) JSON() json.RawMessage {
	if m == (Meta{}) {
		return nil
	}
	// What json.Marshal writes of map[string]Meta{API: m}, without a map
	// built and reflected on for every block that has one.
	const head = `{"` + API + `":{`
	b := append(make([]byte, 0, len(head)+len(m.Signature)+len(m.Data)+24), head...)
	if m.Signature != "" {
		b = jsonscan.AppendHTMLString(append(b, `"signature":`...), m.Signature)
	}
	if m.Data != "" {
		if m.Signature != "" {
			b = append(b, ',')
		}
		b = jsonscan.AppendHTMLString(append(b, `"data":`...), m.Data)
	}
	return append(b, "}}"...)
}

// MetaOf reads this API's meta out of a Part.Meta / Block.Meta value; a
// value without it (or not JSON) is the empty Meta.
func MetaOf(raw json.RawMessage) Meta {
	if len(raw) == 0 {
		return Meta{} // most blocks have none: returning before all and m keeps them off the heap
	}
	var all map[string]json.RawMessage
	var m Meta
	if json.Unmarshal(raw, &all) != nil || json.Unmarshal(all[API], &m) != nil {
		return Meta{}
	}
	return m
}
