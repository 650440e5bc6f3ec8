package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// MarshalData encodes v as compact JSON without HTML escaping, the encoding
// every payload in a log uses.
func MarshalData(v any) (json.RawMessage, error) {
	scratch := scratchPool.Get().(*[]byte)
	b, ok := appendPayload((*scratch)[:0], v)
	var out json.RawMessage
	if ok {
		// One exact-size copy instead of the growing buffer's steps.
		out = append(out, b...)
	}
	if cap(b) <= maxScratch {
		*scratch = b
		scratchPool.Put(scratch)
	}
	if ok {
		return out, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// SumData returns the sha256 of MarshalData(v), encoding v into a
// pooled buffer rather than a copy of its own.
func SumData(v any) ([sha256.Size]byte, error) {
	scratch := scratchPool.Get().(*[]byte)
	b, ok := appendPayload((*scratch)[:0], v)
	var sum [sha256.Size]byte
	if ok {
		sum = sha256.Sum256(b)
	}
	if cap(b) <= maxScratch {
		*scratch = b
		scratchPool.Put(scratch)
	}
	if ok {
		return sum, nil
	}
	data, err := MarshalData(v)
	if err != nil {
		return sum, err
	}
	return sha256.Sum256(data), nil
}

// AppendData appends v's payload as MarshalData encodes it, for the
// payload types encoded by hand (the runtime's own); ok is false, dst
// unchanged, for any other v.
func AppendData(dst []byte, v any) (out []byte, ok bool) { return appendPayload(dst, v) }

// scratchPool holds buffers MarshalData encodes into before copying the
// result out; a buffer grown past maxScratch is left to the collector.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

const maxScratch = 256 << 10

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Part types of message content.
const (
	PartText       = "text"
	PartReasoning  = "reasoning"
	PartToolCall   = "tool-call"
	PartToolResult = "tool-result"
	// PartImage and PartFile are what the agent attached: an image, or a
	// document, audio or other file. Their Attachment says which (a
	// digest of the bytes, never the bytes), dsh's image part's shape.
	PartImage = "image"
	PartFile  = "file"
)

// Attachment is the image or file of a part: the digest of its bytes
// and what a reader needs to tell one from another, never the bytes
// themselves. Bytes sent by reference have the reference instead of a
// digest (URL, FileID). Members are written in the order below, each
// only when set.
type Attachment struct {
	// ID is "sha256:" and the lower-case hex digest of the bytes.
	ID string `json:"attachmentId,omitempty"`
	// URL is where the agent said the model finds it (not a data: URL,
	// whose bytes are digested); FileID a file the API holds.
	URL       string `json:"url,omitempty"`
	FileID    string `json:"fileId,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	Bytes     int    `json:"bytes,omitempty"`
	// Width and Height are dsh's, kept when read; agentsnap writes none.
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	Name   string `json:"name,omitempty"`
	// VideoMetadata is the part of a video the model sees, as a Gemini
	// part's videoMetadata says it (startOffset, endOffset, fps), in
	// canonical JSON: another clip of the same video is another request.
	VideoMetadata json.RawMessage `json:"videoMetadata,omitempty"`
}

// Equal reports whether a and b say the same of one image or file,
// member by member (an Attachment holding a clip is not comparable by ==).
func (a *Attachment) Equal(b *Attachment) bool {
	return a.ID == b.ID && a.URL == b.URL && a.FileID == b.FileID && a.MediaType == b.MediaType && a.Bytes == b.Bytes &&
		a.Width == b.Width && a.Height == b.Height && a.Name == b.Name && bytes.Equal(a.VideoMetadata, b.VideoMetadata)
}

// Key is what tells this attachment from others in a request: its
// digest, else its URL or file id (with its name: two names of one file
// are two attachments).
func (a *Attachment) Key() string {
	var k string
	switch {
	case a.ID != "":
		k = a.ID + "|" + a.Name
	case a.URL != "":
		k = "url:" + a.URL + "|" + a.Name
	default:
		k = "file:" + a.FileID + "|" + a.Name
	}
	if a.VideoMetadata != nil { // another clip of one video is another attachment
		k += "|" + string(a.VideoMetadata)
	}
	return k
}

// Message is one conversation message, as recorded in user/message,
// assistant/message and tool/result events and as sent to a model.
type Message struct {
	Role    string `json:"role"`
	Content []Part `json:"content"`
	ID      string `json:"id,omitempty"`
}

// Text returns the concatenated text parts of m (reasoning excluded).
func (m *Message) Text() string { return PartsText(m.Content) }

// PartsText returns the text parts of parts joined (reasoning and every
// other part left out): a tool result's text as the model APIs send it
// back. The text of one text part is that part's text, not a copy — each
// request read asks it of every result.
func PartsText(parts []Part) string {
	n, size, one := 0, 0, ""
	for i := range parts {
		if parts[i].Type == PartText {
			n, size, one = n+1, size+len(parts[i].Text), parts[i].Text
		}
	}
	if n <= 1 {
		return one
	}
	var b strings.Builder
	b.Grow(size)
	for i := range parts {
		if parts[i].Type == PartText {
			b.WriteString(parts[i].Text)
		}
	}
	return b.String()
}

// ToolCalls returns the tool-call parts of m in order.
func (m *Message) ToolCalls() []Part {
	var out []Part
	for _, p := range m.Content {
		if p.Type == PartToolCall {
			out = append(out, p)
		}
	}
	return out
}

// LatestCallName is the name of the last tool call with id in msgs, and
// whether there is one: what a tool result for the call is named by. The
// call a result answers is most often in the message just before it, so
// the search goes from the end.
func LatestCallName(msgs []Message, id string) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != RoleAssistant {
			continue
		}
		parts := msgs[i].Content
		for j := len(parts) - 1; j >= 0; j-- {
			if p := &parts[j]; p.Type == PartToolCall && p.ID == id {
				return p.Name, true
			}
		}
	}
	return "", false
}

// Part is one piece of message content.
type Part struct {
	Type       string      // text, reasoning, tool-call, tool-result, image, file
	Text       string      // text, reasoning
	ID         string      // tool-call
	Name       string      // tool-call; tool-result: the tool called (optional)
	Arguments  string      // tool-call: the arguments as a JSON text
	ToolCallID string      // tool-result
	Content    []Part      // tool-result
	IsError    bool        // tool-result
	Attachment *Attachment // image, file
	// Meta is what a model API hands out with the part and wants back
	// verbatim in the next request — a thinking block's signature, an
	// encrypted reasoning item, an output item's id — as a JSON object
	// keyed by the API's name ({"anthropic-messages": {"signature": …}});
	// nil for most parts. It is written last, and only when set.
	Meta json.RawMessage
}

// MarshalJSON writes the members of the part's type in a fixed order.
func (p Part) MarshalJSON() ([]byte, error) { return appendPart(nil, &p), nil }

// UnmarshalJSON decodes a part of any type.
func (p *Part) UnmarshalJSON(b []byte) error {
	var w struct {
		Type       string          `json:"type"`
		Text       string          `json:"text"`
		ID         string          `json:"id"`
		Name       string          `json:"name"`
		Arguments  string          `json:"arguments"`
		ToolCallID string          `json:"toolCallId"`
		Content    []Part          `json:"content"`
		IsError    bool            `json:"isError"`
		Attachment *Attachment     `json:"attachment"`
		Meta       json.RawMessage `json:"meta"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if string(w.Meta) == "null" {
		w.Meta = nil
	}
	*p = Part(w)
	return nil
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Type: PartText, Text: s} }

// TurnStartData is the payload of turn/start.
type TurnStartData struct {
	Turn    int    `json:"turn"`
	Trigger string `json:"trigger,omitempty"` // "user" or "subagent"
}

// StepData is the payload of step/start and step/end.
type StepData struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// RequestHeaderData is the payload of request/header: what was sent to the
// model for one call, as digests and counts, so a changed prompt, tool set or
// conversation shows up at the exact call where it happens.
type RequestHeaderData struct {
	Turn         int      `json:"turn"`
	Step         int      `json:"step"`
	Attempt      int      `json:"attempt,omitempty"`
	Provider     string   `json:"provider"`
	Model        string   `json:"model"`
	SystemDigest string   `json:"systemDigest"`
	SystemChars  int      `json:"systemChars"`
	ToolsDigest  string   `json:"toolsDigest"`
	ToolCount    int      `json:"toolCount"`
	ToolNames    []string `json:"toolNames,omitempty"`
	// ToolDigests holds a short digest per tool, in the order of
	// ToolNames, so drift names the tool that changed. A log recorded
	// before headers held it has none.
	ToolDigests    []string `json:"toolDigests,omitempty"`
	MessagesDigest string   `json:"messagesDigest"`
	MessageCount   int      `json:"messageCount"`
	// MessageDigests holds a short digest per message sent, so drift names
	// the first message that differs.
	MessageDigests []string `json:"messageDigests,omitempty"`
	// API names the model API the request came in (the wire layer's
	// formats: "openai-chat", "openai-responses", "anthropic-messages",
	// "gemini"); "" for a runtime on llm.Driver.
	API string `json:"api,omitempty"`
	// Settings holds the request's settings as sent — temperature,
	// max_tokens, tool_choice, response_format, … in the API's own names —
	// as compact JSON with object members in name order; absent when the
	// request sets none.
	Settings json.RawMessage `json:"settings,omitempty"`
}

// HistoryReplaceData is the payload of history/replace: the conversation
// the next model call sends is not the one the log's messages make (an
// agent rewrote, reordered, split, merged, truncated or compacted its
// history). The conversation keeps its first Keep messages and goes on
// with Messages, as sent.
type HistoryReplaceData struct {
	Turn     int       `json:"turn"`
	Keep     int       `json:"keep"`
	Messages []Message `json:"messages"`
}

// AssistantMessageData is the payload of assistant/message.
type AssistantMessageData struct {
	Turn    int     `json:"turn"`
	Step    int     `json:"step"`
	Message Message `json:"message"`
	Usage   *Usage  `json:"usage,omitempty"`
}

// ToolCallData is the payload of tool/call.
type ToolCallData struct {
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	CallID    string `json:"callId"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolResultData is the payload of tool/result.
type ToolResultData struct {
	Turn    int     `json:"turn"`
	Step    int     `json:"step"`
	Message Message `json:"message"`
}

// Turn end kinds.
const (
	TurnCompleted   = "completed"
	TurnError       = "error"
	TurnAborted     = "aborted"
	TurnInterrupted = "interrupted"
)

// TurnEndData is the payload of turn/end.
type TurnEndData struct {
	Turn   int       `json:"turn"`
	Reason EndReason `json:"reason"`
}

// EndReason says how a turn ended.
type EndReason struct {
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
}

// TurnStep returns the turn and step an event's payload names, for the event
// types that carry them. ok is false when the payload has neither.
func TurnStep(e *Event) (turn, step int, ok bool) {
	if len(e.Data) == 0 || e.Data[0] != '{' {
		return 0, 0, false
	}
	var sawTurn bool
	_ = jsonscan.Members(e.Data, func(key []byte, _ bool, val []byte) error {
		switch string(key) {
		case "turn":
			n, err := jsonscan.Int(val)
			if err == nil {
				turn, sawTurn = int(n), true
			}
		case "step":
			n, err := jsonscan.Int(val)
			if err == nil {
				step = int(n)
			}
		}
		return nil
	})
	return turn, step, sawTurn
}

// NewEvent builds an event with the payload v encoded as its data.
func NewEvent(typ string, v any) (Event, error) {
	var data json.RawMessage
	switch x := v.(type) {
	case nil:
	case json.RawMessage:
		data = x
	case *ChunkData:
		data = x.AppendJSON(nil)
	default:
		var err error
		if data, err = MarshalData(v); err != nil {
			return Event{}, fmt.Errorf("session: encoding %s payload: %w", typ, err)
		}
	}
	return Event{Type: typ, Data: data}, nil
}
