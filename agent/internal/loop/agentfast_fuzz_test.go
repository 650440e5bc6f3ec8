package loop_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
)

// FuzzDecodeAgentFast checks that the agent member's fast reading, when it
// reads one, gives what encoding/json gives, and that encoding/json finds
// no member the reference runtime would warn about.
//
//	go test -run '^$' -fuzz '^FuzzDecodeAgentFast$' -fuzztime 60s ./agent/internal/loop
func FuzzDecodeAgentFast(f *testing.F) {
	for _, s := range []string{
		`{"preset":"default","system":"You are careful.","tools":["subagent_spawn","subagent_fork"]}`,
		` { "tools" : [ ] } `, `{}`, `{"system":"a","system":"b"}`, `{"tools":["a"],"tools":["b","c"]}`,
		`{"Preset":"default"}`, `{"pres\u0065t":"x"}`, `{"preset":null}`, `{"tools":null}`, `{"tools":[null]}`,
		`{"tools":"a"}`, `{"preset":1}`, `{"x":1}`, `[]`, `null`, `{"preset":"a"} x`, `{"preset":"a"`, "{\"system\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fast loop.ScenarioAgent
		if !loop.DecodeAgentFast(raw, &fast) {
			return
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(raw, &members); err != nil {
			t.Fatalf("%q: read fast, but encoding/json refuses it: %v", raw, err)
		}
		for k := range members {
			if !slices.Contains([]string{"preset", "system", "tools"}, k) {
				t.Fatalf("%q: read fast, but its member %q is no setting", raw, k)
			}
		}
		var slow loop.ScenarioAgent
		if err := json.Unmarshal(raw, &slow); err != nil {
			t.Fatalf("%q: read fast, but encoding/json refuses it: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: fast %#v, encoding/json %#v", raw, fast, slow)
		}
	})
}

// TestDecodeAgentFastReadsTheUsualShapes keeps FuzzDecodeAgentFast from
// passing on a decodeAgentFast that leaves everything to encoding/json.
func TestDecodeAgentFastReadsTheUsualShapes(t *testing.T) {
	for _, s := range []string{
		`{"preset":"default","system":"You are careful.","tools":["subagent_spawn","subagent_fork"]}`,
		` { "tools" : [ ] } `, `{}`, `{"system":"a","system":"b"}`,
	} {
		if !loop.DecodeAgentFast([]byte(s), new(loop.ScenarioAgent)) {
			t.Errorf("DecodeAgentFast leaves %s to encoding/json", s)
		}
	}
}
