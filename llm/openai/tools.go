package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// toolTerms are the members of a tool that agentsnap's terms hold, and
// functionTerms those of its function: a ToolSpec's.
var (
	toolTerms     = []string{"type", "function"}
	functionTerms = []string{"name", "description", "parameters"}
)

// toolsSetting returns a request's tools (raw, the tools member as sent)
// as a setting when one of them says more than a ToolSpec holds — strict,
// which the Agents SDK sends on every function tool and the AI SDK and
// openai-go when asked for, any other member of a function or a tool, a
// tool of another type than "function" — and nil when every tool is a
// function of a name, a description and parameters alone, as most are.
// raw is returned as it is: the wire layer writes settings canonical.
func toolsSetting(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || jsonscan.IsNull(raw) {
		return nil, nil
	}
	more := false
	terms := raw[0] == '[' && jsonscan.EachElement(raw, func(e []byte) bool {
		if jsonscan.IsNull(e) {
			return true // a tool of nothing: encoding/json reads it so
		}
		typed := false
		ok := jsonscan.Known(e, toolTerms, func(k int, _, val []byte) bool {
			switch k {
			case 0:
				typed = true
				more = more || string(val) != `"function"`
			case 1:
				if !jsonscan.IsNull(val) {
					return jsonscan.Known(val, functionTerms, func(k int, _, _ []byte) bool {
						more = more || k < 0
						return true
					})
				}
			default:
				more = true
			}
			return true
		})
		more = more || !typed // agentsnap's terms send "function"
		return ok
	})
	if terms {
		if more {
			return raw, nil
		}
		return nil, nil
	}
	// A name the hand reader leaves to encoding/json (escaped, in other
	// case, repeated): each tool's members as encoding/json reads them
	// into a map, the last of a name counting.
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, fmt.Errorf("tools: want an array of tool objects: %w", err)
	}
	for _, t := range tools {
		if t != nil && saysMore(t) {
			return raw, nil
		}
	}
	return nil, nil
}

// saysMore reports whether tool t, read as a map, says more than a
// ToolSpec holds.
func saysMore(t map[string]json.RawMessage) bool {
	if string(bytes.TrimSpace(t["type"])) != `"function"` {
		return true
	}
	for k := range t {
		if k != "type" && k != "function" {
			return true
		}
	}
	var fn map[string]json.RawMessage
	if f, ok := t["function"]; ok && json.Unmarshal(f, &fn) != nil {
		return true
	}
	for k := range fn {
		if k != "name" && k != "description" && k != "parameters" {
			return true
		}
	}
	return false
}
