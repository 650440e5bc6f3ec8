package anthropic

import (
	"reflect"
	"testing"
)

// fastRequestSeeds are the usual requests (the first ones fastRequest must
// read), then the shapes around them it must leave to encoding/json or
// read as it does.
var fastRequestSeeds = []string{
	string(benchBody(benchMessages(5))),
	`{"model":"claude-sonnet-4-5","max_tokens":64,"system":"You are terse.","messages":[{"role":"user","content":"hi"}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"redacted_thinking","data":"ZA=="},{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r"}],"is_error":true},{"type":"text","text":"and"}]}],"tools":[{"name":"f","input_schema":null}],"stream":false,"metadata":{"user_id":"u"}}`,
	` { "model" : null , "stream" : null , "messages" : null , "tools" : null , "system" : null } `,
	`{"model":"m","messages":[],"tools":[],"system":[]}`,
	`{"model":"m","system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{},"cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"user","content":[{"type":"text","text":"a","cache_control":null},{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r","cache_control":{"type":"ephemeral"}}],"cache_control":{"type":"ephemeral","ttl":"1h"}}]}],` +
		`"tools":[{"name":"f","input_schema":{}},{"name":"g","input_schema":{},"cache_control":{"type":"ephemeral"}},{"name":"h","cache_control":null}]}`,
	`{}`,
	`{"x":1,"x":2,"model":"m"}`,
	// Left to encoding/json from here on.
	`{"Model":"m"}`,
	`{"model":"m","model":"n"}`,
	`{"\u006dodel":"m"}`,
	"{\"mod\xffel\":\"m\"}",
	`{"model":"m","stream":"yes"}`,
	`{"model":5}`,
	`{"system":[{"type":"image"}]}`,
	`{"system":7}`,
	`{"messages":[{"role":"robot"}]}`,
	`{"messages":[null]}`,
	`{"messages":{}}`,
	`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":[1]}]}]}`,
	`{"tools":[{"description":"no name"}]}`,
	`{"tools":[{"Name":"f"}]}`,
	`{"tools":[null]}`,
	`{"tools":{}}`,
	`{"model":"m"} x`,
	`{"model":"m",}`,
	`null`,
	`[]`,
}

// FuzzFastRequest checks that whatever fastRequest reads, encoding/json
// reads the same, without error.
func FuzzFastRequest(f *testing.F) {
	for _, s := range fastRequestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := fastRequest(b)
		if !ok {
			return
		}
		want, err := decodeStd(b)
		if err != nil {
			t.Fatalf("fastRequest reads %q, encoding/json refuses it: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fastRequest read\n%#v\nencoding/json\n%#v", b, got, want)
		}
	})
}

// TestFastRequestReadsTheUsualShapes keeps the fuzz test from passing on a
// fastRequest that leaves everything to encoding/json, and checks it
// leaves the other shapes.
func TestFastRequestReadsTheUsualShapes(t *testing.T) {
	const usual = 8
	for i, s := range fastRequestSeeds {
		if _, ok := fastRequest([]byte(s)); ok != (i < usual) {
			t.Errorf("fastRequest reads %s: %v, want %v", s, ok, i < usual)
		}
	}
}

// TestFastRequestCopiesTheBody checks that a Call read by hand keeps
// nothing of the body, which the caller may reuse.
func TestFastRequestCopiesTheBody(t *testing.T) {
	body := benchBody(benchMessages(5))
	call, ok := fastRequest(body)
	if !ok {
		t.Fatal("fastRequest leaves the usual body to encoding/json")
	}
	want, err := decodeStd(body)
	if err != nil {
		t.Fatal(err)
	}
	for i := range body {
		body[i] = ' '
	}
	if !reflect.DeepEqual(call, want) {
		t.Fatalf("the Call changed with the body:\n%#v\nwant\n%#v", call, want)
	}
}
