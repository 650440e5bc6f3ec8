package anthropic_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/llm/anthropic"
)

// FuzzDecodeNext checks that a request read against any earlier one is
// read as DecodeRequest reads it, or refused with its error. The second
// body is the first with add spliced in at at — the next request of an
// agent, when add is a message or two and at the end of the messages —
// or, with at past the first's end, add alone.
func FuzzDecodeNext(f *testing.F) {
	head := `{"max_tokens":1024,"model":"m","messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"t1","name":"f","input":{}}]}`
	tail := `],"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"tools":[{"name":"f","input_schema":{}}],"stream":true}`
	first := []byte(head + tail)
	at := uint32(len(head))
	result := `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"v","is_error":true},{"type":"text","text":"go"}]}`
	f.Add(first, []byte(result), at)
	f.Add(first, []byte(`,{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"g","input":{}}]}`+result), at)
	f.Add(first, []byte(`,{"role":"system","content":"x"}`), at)
	f.Add(first, []byte(result+`],"Messages":[`), at)
	f.Add(first, []byte(`,"temperature":0.5`), uint32(len(first)-1))
	f.Add(first, []byte(head+result+`],"system":"other"}`), ^uint32(0))
	f.Add(first, []byte(`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"v","cache_control":{"type":"ephemeral"}}]},{"type":"text","text":"go","cache_control":{"type":"ephemeral"}}]}`), at)
	// The breakpoint moved off the last message, onto the new one.
	moved := strings.Replace(head, `"input":{}}`, `"input":{},"cache_control":{"type":"ephemeral"}}`, 1)
	f.Add([]byte(moved+tail), []byte(head+strings.Replace(result, `"is_error":true}`, `"is_error":true,"cache_control":{"type":"ephemeral"}}`, 1)+tail), ^uint32(0))
	f.Add([]byte(`{"messages":[]}`), []byte(` {"role":"user","content":[{"type":"text","text":"x"}]} `), uint32(13))
	f.Fuzz(func(t *testing.T, first, add []byte, at uint32) {
		prev, err := anthropic.DecodeNext(nil, first)
		if err != nil {
			return
		}
		body := add
		if int64(at) <= int64(len(first)) {
			body = slices.Concat(first[:at], add, first[at:])
		}
		want, wantErr := anthropic.DecodeRequest(body)
		got, err := anthropic.DecodeNext(prev, body)
		switch {
		case wantErr != nil:
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("DecodeNext: %v, DecodeRequest: %v", err, wantErr)
			}
		case err != nil:
			t.Fatalf("DecodeNext refuses what DecodeRequest reads: %v", err)
		case !reflect.DeepEqual(got.Call, want):
			t.Fatalf("DecodeNext read\n%+v\nDecodeRequest\n%+v", got.Call, want)
		case got.Reused > 0 && !reflect.DeepEqual(got.Call.Messages[:got.Reused], prev.Call.Messages):
			t.Fatalf("the %d messages reused are not the last request's", got.Reused)
		}
	})
}
