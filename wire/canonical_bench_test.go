package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchArgs is a small tool-call arguments object, as an agent sends it.
const benchArgs = `{"query":"release owner of v2.4","limit":10, "filters":{"team":"atlas","since":"2024-05-01"},"verbose":false}`

// benchSchema returns a nested JSON Schema of about 2 KB, members out of
// name order and spaced as SDKs write them.
func benchSchema() []byte {
	var props []string
	for i := range 8 {
		props = append(props, fmt.Sprintf(`"field_%02d": {"type": "object", "description": "The %d-th field of the record, with a few words.", "properties": {"value": {"type": "string", "enum": ["a", "b", "c"]}, "count": {"type": "integer", "minimum": 0}}, "required": ["value"]}`, 7-i, i))
	}
	return []byte(`{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "required": ["field_00"], "additionalProperties": false}`)
}

// benchMembers returns the members of a typical request that are not its
// conversation: model, messages and tools beside a few settings.
func benchMembers() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"model":       json.RawMessage(`"claude-sonnet-4-5"`),
		"messages":    json.RawMessage(`[{"role":"user","content":"hi"}]`),
		"tools":       json.RawMessage(`[]`),
		"stream":      json.RawMessage(`true`),
		"max_tokens":  json.RawMessage(`4096`),
		"temperature": json.RawMessage(`0.2`),
		"metadata":    json.RawMessage(`{"user_id": "u-123", "trace": "abc"}`),
		"thinking":    json.RawMessage(`{"type": "enabled", "budget_tokens": 2048}`),
	}
}

func BenchmarkCanonical(b *testing.B) {
	for _, c := range []struct {
		name string
		raw  []byte
	}{{"args", []byte(benchArgs)}, {"schema", benchSchema()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canonical(c.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSettings(b *testing.B) {
	members := benchMembers()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := settings(members, "model", "messages", "tools", "stream"); err != nil {
			b.Fatal(err)
		}
	}
}
