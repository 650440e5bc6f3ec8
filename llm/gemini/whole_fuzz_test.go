package gemini

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fastWholeUsual are request bodies of the shapes the genai SDK sends,
// which fastWhole must read itself.
var fastWholeUsual = []string{
	string(benchBody(benchContents(9))),
	`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
	`{"contents":[{"parts":[{"text":"hi"}],"role":"user"},{"role":"model","parts":[{"text":"hmm","thought":true},{"text":"a","thoughtSignature":"c2ln"},{"thoughtSignature":"eA=="}]}],` +
		`"systemInstruction":{"parts":[{"text":"be "},{"text":"brief"}]},"generationConfig":{"temperature":0.2,"thinkingConfig":{"includeThoughts":true}},"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}},"safetySettings":[],"labels":{"a":"b"}}`,
	`{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{"b":[1,{"a":null}],"a":"x"}},"thoughtSignature":"czE="},{"functionCall":{"name":"g"}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"v"}}},{"functionResponse":{"name":"g","response":{"error":{"code":1}}}}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"f","description":"d","parameters":{"type":"OBJECT","properties":{"b":{"type":"ARRAY","nullable":true}}}},{"name":"g","parametersJsonSchema":{"type":"object"}},null]},{"googleSearch":{}},null,{"functionDeclarations":null,"codeExecution":{ },"x":1,"x":2}]}`,
	`{"contents":[{"role":"model","parts":[{"functionCall":{"id":"c1","name":"w"}}]},{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"w","response":{"output":"a"},"willContinue":true}},` +
		`{"functionResponse":{"id":"c1","name":"w","response":{},"willContinue":false,"scheduling":"SILENT"}},{"functionResponse":{"name":"w","willContinue":null,"scheduling":2}}]}]}`,
	` { "contents" : null , "systemInstruction" : null , "tools" : null , "generationConfig" : { } , "cachedContent" : "c" } `,
	`{"contents":[],"tools":[],"systemInstruction":{}}`,
	`{"contents":[null,{"role":"user","parts":[]},{"parts":null}],"x":{"a":1},"x":{},"y":{},"y":[1]}`,
	`{"contents":[{"role":"user","parts":[{"text":"a","videoMetadata":{}}],"Extra":1}],"tools":[{"functionDeclarations":[{"name":"f"}]}]}`,
	`{"contents":[{"Role":"user","parts":[{"text":"x"}]}]}`, // a content's odd name: decodeContent's fallback
	`{}`,
}

// fastWholeOdd are bodies around the usual ones, which fastWhole must
// leave to encoding/json.
var fastWholeOdd = []string{
	`{"Contents":[]}`,
	`{"systeminstruction":{"parts":[{"text":"s"}]}}`,
	`{"TOOLS":[]}`,
	`{"tools":[{"FunctionDeclarations":[]}]}`,
	`{"tools":[{"functionDeclarations":[{"Name":"f"}]}]}`,
	// A declaration that says more than a spec: the tools are a setting.
	`{"tools":[{"functionDeclarations":[{"name":"f","Behavior":"BLOCKING"}]}]}`,
	`{"tools":[{"functionDeclarations":[{"name":"f","behavior":"NON_BLOCKING","responseJsonSchema":{"type":"string"}}]}]}`,
	`{"contents":[],"contents":[]}`,
	`{"systemInstruction":{"parts":[{"text":"a"}]},"systemInstruction":{"parts":[{"thought":true}]}}`,
	`{"tools":[],"tools":[]}`,
	`{"tools":[{"functionDeclarations":[],"functionDeclarations":[]}]}`,
	`{"tools":[{"functionDeclarations":[{"name":"f","name":"g"}]}]}`,
	`{"c\u006fntents":[]}`,
	`{"x\u0041":1}`,
	`{"tools":[{"function\u0044eclarations":[]}]}`,
	"{\"conte\xffnts\":[]}",
	`{"tooſs":[]}`,
	`{"contents":{}}`,
	`{"contents":"x"}`,
	`{"systemInstruction":[]}`,
	`{"systemInstruction":{"parts":[{"functionCall":{"name":"f"}}]}}`,
	`{"systemInstruction":{"parts":[null]}}`,
	`{"tools":{}}`,
	`{"tools":[1]}`,
	`{"tools":[{"functionDeclarations":{}}]}`,
	`{"tools":[{"functionDeclarations":[1]}]}`,
	`{"tools":[{"functionDeclarations":[{"name":1}]}]}`,
	`{"tools":[{"functionDeclarations":[{"name":"f","parameters":{},"parametersJsonSchema":{}}]}]}`,
	`{"contents":[{"role":"robot"}]}`,
	`{"contents":[{"role":"user","parts":[{"inlineData":{}}]}]}`,
	`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":[]}}]}]}`,
	`{"contents":[5]}`,
	`{"contents":[]} x`,
	`{"contents":[],}`,
	`{"contents":[` + strings.Repeat(`[`, 9998) + strings.Repeat(`]`, 9998) + `]}`,
	`null`,
	`[]`,
	`"x"`,
	``,
}

// FuzzFastWhole checks that whatever fastWhole reads, decodeStd reads the
// same, without error.
func FuzzFastWhole(f *testing.F) {
	for _, s := range fastWholeUsual {
		f.Add([]byte(s))
	}
	for _, s := range fastWholeOdd {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		b := slices.Clone(in) // zeroed below: the engine's input must stay as it is
		got, gotConv, ok := fastWhole(b)
		if !ok {
			return
		}
		want, wantConv, err := decodeStd(b)
		if err != nil {
			t.Fatalf("fastWhole reads %q, decodeStd refuses it: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotConv, wantConv) {
			t.Fatalf("%q: fastWhole read\n%#v\n%#v\ndecodeStd\n%#v\n%#v", b, got, gotConv, want, wantConv)
		}
		// The settings are the Call's own: the body may be reused.
		for i := range b {
			b[i] = 0
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotConv, wantConv) {
			t.Fatalf("what fastWhole read changed with the body")
		}
	})
}

// TestFastWholeReadsTheUsualShapes keeps the fuzz test from passing on a
// fastWhole that leaves everything to encoding/json, and checks that it
// leaves the odd shapes to it.
func TestFastWholeReadsTheUsualShapes(t *testing.T) {
	for _, s := range fastWholeUsual {
		if _, _, ok := fastWhole([]byte(s)); !ok {
			t.Errorf("fastWhole leaves %s to encoding/json", s)
		}
	}
	for _, s := range fastWholeOdd {
		if _, _, ok := fastWhole([]byte(s)); ok {
			t.Errorf("fastWhole reads %.80s, which it should leave to encoding/json", s)
		}
	}
}
