package openai_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentsnap/agentsnap/llm/openai"
)

// fastMessageSeeds are the usual shapes, and the ones around them the
// hand decoder must leave to encoding/json or read as it does.
var fastMessageSeeds = []string{
	`{"role":"user","content":"hi"}`,
	`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"k\":1}"}}]}`,
	`{"content":"v","role":"tool","tool_call_id":"c1"}`,
	`{"role":"assistant","content":"a","reasoning_content":"r","tool_calls":[]}`,
	` { "role" : "system" , "content" : "s\u00e9\n" } `,
	`{"role":"assistant","tool_calls":null,"content":"x"}`,
	`{"role":"assistant","tool_calls":[{"id":"a","function":null},{"id":"b","type":"function","function":{"name":null}}]}`,
	`{"Role":"user","content":"hi"}`,
	`{"role":"user","role":"tool"}`,
	`{"role":"user","content":[{"type":"text","text":"x"}]}`,
	`{"role":"user","name":"n"}`,
	`{"role":1}`,
	`{"role":"user",}`,
	`{"role":"user"} x`,
	`{"role":"a\ud800b"}`,
	"{\"role\":\"\xff\"}",
	`{"tool_calls":[null]}`,
	`{"tool_calls":[{"id":"a","id":"b"}]}`,
	`null`,
}

// FuzzFastMessage checks that whatever the hand decoder reads,
// encoding/json reads the same, without error.
func FuzzFastMessage(f *testing.F) {
	for _, s := range fastMessageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got openai.Message
		if !openai.FastMessage(b, &got) {
			return
		}
		var want openai.Message
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("the hand decoder reads %q, encoding/json refuses it: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: the hand decoder read\n%#v\nencoding/json\n%#v", b, got, want)
		}
	})
}
