package openai_test

import (
	"reflect"
	"testing"

	"github.com/agentsnap/agentsnap/llm/openai"
)

// FuzzDecodeNext checks that a request read against any earlier one is
// read as DecodeRequest reads it, or refused with its error.
func FuzzDecodeNext(f *testing.F) {
	head, tail := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, `],"stream":true}`
	f.Add([]byte(head+tail), []byte(head+`,{"role":"tool","tool_call_id":"c1","content":"v"}`+tail))
	f.Add([]byte(head+tail), []byte(head+`,{"role":"system","content":"s"}],"temperature":1}`))
	f.Add([]byte(head+tail), []byte(head+`,{"role":"tool","tool_call_id":"c1","content":"v"}`+`],"Messages":[]}`))
	f.Add([]byte(`{"messages":[]}`), []byte(`{"messages":[ {"role":"user","content":[{"type":"text","text":"x"}]} ] }`))
	f.Fuzz(func(t *testing.T, first, body []byte) {
		prev, err := openai.DecodeNext(nil, first)
		if err != nil {
			return
		}
		want, wantErr := openai.DecodeRequest(body)
		got, err := openai.DecodeNext(prev, body)
		switch {
		case wantErr != nil:
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("DecodeNext: %v, DecodeRequest: %v", err, wantErr)
			}
		case err != nil:
			t.Fatalf("DecodeNext refuses what DecodeRequest reads: %v", err)
		case !reflect.DeepEqual(got.Call, want):
			t.Fatalf("DecodeNext read\n%+v\nDecodeRequest\n%+v", got.Call, want)
		}
	})
}
