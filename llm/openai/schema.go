package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// API is the name of the Chat Completions API in llm.Request.API and
// request/header's api member.
const API = "openai-chat"

// Request is the body of POST /chat/completions: the members agentsnap
// reads and writes itself. Every other member is a setting (see Known).
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
	Stream   bool      `json:"stream"`
	// StreamOptions only shapes a stream's framing ({"include_usage":
	// true} asks for the usage frame); it is kept as sent.
	StreamOptions json.RawMessage `json:"stream_options,omitempty"`
}

// Known are the members of a request that are not settings: the model,
// the conversation, the tools and the streaming switches.
var Known = []string{"model", "messages", "tools", "stream", "stream_options"}

// includeUsage is the stream_options the live driver sends.
var includeUsage = json.RawMessage(`{"include_usage":true}`)

// Message is one message of a request's conversation. Role is system,
// developer, user, assistant or tool.
type Message struct {
	Role string `json:"role"`
	// Content is a JSON string, an array of content parts (of which the
	// text parts count; see ContentText) or null — null only on an
	// assistant message that has tool calls and no text, the shape OpenAI
	// itself returns for such a message. A nil Content is written as null.
	Content json.RawMessage `json:"content"`
	// ReasoningContent is the reasoning of an assistant message, as
	// DeepSeek takes it back.
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"` // a tool message's call
}

// TextContent is the content of a message that says s: s as a JSON
// string, as encoding/json writes it without HTML escaping.
func TextContent(s string) json.RawMessage { return jsonscan.AppendStdString(nil, s) }

// ContentText reads a message's content: a string, or an array of parts
// of which the text parts count; null or nothing is "".
func ContentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		// A string without escapes, in UTF-8, is its bytes.
		if end, esc, err := jsonscan.SkipString(raw, 0); err == nil && !esc && end == len(raw) && utf8.Valid(raw[1:end-1]) {
			return string(raw[1 : end-1]), nil
		}
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

// contentPart is one element of a content array, as agentsnap reads it.
type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Refusal  string `json:"refusal"` // an assistant's refusal part: its text, as Responses reads it
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
	File *struct {
		FileData string `json:"file_data"`
		FileID   string `json:"file_id"`
		Filename string `json:"filename"`
	} `json:"file"`
}

// audioMissing says what an input_audio part whose input_audio member is
// there lacks — its data (else its format) — and what to do.
func audioMissing(data string) string {
	if strings.TrimSpace(data) == "" {
		return "an input_audio part whose input_audio.data is empty: give it the audio, base64-encoded, or leave the part out"
	}
	return "an input_audio part whose input_audio.format is empty: give it the audio's format (wav, mp3), or leave the part out"
}

// contentAt names the content of the request's messages[i], formatted
// only for an error: a request reads many messages.
func contentAt(i int) string { return fmt.Sprintf("messages[%d].content", i) }

// readContent reads a message's content as ContentText does, and when it
// holds images, audio or files, also its parts: the text between two of
// them one text part, each of them an image or file part (its block, as
// sent, in media). Any other part is an error, and so is one of these in
// a message of another role than user (role), named by its place in the
// request: messages[i].content. The parts are those of message at of the
// conversation read.
func readContent(raw json.RawMessage, i, at int, role string, media *llm.Media) (string, []session.Part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		text, err := ContentText(raw)
		return text, nil, err
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return "", nil, errors.New("want a string or an array of content parts")
	}
	var all, run strings.Builder
	var parts []session.Part
	for k, elem := range elems {
		var c contentPart
		if err := json.Unmarshal(elem, &c); err != nil {
			return "", nil, errors.New("want a string or an array of content parts")
		}
		var p session.Part
		var err error
		switch {
		case c.Type == "text":
			all.WriteString(c.Text)
			run.WriteString(c.Text)
			continue
		case c.Type == "refusal":
			all.WriteString(c.Refusal)
			run.WriteString(c.Refusal)
			continue
		case c.Type == "image_url" && (c.ImageURL == nil || c.ImageURL.URL == ""):
			// An image part without its image: the agent's mistake, not a
			// part agentsnap does not record.
			return "", nil, fmt.Errorf("%s[%d]: an image_url part whose URL is empty (image_url.url): give it the image's https: or data: URL, or leave the part out", contentAt(i), k)
		case c.Type == "image_url":
			p, err = llm.AttachURL(session.PartImage, "", "", c.ImageURL.URL)
		case c.Type == "input_audio" && c.InputAudio != nil && strings.TrimSpace(c.InputAudio.Data) != "" && c.InputAudio.Format != "":
			p, err = llm.AttachBase64(session.PartFile, "audio/"+c.InputAudio.Format, "", c.InputAudio.Data)
		case c.Type == "file" && c.File != nil && c.File.FileID != "":
			p = llm.AttachFile(session.PartFile, "", c.File.Filename, c.File.FileID)
		case c.Type == "file" && c.File != nil && strings.HasPrefix(c.File.FileData, "data:"):
			p, err = llm.AttachURL(session.PartFile, "", c.File.Filename, c.File.FileData)
		case c.Type == "file" && c.File != nil && c.File.FileData != "":
			p, err = llm.AttachBase64(session.PartFile, "", c.File.Filename, c.File.FileData)
		case c.Type == "file":
			return "", nil, fmt.Errorf("%s[%d]: a file part with neither file.file_id nor file.file_data: give it an uploaded file's id or the file's data, or leave the part out", contentAt(i), k)
		case c.Type == "input_audio" && c.InputAudio == nil:
			return "", nil, fmt.Errorf("%s[%d]: an input_audio part without its input_audio (data and format): give it the audio, or leave the part out", contentAt(i), k)
		case c.Type == "input_audio":
			// Recorded, it would be an empty attachment, or one of media
			// type "audio/".
			return "", nil, fmt.Errorf("%s[%d]: %s", contentAt(i), k, audioMissing(c.InputAudio.Data))
		default:
			return "", nil, llm.NotRecorded(fmt.Sprintf("%s[%d]", contentAt(i), k), c.Type)
		}
		if role != session.RoleUser {
			return "", nil, llm.NotRecorded(fmt.Sprintf("%s[%d] (in a %s message)", contentAt(i), k, role), c.Type)
		}
		if err != nil {
			return "", nil, fmt.Errorf("%s[%d]: %w", contentAt(i), k, err)
		}
		if run.Len() > 0 {
			parts = append(parts, session.TextPart(run.String()))
			run.Reset()
		}
		*media = media.Add(&p, llm.Place{Message: at, Part: len(parts)}, elem)
		parts = append(parts, p)
	}
	if parts != nil && run.Len() > 0 {
		parts = append(parts, session.TextPart(run.String()))
	}
	return all.String(), parts, nil
}

// ToolCall is a tool call of an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function a tool call calls, with its arguments
// as JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a tool the request offers the model.
type Tool struct {
	Type     string   `json:"type"` // "function"
	Function Function `json:"function"`
}

// Function is a function tool: its name, description and parameters (a
// JSON Schema).
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Chunk is one chat.completion.chunk of a streamed answer, the data of one
// server-sent event. A provider's error frame has Error (OpenAI, DeepSeek)
// or Object "error" (vLLM).
type Chunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"` // "chat.completion.chunk"
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []Choice        `json:"choices"`
	Usage   *Usage          `json:"usage,omitempty"` // the last frame's, when asked for
	Error   json.RawMessage `json:"error,omitempty"`
}

// Choice is one choice of a chunk; agentsnap asks for and serves one.
type Choice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"` // null until the last frame
}

// Delta is what a chunk adds to the answer.
type Delta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"` // DeepSeek
	Reasoning        *string         `json:"reasoning,omitempty"`         // newer vLLM and Ollama
	ToolCalls        []ToolCallDelta `json:"tool_calls,omitempty"`
}

// ToolCallDelta is a fragment of a tool call: Index says which call of
// the answer (some servers omit it), the first fragment usually carries
// the id and name.
type ToolCallDelta struct {
	Index    *int          `json:"index"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function FunctionDelta `json:"function"`
}

// FunctionDelta is what a fragment adds to a call's function.
type FunctionDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// Usage is the token accounting of an answer. Members are in name order,
// as agentsnap has always served them.
type Usage struct {
	CompletionTokens        int                      `json:"completion_tokens"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
	PromptCacheHitTokens    *int                     `json:"prompt_cache_hit_tokens,omitempty"` // DeepSeek
	PromptTokens            int                      `json:"prompt_tokens"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	TotalTokens             int                      `json:"total_tokens"`
}

// CompletionTokensDetails breaks the completion tokens down.
type CompletionTokensDetails struct {
	ReasoningTokens *int `json:"reasoning_tokens,omitempty"`
}

// PromptTokensDetails breaks the prompt tokens down.
type PromptTokensDetails struct {
	CachedTokens *int `json:"cached_tokens,omitempty"`
}

// Completion is a whole answer (a request without stream): a
// chat.completion. Its members, and those of its parts, are in name
// order, as agentsnap has always served them.
type Completion struct {
	Choices []CompletionChoice `json:"choices"`
	Created int64              `json:"created"`
	ID      string             `json:"id"`
	Model   string             `json:"model"`
	Object  string             `json:"object"` // "chat.completion"
	Usage   *Usage             `json:"usage,omitempty"`
}

// CompletionChoice is the one choice of a whole answer.
type CompletionChoice struct {
	FinishReason string        `json:"finish_reason"`
	Index        int           `json:"index"`
	Message      AnswerMessage `json:"message"`
}

// AnswerMessage is the assistant message of a whole answer. Content is
// null when the message has tool calls and no text.
type AnswerMessage struct {
	Content          *string          `json:"content"`
	ReasoningContent string           `json:"reasoning_content,omitempty"`
	Role             string           `json:"role"` // "assistant"
	ToolCalls        []AnswerToolCall `json:"tool_calls,omitempty"`
}

// AnswerToolCall is a tool call of a whole answer.
type AnswerToolCall struct {
	Function AnswerFunction `json:"function"`
	ID       string         `json:"id"`
	Type     string         `json:"type"` // "function"
}

// AnswerFunction is the function an answer's tool call calls.
type AnswerFunction struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

// ErrorBody is the body of an error answer, and the data of the error
// frame that ends a failed stream.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong. Code is the failure code (package
// live's, or the wire layer's); Type is agentsnap_error for a request the
// wire layer cannot serve, agentsnap_replay_error for a failed model call.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Type    string `json:"type"`
}
