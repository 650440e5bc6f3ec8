package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// API is the name of the Gemini API in llm.Request.API, request/header's
// api member and the key of what it hands out in session.Part.Meta.
const API = "gemini"

// The schema: the members of the generateContent API that agentsnap reads
// and writes, on both sides — the live driver writes a Request and reads
// Responses, the wire layer reads an agent's Request and writes Responses.

// Request is the body of POST .../models/{model}:generateContent (and
// :streamGenerateContent). The model and whether to stream are in the URL.
type Request struct {
	Contents          []Content `json:"contents"`
	SystemInstruction *Content  `json:"systemInstruction,omitempty"`
	Tools             []Tool    `json:"tools,omitempty"`
}

// Content is one turn of the conversation: role "user" (also the carrier
// of function responses) or "model".
type Content struct {
	Role  string `json:"role,omitempty"`
	Parts []Part `json:"parts"`
}

// Part is one piece of a content. Text is a pointer so that an empty text
// part (what carries a lone thought signature) stays apart from a part
// without text. The members agentsnap cannot record are kept raw, so a
// request that holds them is refused by name rather than read as less
// than it says.
type Part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`

	InlineData          json.RawMessage `json:"inlineData,omitempty"`
	FileData            json.RawMessage `json:"fileData,omitempty"`
	ExecutableCode      json.RawMessage `json:"executableCode,omitempty"`
	CodeExecutionResult json.RawMessage `json:"codeExecutionResult,omitempty"`
	ToolCall            json.RawMessage `json:"toolCall,omitempty"`
	ToolResponse        json.RawMessage `json:"toolResponse,omitempty"`
	// VideoMetadata is the clip of the video an inlineData or fileData
	// part holds that the model sees (recorded in its attachment).
	VideoMetadata json.RawMessage `json:"videoMetadata,omitempty"`
	// MediaResolution is the resolution the model sees an image or video
	// in: not recorded yet, so refused (read only to say so, rather than
	// drop it as an unknown member).
	MediaResolution json.RawMessage `json:"mediaResolution,omitempty"`
}

// clip is p's videoMetadata, nil when it says nothing (null, {}).
func (p *Part) clip() json.RawMessage {
	if !isSet(p.VideoMetadata) || emptyObject(p.VideoMetadata) {
		return nil
	}
	return p.VideoMetadata
}

// unsupported names the member of p agentsnap cannot record, or "".
func (p *Part) unsupported() string {
	for _, m := range []struct {
		name string
		raw  json.RawMessage
	}{
		{"inlineData", p.InlineData}, {"fileData", p.FileData}, {"executableCode", p.ExecutableCode},
		{"codeExecutionResult", p.CodeExecutionResult}, {"toolCall", p.ToolCall}, {"toolResponse", p.ToolResponse},
		{"videoMetadata", p.clip()}, // beside no inlineData or fileData, or in a model content
		{"mediaResolution", p.MediaResolution},
	} {
		if len(m.raw) > 0 && string(m.raw) != "null" {
			return m.name
		}
	}
	return ""
}

// FunctionCall is a tool call of the model. Args is a JSON object.
type FunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// FunctionResponse is a tool result, sent back in a user content.
// Response holds "output" or "error" (the documented keys); a response
// with neither is the output as a whole, and one with other members
// beside them is recorded whole (responseText).
type FunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
	Parts    json.RawMessage `json:"parts,omitempty"`
	// WillContinue and Scheduling are what a response to a non-blocking
	// function says of its call: more responses follow, and when the
	// model takes this one (SILENT, WHEN_IDLE, INTERRUPT). They are
	// recorded in the tool result's meta (resultMeta) as sent.
	WillContinue json.RawMessage `json:"willContinue,omitempty"`
	Scheduling   json.RawMessage `json:"scheduling,omitempty"`
}

// Tool is one entry of the request's tools. Only function declarations
// are agentsnap's tools; any other member (googleSearch, codeExecution, …)
// is a setting of the request.
type Tool struct {
	FunctionDeclarations []FunctionDeclaration `json:"functionDeclarations,omitempty"`
}

// FunctionDeclaration declares a function. Parameters is an OpenAPI schema
// (upper-case type names), ParametersJSONSchema a JSON Schema; a request
// sends at most one of them.
type FunctionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	Parameters           json.RawMessage `json:"parameters,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

// Response is a GenerateContentResponse: a whole answer, or one event of
// a streamed one.
type Response struct {
	Candidates     []Candidate     `json:"candidates,omitempty"`
	PromptFeedback *PromptFeedback `json:"promptFeedback,omitempty"`
	UsageMetadata  *UsageMetadata  `json:"usageMetadata,omitempty"`
	ModelVersion   string          `json:"modelVersion,omitempty"`
	ResponseID     string          `json:"responseId,omitempty"`
	Error          json.RawMessage `json:"error,omitempty"`
}

// Candidate is one answer of a response; agentsnap reads the first.
type Candidate struct {
	Content      *Content `json:"content,omitempty"`
	FinishReason string   `json:"finishReason,omitempty"`
	Index        int      `json:"index"`
}

// PromptFeedback says why a prompt was blocked.
type PromptFeedback struct {
	BlockReason string `json:"blockReason,omitempty"`
}

// UsageMetadata is the token accounting of a response. Thoughts are
// counted apart from the candidates; the cached tokens are part of the
// prompt's.
type UsageMetadata struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
	ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount,omitempty"`
	TotalTokenCount         int `json:"totalTokenCount"`
}

// session returns the usage in agentsnap's terms: output tokens include
// the thoughts (as OpenAI counts reasoning), reasoning tokens are the
// thoughts, cache reads the cached prompt tokens.
func (u *UsageMetadata) session() *session.Usage {
	out := &session.Usage{InputTokens: u.PromptTokenCount + u.ToolUsePromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount}
	if u.ThoughtsTokenCount > 0 {
		n := u.ThoughtsTokenCount
		out.ReasoningTokens = &n
	}
	if u.CachedContentTokenCount > 0 {
		n := u.CachedContentTokenCount
		out.CacheReadTokens = &n
	}
	return out
}

// usageMetadata is the inverse of UsageMetadata.session.
func usageMetadata(u *session.Usage) *UsageMetadata {
	out := &UsageMetadata{PromptTokenCount: u.InputTokens, CandidatesTokenCount: u.OutputTokens, TotalTokenCount: u.InputTokens + u.OutputTokens}
	if u.ReasoningTokens != nil && *u.ReasoningTokens <= u.OutputTokens {
		out.ThoughtsTokenCount = *u.ReasoningTokens
		out.CandidatesTokenCount -= *u.ReasoningTokens
	}
	if u.CacheReadTokens != nil {
		out.CachedContentTokenCount = *u.CacheReadTokens
	}
	return out
}

// APIError is the error object of an error body ({"error": …}) or of an
// error event in a stream. Code is the HTTP status, as an integer: the
// official SDKs parse it so.
type APIError struct {
	Code    int               `json:"code"`
	Message string            `json:"message"`
	Status  string            `json:"status"`
	Details []json.RawMessage `json:"details,omitempty"`
}

// pathRE matches a call's path: any prefix (the API version, a Vertex
// project), then models/{model} or tunedModels/{model}, and the method.
// It, countRE and version are compiled when first used: every agentsnap
// command loads this package, few of them call Gemini.
var pathRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`/(models|tunedModels)/([^/:]+):(generateContent|streamGenerateContent)$`)
})

// ParsePath reads a call's URL path: the model (as the API names it after
// models/, or tunedModels/NAME), and whether the method streams. ok is
// false for a path that is not a generateContent call.
func ParsePath(path string) (model string, stream, ok bool) {
	m := pathRE().FindStringSubmatch(path)
	if m == nil {
		return "", false, false
	}
	model = m[2]
	if m[1] == "tunedModels" {
		model = "tunedModels/" + model
	}
	return model, m[3] == "streamGenerateContent", true
}

// countRE matches the path of a token count (:countTokens).
var countRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/(models|tunedModels)/([^/:]+):countTokens$`) })

// ParseCountPath reads a token count's URL path as ParsePath reads a
// call's: the model. ok is false for a path that is not a countTokens.
func ParseCountPath(path string) (model string, ok bool) {
	m := countRE().FindStringSubmatch(path)
	if m == nil {
		return "", false
	}
	if m[1] == "tunedModels" {
		return "tunedModels/" + m[2], true
	}
	return m[2], true
}

// CountBody returns the request in a countTokens body: the body itself
// ({"contents": …}, what the SDKs send to the Gemini API), or its
// generateContentRequest without the model it names (which the URL
// names too), a generateContent body either way.
func CountBody(body []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	inner, ok := m["generateContentRequest"]
	if !ok {
		return body, nil
	}
	if len(m) > 1 {
		return nil, fmt.Errorf("a countTokens body has contents or generateContentRequest, not both")
	}
	var r map[string]json.RawMessage
	if err := json.Unmarshal(inner, &r); err != nil {
		return nil, fmt.Errorf("generateContentRequest: %w", err)
	}
	delete(r, "model")
	return json.Marshal(r)
}

// modelPath is the resource of model in a call's path: models/{model},
// unless model already names its collection (tunedModels/…).
func modelPath(model string) string {
	if strings.Contains(model, "/") {
		return model
	}
	return "models/" + model
}

// Signature returns the thought signature meta holds for this API, or "".
func Signature(meta json.RawMessage) string {
	if len(meta) == 0 {
		return ""
	}
	var m map[string]struct {
		ThoughtSignature string `json:"thoughtSignature"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	return m[API].ThoughtSignature
}

// Meta returns the meta of a part or block that came with signature, or
// nil when there is none.
func Meta(signature string) json.RawMessage {
	if signature == "" {
		return nil
	}
	// What json.Marshal writes of {API: {"thoughtSignature": signature}},
	// without a map built and reflected on for every part that has one.
	const head, tail = `{"` + API + `":{"thoughtSignature":`, `}}`
	b := append(make([]byte, 0, len(head)+len(signature)+len(tail)+2), head...)
	return append(jsonscan.AppendHTMLString(b, signature), tail...)
}

// canonicalJSON returns raw as JSON in one spelling — compact, object
// members in name order at every depth, numbers as written — so that
// arguments and schemas compare and digest the same however they were
// spaced or ordered. raw must be one JSON value (jsonscan.AppendCanonical).
func canonicalJSON(raw []byte) (string, error) {
	b, err := jsonscan.AppendCanonical(nil, raw)
	return string(b), err
}

// argsObject returns the arguments text of a tool call as the object
// functionCall.args wants: "" is {}; anything but an object is refused.
func argsObject(args string) (json.RawMessage, bool) {
	t := strings.TrimSpace(args)
	if t == "" {
		return json.RawMessage(`{}`), true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(t), &m) != nil || m == nil {
		return nil, false
	}
	return json.RawMessage(t), true
}

// argsText returns functionCall.args as the log's arguments text: the
// object in canonical form, {} when it is absent.
func argsText(args json.RawMessage) (string, bool) {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return "{}", true
	}
	if t[0] != '{' {
		return "", false
	}
	s, err := canonicalJSON(t)
	return s, err == nil
}

func ptr(s string) *string { return &s }
