package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// toolTerms are the members of a tool that agentsnap's terms hold: a
// ToolSpec's, and the cache_control that Cache holds.
var toolTerms = []string{"name", "description", "input_schema", "cache_control"}

// toolsSetting returns a request's tools (raw, the tools member as sent)
// as a setting when one of them says more than toolTerms — what the Vercel
// AI SDK sends on every function tool (eager_input_streaming), strict,
// input_examples, defer_loading, a server tool's type and options: the
// tools as sent, each without its cache_control (not recorded, so no
// drift: Cache carries it to a live model). It is nil when every tool is
// agentsnap's terms alone, as most are.
func toolsSetting(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || jsonscan.IsNull(raw) {
		return nil, nil
	}
	more := false
	terms := jsonscan.EachElement(raw, func(e []byte) bool {
		return jsonscan.Known(e, toolTerms, func(k int, _, _ []byte) bool {
			more = more || k < 0
			return true
		})
	})
	if terms && !more {
		return nil, nil
	}
	// A tool that says more, or one the hand reader leaves to
	// encoding/json (a name in other case, escaped, repeated): each tool
	// as encoding/json reads its members, the last of a name counting.
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, fmt.Errorf("tools: want an array of tool objects: %w", err)
	}
	out := []byte{'['}
	for i, t := range tools {
		if i > 0 {
			out = append(out, ',')
		}
		delete(t, "cache_control")
		out = appendObject(out, t)
	}
	return append(out, ']'), nil
}

// appendObject appends the object of members m, in name order, each
// value as it is (valid JSON, as encoding/json read it); a nil m is null.
func appendObject(dst []byte, m map[string]json.RawMessage) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(jsonscan.AppendStdString(dst, k), ':')
		dst = append(dst, m[k]...)
	}
	return append(dst, '}')
}

// markedTools returns the tools setting (the tools as the agent sent
// them, without their cache_control) with each tool's cache_control back
// where the agent put it (cache.tool), for a live model of this API.
func markedTools(set json.RawMessage, cache *Cache) (json.RawMessage, error) {
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(set, &tools); err != nil {
		return nil, fmt.Errorf("the request's tools setting is not an array of tool objects: %w", err)
	}
	out := []byte{'['}
	for i, t := range tools {
		if i > 0 {
			out = append(out, ',')
		}
		if cc := cache.tool(i, len(tools)); cc != nil && t != nil {
			t["cache_control"] = cc
		}
		out = appendObject(out, t)
	}
	return append(out, ']'), nil
}
