package responses

import (
	"bytes"
	"encoding/json"
	"testing"
)

// usualEvents are event data as OpenAI sends them, which scanHead must
// read.
var usualEvents = []string{
	`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel","logprobs":[],"obfuscation":"Qm9s"}`,
	`{"type":"response.created","sequence_number":0,"response":{"id":"r","object":"response","status":"in_progress","error":null,"output":[],"instructions":[{"type":"message"}]}}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":""}}`,
	`{"type":"error","error":{"type":"server_error","code":"server_error","message":"Boom.","param":null}}`,
	`{"type":"error","code":"rate_limit_exceeded","message":"Slow down.","param":null}`,
	`{"error":{"message":"Upstream is down.","type":"server_error"}}`,
	`{"item_id":"m","delta":"hi","type":"response.output_text.delta"}`,
	`{"type":"response.output\u005ftext\u002edelta","delta":"\ud83d\ude00"}`,
	`{"part":{"type":"response.output_text.delta"},"type":"response.output_text.done"}`,
	`{"type":"response.some_new_event","error":null}`,
	` {"type":null,"error":[]} `,
	`{}`,
}

// declinedEvents are data scanHead must leave to encoding/json.
var declinedEvents = []string{
	`{"type":"response.output_text.done","type":"response.output_text.delta"}`,
	`{"error":{"message":"m"},"type":"response.in_progress","error":null}`,
	`{"TYPE":"response.output_text.delta"}`,
	`{"typ\u0065":"response.output_text.delta"}`,
	`{"ŧype":"x"}`,
	`{"type":5}`,
	`{"type":"response.created",}`,
	`{"type":"response.created"} x`,
	`{"type":`,
	`[{"type":"error"}]`,
	`null`,
	``,
}

// FuzzEventHead checks that what scanHead reads of an event's data is
// what encoding/json reads: its type, and whether an error member that
// is not null says the call failed.
func FuzzEventHead(f *testing.F) {
	for _, s := range append(append([]string{}, usualEvents...), declinedEvents...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, failed, ok := scanHead(data)
		if !ok {
			return
		}
		var probe struct {
			Type  string          `json:"type"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(data, &probe); err != nil {
			t.Fatalf("scanHead reads what encoding/json refuses: %v", err)
		}
		wantFailed := len(probe.Error) > 0 && string(bytes.TrimSpace(probe.Error)) != "null"
		if typ != probe.Type || failed != wantFailed {
			t.Fatalf("scanHead read type %q, failed %v; encoding/json %q, %v", typ, failed, probe.Type, wantFailed)
		}
	})
}

// TestScanHeadReadsTheUsualEvents keeps FuzzEventHead from passing on a
// scan that leaves everything to encoding/json, and holds it to leaving
// the declined ones.
func TestScanHeadReadsTheUsualEvents(t *testing.T) {
	for _, s := range usualEvents {
		if _, _, ok := scanHead([]byte(s)); !ok {
			t.Errorf("scanHead leaves %s to encoding/json", s)
		}
	}
	for _, s := range declinedEvents {
		if _, _, ok := scanHead([]byte(s)); ok {
			t.Errorf("scanHead reads %s, which it should leave to encoding/json", s)
		}
	}
}
