package responses

import (
	"encoding/json"
)

// mapSettings returns the settings of a call decoded from another API
// that mean the same in this one, renamed: sampling, the output limit,
// tool choice, parallel calls, the user and metadata, reasoning effort and
// the response format (Chat Completions); sampling, the output limit and
// tool choice (Anthropic Messages); sampling and the output limit
// (Gemini's generationConfig). Anything else is left out.
func mapSettings(api string, set map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	keep := func(from, to string) {
		if v, ok := set[from]; ok && string(v) != "null" {
			out[to] = v
		}
	}
	switch api {
	case "openai-chat":
		keep("temperature", "temperature")
		keep("top_p", "top_p")
		keep("max_tokens", "max_output_tokens")
		keep("max_completion_tokens", "max_output_tokens")
		keep("parallel_tool_calls", "parallel_tool_calls")
		keep("user", "user")
		keep("metadata", "metadata")
		if v, ok := chatToolChoice(set["tool_choice"]); ok {
			out["tool_choice"] = v
		}
		if v, ok := set["reasoning_effort"]; ok {
			out["reasoning"] = object(map[string]json.RawMessage{"effort": v})
		}
		if v, ok := chatFormat(set["response_format"]); ok {
			out["text"] = object(map[string]json.RawMessage{"format": v})
		}
	case "anthropic-messages":
		keep("temperature", "temperature")
		keep("top_p", "top_p")
		keep("max_tokens", "max_output_tokens")
		if v, ok := anthropicToolChoice(set["tool_choice"]); ok {
			out["tool_choice"] = v
		}
	case "gemini":
		var gc map[string]json.RawMessage
		if json.Unmarshal(set["generationConfig"], &gc) == nil {
			set = gc
			keep("temperature", "temperature")
			keep("topP", "top_p")
			keep("maxOutputTokens", "max_output_tokens")
		}
	}
	return out
}

func object(m map[string]json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(m)
	return b
}

// chatToolChoice maps Chat's tool_choice: the same words, and a named
// function without its wrapper.
func chatToolChoice(raw json.RawMessage) (json.RawMessage, bool) {
	var word string
	if json.Unmarshal(raw, &word) == nil {
		return raw, word == "auto" || word == "none" || word == "required"
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &named) != nil || named.Type != "function" || named.Function.Name == "" {
		return nil, false
	}
	return namedTool(named.Function.Name), true
}

func namedTool(name string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "function", "name": name})
	return b
}

// anthropicToolChoice maps Anthropic's tool_choice: auto, any (required),
// none, and a named tool.
func anthropicToolChoice(raw json.RawMessage) (json.RawMessage, bool) {
	var c struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return nil, false
	}
	switch c.Type {
	case "auto", "none":
		return json.RawMessage(`"` + c.Type + `"`), true
	case "any":
		return json.RawMessage(`"required"`), true
	case "tool":
		return namedTool(c.Name), c.Name != ""
	}
	return nil, false
}

// chatFormat maps Chat's response_format to a text.format: text and
// json_object as they are, json_schema with its schema's members lifted.
func chatFormat(raw json.RawMessage) (json.RawMessage, bool) {
	var f struct {
		Type       string                     `json:"type"`
		JSONSchema map[string]json.RawMessage `json:"json_schema"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return nil, false
	}
	switch f.Type {
	case "text", "json_object":
		return object(map[string]json.RawMessage{"type": json.RawMessage(`"` + f.Type + `"`)}), true
	case "json_schema":
		if f.JSONSchema == nil {
			return nil, false
		}
		m := map[string]json.RawMessage{"type": json.RawMessage(`"json_schema"`)}
		for _, k := range []string{"name", "schema", "strict", "description"} {
			if v, ok := f.JSONSchema[k]; ok {
				m[k] = v
			}
		}
		return object(m), true
	}
	return nil, false
}
