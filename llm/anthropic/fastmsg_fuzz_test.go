package anthropic

import (
	"encoding/json"
	"reflect"
	"testing"
)

// usualMessages are messages of the shapes agents send, which fastMessage
// must read itself.
var usualMessages = []string{
	`{"role":"user","content":"hi"}`,
	`{"role":"user","content":[{"type":"text","text":"a\u00e9\ud83d\ude00","cache_control":{"type":"ephemeral"}},{"type":"image","source":{"data":"AA=="}}]}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"redacted_thinking","data":"ZA=="},{"type":"tool_use","id":"t1","name":"f","input":{"k": [1, null]}}]}`,
	`{"content":[{"content":[{"type":"text","text":"v"}],"type":"tool_result","tool_use_id":"t1","is_error":true}],"role":"user"}`,
	`{"role":"user","content":[]}`,
}

// FuzzFastMessage checks that a message fastMessage reads is the one
// json.Unmarshal reads, and that decodeElem reads every text as
// json.Unmarshal does.
func FuzzFastMessage(f *testing.F) {
	for _, s := range append(append([]string{}, usualMessages...), []string{
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":null,"is_error":null}]}`,
		`{"role":"user","content":[{"type":"text","content":"not read","input":null}], "extra": 1}`,
		`{"role":null,"content":null}`,
		`{"Role":"user","content":"x"}`,
		`{"role":"user","role":"assistant"}`,
		`{"role":"user","content":[null]}`,
		`{"ıd":"x"}`,
		` {"role":"user"} `,
	}...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want Message
		wantErr := json.Unmarshal(b, &want)
		var fast Message
		if fastMessage(b, &fast) {
			if wantErr != nil {
				t.Fatalf("fastMessage reads what encoding/json refuses: %v", wantErr)
			}
			if !reflect.DeepEqual(fast, want) {
				t.Fatalf("fastMessage read %#v, encoding/json %#v", fast, want)
			}
		}
		var got Message
		err := decodeElem(b, &got)
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("decodeElem: %#v, %v; encoding/json %#v, %v", got, err, want, wantErr)
		}
	})
}

// TestFastMessageReadsTheUsualShapes keeps FuzzFastMessage from passing on
// a fastMessage that leaves everything to encoding/json.
func TestFastMessageReadsTheUsualShapes(t *testing.T) {
	for _, s := range usualMessages {
		if !fastMessage([]byte(s), new(Message)) {
			t.Errorf("fastMessage leaves %s to encoding/json", s)
		}
	}
}
