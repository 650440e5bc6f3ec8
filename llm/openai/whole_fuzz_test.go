package openai_test

import (
	"reflect"
	"testing"

	"github.com/agentsnap/agentsnap/llm/openai"
)

// fastWholeSeeds are the usual first requests, and the shapes around them
// the hand decoder must leave to encoding/json or read as it does.
var fastWholeSeeds = []string{
	`{"model":"gpt-4o","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`,
	`{"messages":[{"role":"user","content":"hi"}],"model":"m","tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}},"strict":true}}],"temperature":0.2,"tool_choice":"auto"}`,
	` { "model" : null , "stream" : null , "messages" : null , "tools" : null } `,
	`{"model":"m","messages":[],"tools":[]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}`,
	`{"model":"m","tools":[{"function":{"name":"f","parameters":null}}]}`,
	`{"model":"m","tools":[{"function":null,"type":null}]}`,
	`{"model":"m","tools":[null]}`,
	`{"model":"m","tools":[{"function":{"Name":"f"}}]}`,
	`{"model":"m","tools":[{"function":{"name":"f","name":"g"}}]}`,
	`{"Model":"m"}`,
	`{"model":"m","model":"n"}`,
	`{"x":1,"x":2,"model":"m"}`,
	`{"\u006dodel":"m"}`,
	"{\"mod\xffel\":\"m\"}",
	`{"model":"m","stream":"yes"}`,
	`{"model":"m","messages":[{"role":"robot"}]}`,
	`{"model":"m","messages":{}}`,
	`{"model":"m"} x`,
	`{"model":"m",}`,
	`{}`,
	`null`,
	`[]`,
}

// FuzzFastWhole checks that whatever the hand decoder reads,
// encoding/json reads the same, without error.
func FuzzFastWhole(f *testing.F) {
	for _, s := range fastWholeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotSystem, ok := openai.FastWhole(b)
		if !ok {
			return
		}
		want, wantSystem, err := openai.DecodeStd(b)
		if err != nil {
			t.Fatalf("the hand decoder reads %q, encoding/json refuses it: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotSystem, wantSystem) {
			t.Fatalf("%q: the hand decoder read\n%#v %q\nencoding/json\n%#v %q", b, got, gotSystem, want, wantSystem)
		}
	})
}

// TestFastWholeReadsTheUsualShapes keeps the fuzz test from passing on a
// hand decoder that leaves everything to encoding/json.
func TestFastWholeReadsTheUsualShapes(t *testing.T) {
	for _, s := range fastWholeSeeds[:7] {
		if _, _, ok := openai.FastWhole([]byte(s)); !ok {
			t.Errorf("the hand decoder leaves %s to encoding/json", s)
		}
	}
	for _, s := range fastWholeSeeds[7:] {
		if _, _, ok := openai.FastWhole([]byte(s)); ok && s != `{}` && s != `{"x":1,"x":2,"model":"m"}` {
			t.Errorf("the hand decoder reads %s, which it should leave to encoding/json", s)
		}
	}
}
