package responses

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/session"
)

// usualBodies are requests as openai-go sends them to the Responses API
// (members in its order), which fastRead must read.
var usualBodies = []string{
	`{"input":"Say hi.","model":"gpt-5","instructions":"Be brief.","stream":true}`,
	string(benchBody(benchItems(5))),
	`{"input":[{"content":[{"text":"What is the weather?","type":"input_text"}],"role":"user","type":"message"},` +
		`{"id":"msg_1","content":[{"annotations":[],"text":"Let me check.","type":"output_text","logprobs":[]}],"role":"assistant","status":"completed","type":"message","phase":"commentary"},` +
		`{"id":"rs_1","summary":[{"text":"Thinking.","type":"summary_text"}],"type":"reasoning","encrypted_content":"gAAAA=="},` +
		`{"arguments":"{\"city\":\"Paris\"}","call_id":"call_1","name":"get_weather","type":"function_call","id":"fc_1","status":"completed"},` +
		`{"call_id":"call_1","output":"sunny","type":"function_call_output"}],` +
		`"model":"gpt-5","store":true,"temperature":0.7,"top_p":1,"max_output_tokens":1024,"parallel_tool_calls":true,"tool_choice":"auto",` +
		`"tools":[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true,"type":"function","description":"Get the weather."}],` +
		`"stream":true,"stream_options":{"include_obfuscation":false}}`,
	`{"input":[{"call_id":"call_0","output":[{"type":"input_text","text":"v"}],"type":"function_call_output"}],"model":"gpt-5","previous_response_id":"resp_1","store":true}`,
	`{"input":[{"role":"user","content":"x"},{"type":"item_reference","id":"fc_0"},{"type":"message","role":"assistant","id":"msg_1","content":"served"}],"model":"m"}`,
	`{"input":[{"role":"developer","content":"Be kind."},{"role":"system","content":[{"type":"input_text","text":"s"}]},{"role":"user","content":"hi"}],"model":"m",` +
		`"text":{"format":{"type":"text"}},"reasoning":{"effort":"low","summary":"auto"},"include":["reasoning.encrypted_content"],"metadata":{"k":"v"},"user":"u"}`,
	` { "model" : null , "input" : null , "instructions" : null , "tools" : null , "stream" : null , "store" : null , "previous_response_id" : null , "conversation" : null , "stream_options" : null } `,
	`{"model":"m","tools":[{"type":"function","name":"f","description":null,"parameters":null},{"type":"web_search"},null,{"type":null},{"type":5,"name":1},{"type":"functio\u006e","name":"g\u00e9"}],"input":[]}`,
	`{"input":[{"type":"function_call","call_id":"c","name":null,"arguments":null,"id":null,"status":null},` +
		`{"type":"reasoning","summary":null,"content":[{"type":"reasoning_text","text":"r"}],"encrypted_content":null},{"type":"reasoning","summary":[],"content":null},` +
		`{"type":"message","role":"assistant","content":[null,{"type":"refusal","refusal":"no","annotations":null}],"extra":{"a":[1,2]}}],"model":"m"}`,
	`{"model":"gpt-\u00e9","input":"h\u00e9llo \ud83d\ude00 \"q\" \ud800","instructions":"a\nb","store":false,"stream":false}`,
	`{"x":1,"x":2,"model":"m","input":[{"role":"user","content":"a"}]}`,
	`{}`,
}

// errorBodies are bodies fastRead reads whose conversation build refuses:
// the error must be decodeStd's.
var errorBodies = []string{
	`{"input":[{"role":"wizard","content":"x"}]}`,
	`{"previous_response_id":"resp_nope","input":"x"}`,
	`{"previous_response_id":"resp_0","input":"x"}`,
	`{"input":[{"type":"item_reference","id":"fc_9"}]}`,
	`{"input":[{"role":"user","content":[{"type":"input_text","text":5}]}]}`,
	`{"input":[{"type":"function_call","name":"f"}]}`,
	`{"input":[{"type":"web_search_call","id":"ws_1"}]}`,
}

// declinedBodies are bodies fastRead must leave to encoding/json.
var declinedBodies = []string{
	`{"Model":"m"}`,
	`{"model":"m","model":"n"}`,
	`{"mod\u0065l":"m"}`,
	"{\"mod\xffel\":\"m\"}",
	`{"ſtream":true}`,
	`{"model":"m","Conversation":"c"}`,
	`{"model":5}`,
	`{"stream":"yes"}`,
	`{"store":1}`,
	`{"input":5}`,
	`{"input":{}}`,
	`{"input":[null]}`,
	`{"input":[{"Type":"message"}]}`,
	`{"input":[{"type":"message","type":"message"}]}`,
	`{"input":[{"role":"user","content":"x","arguments":5}]}`,
	`{"input":[{"type":"reasoning","summary":[{"text":1}]}]}`,
	`{"input":[{"role":"user","content":"x"}],"conversation":"conv_1"}`,
	`{"tools":{}}`,
	`{"tools":[5]}`,
	`{"tools":[{"type":"function"}]}`,
	`{"tools":[{"type":"function","name":""}]}`,
	`{"tools":[{"type":"function","name":"f","description":5}]}`,
	`{"tools":[{"type":"function","name":"f","name":"g"}]}`,
	`{"model":"m"} x`,
	`{"model":"m",}`,
	`{"model":"m"`,
	`null`,
	`[]`,
	``,
}

// fuzzServed is a run that served resp_1 (its items fc_0 and msg_1) and
// resp_0 with store false.
func fuzzServed() *Served {
	s := NewServed()
	out := session.Message{Role: session.RoleAssistant, Content: []session.Part{
		{Type: session.PartToolCall, ID: "call_0", Name: "served_f", Arguments: "{}", Meta: Meta{ID: "fc_0"}.Raw()},
		{Type: session.PartText, Text: "served", Meta: Meta{ID: "msg_1", Phase: "commentary"}.Raw()},
	}}
	s.Put("resp_1", []session.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("hi")}}}, out, []string{"fc_0", "msg_1"}, true)
	s.Put("resp_0", nil, out, nil, false)
	return s
}

// FuzzFastRead checks that whatever fastRead reads, decodeStd reads the
// same (or refuses with the same error), and that nothing read aliases
// the body.
func FuzzFastRead(f *testing.F) {
	for _, s := range slices.Concat(usualBodies, errorBodies, declinedBodies) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		body := slices.Clone(b)
		r, ok := fastRead(body)
		if !ok {
			return
		}
		s := fuzzServed()
		got, gotB, err := s.build(r)
		r.release()                                      // its items cleared: nothing read may be one of theirs
		copy(body, bytes.Repeat([]byte{'#'}, len(body))) // a caller reusing its buffer
		want, wantB, wantErr := s.decodeStd(b)
		switch {
		case wantErr != nil || err != nil:
			if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
				t.Fatalf("%q: fastRead then build: %v; decodeStd: %v", b, err, wantErr)
			}
		case !reflect.DeepEqual(got, want):
			t.Fatalf("%q: fastRead read\n%#v\ndecodeStd\n%#v", b, got, want)
		case !reflect.DeepEqual(builderState(gotB), builderState(wantB)):
			t.Fatalf("%q: fastRead built\n%#v\ndecodeStd\n%#v", b, builderState(gotB), builderState(wantB))
		}
	})
}

// builderState is what DecodeNext keeps of a builder.
func builderState(b *builder) []any {
	return []any{b.msgs, b.system, b.open, b.instructions, b.continued}
}

// TestFastReadReadsTheUsualShapes keeps FuzzFastRead from passing on a
// fastRead that leaves everything to encoding/json.
func TestFastReadReadsTheUsualShapes(t *testing.T) {
	s := fuzzServed()
	for _, b := range usualBodies {
		r, ok := fastRead([]byte(b))
		if !ok {
			t.Errorf("fastRead leaves %s to encoding/json", b)
			continue
		}
		if _, _, err := s.build(r); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
	for _, b := range errorBodies {
		if _, ok := fastRead([]byte(b)); !ok {
			t.Errorf("fastRead leaves %s to encoding/json", b)
		}
	}
	for _, b := range declinedBodies {
		if _, ok := fastRead([]byte(b)); ok {
			t.Errorf("fastRead reads %s, which it should leave to encoding/json", b)
		}
	}
}

// TestDecodeKeepsNoWindowOfTheBody checks that what Decode returns of a
// body read by hand outlives the body.
func TestDecodeKeepsNoWindowOfTheBody(t *testing.T) {
	for _, b := range usualBodies {
		body := []byte(b)
		got, err := fuzzServed().Decode(body)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		copy(body, bytes.Repeat([]byte{'#'}, len(body)))
		want, _, _ := fuzzServed().decodeStd([]byte(b))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the Decoded changed with the body:\n%#v\n%#v", b, got, want)
		}
	}
}
