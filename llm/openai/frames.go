package openai

import (
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// The frames of a served stream are written by hand, byte for byte as
// encoding/json's Marshal writes the schema's types (members in field
// order, HTML escaping on), without its reflection: a replay writes a
// dozen frames per call.

// appendFrame appends the chat.completion.chunk of one delta: the JSON of
// Chunk{ID: CompletionID, Object: "chat.completion.chunk", Model: model,
// Choices: []Choice{{Delta: *d, FinishReason: finish}}}.
func appendFrame(dst []byte, model string, d *Delta, finish *string) []byte {
	dst = appendChunkHead(dst, model)
	dst = append(dst, `"choices":[{"index":0,"delta":`...)
	dst = appendDelta(dst, d)
	dst = append(dst, `,"finish_reason":`...)
	if finish == nil {
		dst = append(dst, "null"...)
	} else {
		dst = jsonscan.AppendHTMLString(dst, *finish)
	}
	return append(dst, "}]}"...)
}

// appendUsageFrame appends the frame of a stream's usage: the JSON of
// Chunk{ID: CompletionID, Object: "chat.completion.chunk", Choices:
// []Choice{}, Usage: u}.
func appendUsageFrame(dst []byte, u *Usage) []byte {
	dst = appendChunkHead(dst, "")
	dst = append(dst, `"choices":[],"usage":`...)
	dst = appendUsage(dst, u)
	return append(dst, '}')
}

// appendChunkHead appends a chunk's members before its choices.
func appendChunkHead(dst []byte, model string) []byte {
	dst = append(dst, `{"id":`...)
	dst = jsonscan.AppendHTMLString(dst, CompletionID)
	dst = append(dst, `,"object":"chat.completion.chunk","created":0,"model":`...)
	dst = jsonscan.AppendHTMLString(dst, model)
	return append(dst, ',')
}

func appendDelta(dst []byte, d *Delta) []byte {
	dst = append(dst, '{')
	start := len(dst)
	if d.Role != "" {
		dst = append(dst, `"role":`...)
		dst = jsonscan.AppendHTMLString(dst, d.Role)
	}
	dst = appendOptString(dst, start, `"content":`, d.Content)
	dst = appendOptString(dst, start, `"reasoning_content":`, d.ReasoningContent)
	dst = appendOptString(dst, start, `"reasoning":`, d.Reasoning)
	if len(d.ToolCalls) > 0 {
		if len(dst) > start {
			dst = append(dst, ',')
		}
		dst = append(dst, `"tool_calls":[`...)
		for i := range d.ToolCalls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendToolCallDelta(dst, &d.ToolCalls[i])
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendOptString appends the member key (with its colon) of an object
// whose members start at start, unless val is nil.
func appendOptString(dst []byte, start int, key string, val *string) []byte {
	if val == nil {
		return dst
	}
	if len(dst) > start {
		dst = append(dst, ',')
	}
	dst = append(dst, key...)
	return jsonscan.AppendHTMLString(dst, *val)
}

func appendToolCallDelta(dst []byte, c *ToolCallDelta) []byte {
	dst = append(dst, `{"index":`...)
	if c.Index == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendInt(dst, int64(*c.Index), 10)
	}
	if c.ID != "" {
		dst = append(dst, `,"id":`...)
		dst = jsonscan.AppendHTMLString(dst, c.ID)
	}
	if c.Type != "" {
		dst = append(dst, `,"type":`...)
		dst = jsonscan.AppendHTMLString(dst, c.Type)
	}
	dst = append(dst, `,"function":{`...)
	if c.Function.Name != "" {
		dst = append(dst, `"name":`...)
		dst = jsonscan.AppendHTMLString(dst, c.Function.Name)
		dst = append(dst, ',')
	}
	dst = append(dst, `"arguments":`...)
	dst = jsonscan.AppendHTMLString(dst, c.Function.Arguments)
	return append(dst, "}}"...)
}

func appendUsage(dst []byte, u *Usage) []byte {
	dst = append(dst, `{"completion_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.CompletionTokens), 10)
	if d := u.CompletionTokensDetails; d != nil {
		dst = append(dst, `,"completion_tokens_details":{`...)
		if d.ReasoningTokens != nil {
			dst = append(dst, `"reasoning_tokens":`...)
			dst = strconv.AppendInt(dst, int64(*d.ReasoningTokens), 10)
		}
		dst = append(dst, '}')
	}
	if u.PromptCacheHitTokens != nil {
		dst = append(dst, `,"prompt_cache_hit_tokens":`...)
		dst = strconv.AppendInt(dst, int64(*u.PromptCacheHitTokens), 10)
	}
	dst = append(dst, `,"prompt_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.PromptTokens), 10)
	if d := u.PromptTokensDetails; d != nil {
		dst = append(dst, `,"prompt_tokens_details":{`...)
		if d.CachedTokens != nil {
			dst = append(dst, `"cached_tokens":`...)
			dst = strconv.AppendInt(dst, int64(*d.CachedTokens), 10)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"total_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.TotalTokens), 10)
	return append(dst, '}')
}

// appendErrorBody appends the JSON of b.
func appendErrorBody(dst []byte, b *ErrorBody) []byte {
	dst = append(dst, `{"error":{"code":`...)
	dst = jsonscan.AppendHTMLString(dst, b.Error.Code)
	dst = append(dst, `,"message":`...)
	dst = jsonscan.AppendHTMLString(dst, b.Error.Message)
	dst = append(dst, `,"type":`...)
	dst = jsonscan.AppendHTMLString(dst, b.Error.Type)
	return append(dst, "}}"...)
}
