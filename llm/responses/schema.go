package responses

import (
	"encoding/json"
)

// API is the name of the Responses API in llm.Request.API and in
// request/header's api member, and the key of its part and block meta.
const API = "openai-responses"

// Request is the body of POST /responses, the members agentsnap reads or
// writes itself. Every other member of an agent's request is a setting.
type Request struct {
	Model        string `json:"model"`
	Instructions string `json:"instructions,omitempty"`
	// Input is a string (one user message) or an array of Items.
	Input              json.RawMessage `json:"input,omitempty"`
	Tools              []Tool          `json:"tools,omitempty"`
	Stream             bool            `json:"stream,omitempty"`
	Store              *bool           `json:"store,omitempty"`
	PreviousResponseID string          `json:"previous_response_id,omitempty"`
}

// transport are the request members that are not settings: what the
// request says itself (model, input, system prompt, tools), how it is
// framed (stream, stream_options) and where its state lives (store,
// previous_response_id, conversation).
var transport = [...]string{
	tModel: "model", tInput: "input", tInstructions: "instructions", tTools: "tools", tStream: "stream",
	tStreamOptions: "stream_options", tStore: "store", tPrevious: "previous_response_id", tConversation: "conversation",
}

// The indexes of transport's members, for fastRead.
const (
	tModel = iota
	tInput
	tInstructions
	tTools
	tStream
	tStreamOptions
	tStore
	tPrevious
	tConversation
)

// Item is one input or output item: a message (a user message may come
// without a type), a function call, its output, a reasoning item, or a
// reference to an earlier item. Members of other item types are not read.
type Item struct {
	Type   string `json:"type,omitempty"`
	ID     string `json:"id,omitempty"`
	Status string `json:"status,omitempty"`
	Role   string `json:"role,omitempty"`
	// Phase marks an assistant message as commentary or the final answer
	// (models that say so want it back).
	Phase string `json:"phase,omitempty"`
	// Content is a message's content, a string or an array of Parts; a
	// reasoning item's reasoning_text parts.
	Content   json.RawMessage `json:"content,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments *string         `json:"arguments,omitempty"`
	// Output is a function_call_output's result, a string or an array of
	// input parts.
	Output           json.RawMessage `json:"output,omitempty"`
	Summary          []Part          `json:"summary,omitzero"`
	EncryptedContent *string         `json:"encrypted_content,omitempty"`
}

// Item types.
const (
	ItemMessage            = "message"
	ItemFunctionCall       = "function_call"
	ItemFunctionCallOutput = "function_call_output"
	ItemReasoning          = "reasoning"
	ItemReference          = "item_reference"
)

// Part is a content part (input_text, output_text, refusal, …), a
// reasoning summary part (summary_text) or a reasoning_text part.
type Part struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal,omitempty"`
	// Annotations is [] on the output_text parts agentsnap writes.
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// Tool is one entry of a request's tools. agentsnap serves function tools;
// others are kept as the agent sent them (see the package doc).
type Tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// Response is a response object: what a whole answer is, and what
// response.created, .completed, .incomplete and .failed carry.
type Response struct {
	ID                 string      `json:"id"`
	Object             string      `json:"object"`
	CreatedAt          int64       `json:"created_at"`
	Status             string      `json:"status"`
	Error              *Error      `json:"error"`
	IncompleteDetails  *Incomplete `json:"incomplete_details"`
	Instructions       *string     `json:"instructions"`
	Model              string      `json:"model"`
	Output             []Item      `json:"output"`
	PreviousResponseID *string     `json:"previous_response_id"`
	Tools              []Tool      `json:"tools"`
	Usage              *Usage      `json:"usage"`
}

// Response statuses.
const (
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusIncomplete = "incomplete"
	StatusFailed     = "failed"
)

// Incomplete says why a response stopped short.
type Incomplete struct {
	Reason string `json:"reason"`
}

// Usage is a response's token accounting.
type Usage struct {
	InputTokens         int           `json:"input_tokens"`
	InputTokensDetails  *InputDetails `json:"input_tokens_details,omitempty"`
	OutputTokens        int           `json:"output_tokens"`
	OutputTokensDetails *OutputDetail `json:"output_tokens_details,omitempty"`
	TotalTokens         int           `json:"total_tokens"`
}

// InputDetails is the cached part of the input tokens.
type InputDetails struct {
	CachedTokens *int `json:"cached_tokens"`
}

// OutputDetail is the reasoning part of the output tokens.
type OutputDetail struct {
	ReasoningTokens *int `json:"reasoning_tokens"`
}

// Error is an error object: of an error body ({"error": …}), of an error
// event, or of a failed response.
type Error struct {
	Type    string          `json:"type,omitempty"`
	Code    string          `json:"code,omitempty"`
	Message string          `json:"message"`
	Param   json.RawMessage `json:"param,omitempty"`
}

// ErrorBody is the body of an HTTP error answer.
type ErrorBody struct {
	Error Error `json:"error"`
}

// Event is one server-sent event of a streamed response; which members it
// has depends on Type. The same type serves the server that writes events
// and the client that reads them.
type Event struct {
	Type           string          `json:"type"`
	SequenceNumber int             `json:"sequence_number"`
	Response       *Response       `json:"response,omitempty"`
	OutputIndex    *int            `json:"output_index,omitempty"`
	Item           *Item           `json:"item,omitempty"`
	ItemID         string          `json:"item_id,omitempty"`
	ContentIndex   *int            `json:"content_index,omitempty"`
	SummaryIndex   *int            `json:"summary_index,omitempty"`
	Part           *Part           `json:"part,omitempty"`
	Delta          *string         `json:"delta,omitempty"`
	Text           *string         `json:"text,omitempty"`
	Arguments      *string         `json:"arguments,omitempty"`
	Logprobs       json.RawMessage `json:"logprobs,omitempty"`
	// An error event: the documented members, and the error object OpenAI
	// sends nested (which openai-go's stream turns into its error).
	Code    *string         `json:"code,omitempty"`
	Message *string         `json:"message,omitempty"`
	Param   json.RawMessage `json:"param,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Event types agentsnap writes and reads.
const (
	EventCreated          = "response.created"
	EventInProgress       = "response.in_progress"
	EventCompleted        = "response.completed"
	EventIncomplete       = "response.incomplete"
	EventFailed           = "response.failed"
	EventItemAdded        = "response.output_item.added"
	EventItemDone         = "response.output_item.done"
	EventPartAdded        = "response.content_part.added"
	EventPartDone         = "response.content_part.done"
	EventTextDelta        = "response.output_text.delta"
	EventTextDone         = "response.output_text.done"
	EventRefusalDelta     = "response.refusal.delta"
	EventArgsDelta        = "response.function_call_arguments.delta"
	EventArgsDone         = "response.function_call_arguments.done"
	EventSummaryPartAdded = "response.reasoning_summary_part.added"
	EventSummaryPartDone  = "response.reasoning_summary_part.done"
	EventSummaryDelta     = "response.reasoning_summary_text.delta"
	EventSummaryDone      = "response.reasoning_summary_text.done"
	EventReasoningDelta   = "response.reasoning_text.delta"
	EventError            = "error"
)

func ptr[T any](v T) *T { return &v }
