package responses

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// usualItems are input items as openai-go sends them, which fastItem must
// read; the content and output values among them are what fastText must.
var usualItems = []string{
	`{"content":"Find the release owner.","role":"user"}`,
	`{"content":[{"text":"What is the weather?","type":"input_text"}],"role":"user","type":"message"}`,
	`{"id":"msg_1","content":[{"annotations":[],"text":"Let me check.","type":"output_text","logprobs":[]}],"role":"assistant","status":"completed","type":"message","phase":"final_answer"}`,
	`{"id":"rs_1","summary":[{"text":"Thinking.","type":"summary_text"}],"type":"reasoning","encrypted_content":"gAAAA=="}`,
	`{"arguments":"{\"key\":\"fact-1\",\"limit\":10}","call_id":"call_1","name":"lookup","type":"function_call","id":"fc_1","status":"completed"}`,
	`{"call_id":"call_1","output":"value 1: the release v2.4.1 <is> owned by team-atlas","type":"function_call_output"}`,
	`{"call_id":"c","output":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:"},null],"type":"function_call_output"}`,
	`{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"r"},null],"encrypted_content":null}`,
	`{"type":"item_reference","id":"fc_0"}`,
	` {"type":null,"id":null,"status":null,"role":null,"phase":null,"content":null,"call_id":null,"name":null,"arguments":null,"output":null,"summary":null,"encrypted_content":null} `,
	`{"role":"user","content":"h\u00e9llo \ud83d\ude00 \ud800 \"q\"\n","x":{"y":[1,true,null]},"x":2}`,
	`{"role":"assistant","content":[{"type":"refusal","refusal":"no","annotations":null},{"type":"output_text","text":"b","text2":1}]}`,
	`{}`,
	`"a string"`,
	`[{"type":"input_text","text":"a"}]`,
	`[]`,
	`null`,
}

// declinedItems are items fastItem must leave to encoding/json.
var declinedItems = []string{
	`{"Type":"message"}`,
	`{"type":"message","type":"message"}`,
	`{"typ\u0065":"message"}`,
	`{"ıd":"x"}`,
	`{"role":5}`,
	`{"arguments":{}}`,
	`{"summary":{}}`,
	`{"summary":[5]}`,
	`{"summary":[{"Text":"x"}]}`,
	`{"role":"user"} x`,
	`{"role":"user",}`,
	`{"content":"x"`,
	`null`,
	`[]`,
	``,
}

// FuzzFastItem checks that an item fastItem reads is the one json.Unmarshal
// reads, that decodeItem reads every text as json.Unmarshal does, and
// that, read as a content value, a []Part or a meta, the text reads as
// encoding/json reads it.
func FuzzFastItem(f *testing.F) {
	for _, s := range append(append([]string{}, usualItems...), declinedItems...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want Item
		wantErr := json.Unmarshal(b, &want)
		var fast Item
		if fastItem(b, &fast) {
			if wantErr != nil {
				t.Fatalf("fastItem reads what encoding/json refuses: %v", wantErr)
			}
			if !reflect.DeepEqual(fast, want) {
				t.Fatalf("fastItem read %#v, encoding/json %#v", fast, want)
			}
		}
		var got Item
		err := decodeItem(b, &got)
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("decodeItem: %#v, %v; encoding/json %#v, %v", got, err, want, wantErr)
		}
		checkText(t, b)
		checkParts(t, b)
		m := Meta{ID: want.ID, Phase: want.Phase, EncryptedContent: string(b)}
		if raw, _ := json.Marshal(map[string]Meta{API: m}); m != (Meta{}) && !bytes.Equal(m.Raw(), raw) {
			t.Fatalf("Raw: %s, json.Marshal %s", m.Raw(), raw)
		}
	})
}

// checkText fails t unless fastText reads raw as stdText does.
func checkText(t *testing.T, raw []byte) {
	t.Helper()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	want, wantErr := stdText(raw)
	if got, ok := fastText(raw); ok && (wantErr != nil || got != want) {
		t.Fatalf("fastText: %q; stdText %q, %v", got, want, wantErr)
	}
}

// checkParts fails t unless readParts reads raw as json.Unmarshal does.
func checkParts(t *testing.T, raw []byte) {
	t.Helper()
	var want []Part
	wantOK := json.Unmarshal(raw, &want) == nil
	got, ok := readParts(raw)
	if ok != wantOK || ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("readParts: %#v, %v; encoding/json %#v, %v", got, ok, want, wantOK)
	}
}

// TestFastItemReadsTheUsualShapes keeps FuzzFastItem from passing on
// hand readers that leave everything to encoding/json.
func TestFastItemReadsTheUsualShapes(t *testing.T) {
	for _, s := range usualItems[:12] {
		var it Item
		if !fastItem([]byte(s), &it) {
			t.Errorf("fastItem leaves %s to encoding/json", s)
		}
		for _, raw := range []json.RawMessage{it.Content, it.Output} {
			if len(raw) > 0 && raw[0] != 'n' {
				// An image is contentText's error, which encoding/json reads.
				if _, ok := fastText(raw); !ok != bytes.Contains(raw, []byte("input_image")) {
					t.Errorf("fastText leaves %s to encoding/json: %v", raw, !ok)
				}
			}
		}
	}
	for _, s := range usualItems[len(usualItems)-4 : len(usualItems)-1] {
		if _, ok := fastText([]byte(s)); !ok {
			t.Errorf("fastText leaves %s to encoding/json", s)
		}
	}
	for _, s := range declinedItems {
		if fastItem([]byte(s), new(Item)) {
			t.Errorf("fastItem reads %s, which it should leave to encoding/json", s)
		}
	}
}
