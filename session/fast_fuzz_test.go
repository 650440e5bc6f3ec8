package session_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentsnap/agentsnap/session"
)

// FuzzChunkDataOnePass checks that DecodeChunkData's one-pass reading of
// the runtime's layout gives what the member-by-member decoder gives, for
// any payload.
func FuzzChunkDataOnePass(f *testing.F) {
	for _, s := range []string{
		`{"turn":1,"step":2,"attempt":3,"chunk":{"type":"text-delta","index":0,"text":"x \u00e9"}}`,
		`{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"c","name":"n","argumentsDelta":"{"}}`,
		`{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}`,
		`{"turn":-0,"step":01,"chunk":{"type":"reasoning-delta","index":0,"text":"\ud800"}}`,
		`{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c","name":"n","arguments":"{}"}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"\u00e9"}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":1,"outputTokens":2,"cacheReadTokens":0}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"m","code":"C","status":500}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := session.DecodeChunkData(data)
		want, wantErr := session.DecodeChunkDataMembers(data)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: one pass %+v, %v; members %+v, %v", data, got, err, want, wantErr)
		}
		// A store takes what CanonicalChunkData accepts without validating it.
		if session.CanonicalChunkData(data) && (!json.Valid(data) || bytes.ContainsAny(data, "\n\r") || !session.DecodesCanonically(data)) {
			t.Fatalf("%q: CanonicalChunkData accepts what is not one valid line in the one-pass layout", data)
		}
	})
}

// FuzzDecodeOnePass checks that Event.Decode's one-pass reading of the
// runtime's payloads gives what encoding/json gives, for any data.
func FuzzDecodeOnePass(f *testing.F) {
	for _, s := range []string{
		`{"turn":1,"trigger":"user"}`, `{"turn":1,"step":2}`, `{"turn":1,"reason":{"kind":"error","message":"m"}}`,
		`{"role":"user","content":[{"type":"text","text":"hi"}],"id":"x"}`,
		`{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"tool-call","id":"c","name":"n","arguments":"{}"}]},"usage":{"inputTokens":1,"outputTokens":2,"reasoningTokens":3}}`,
		`{"turn":1,"step":1,"message":{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","name":"n","content":[],"isError":true}]}}`,
		`{"turn":1,"step":1,"callId":"c","name":"n","arguments":"{}"}`,
	} {
		for i := range decodable {
			f.Add([]byte(s), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		typ := decodable[int(which)%len(decodable)]
		got, want := reflect.New(typ), reflect.New(typ)
		e := session.Event{Type: "x", Data: json.RawMessage(data)}
		err := e.Decode(got.Interface())
		wantErr := json.Unmarshal(data, want.Interface())
		if len(data) == 0 {
			return // Decode refuses empty data before decoding
		}
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got.Interface(), want.Interface()) {
			t.Fatalf("%q into %s: Decode %+v, %v; encoding/json %+v, %v", data, typ, got.Elem(), err, want.Elem(), wantErr)
		}
	})
}

// FuzzMarshalData checks MarshalData's own encoders against encoding/json
// on every runtime payload built from any string.
func FuzzMarshalData(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range payloads(s) {
			got, err := session.MarshalData(v)
			if err != nil {
				t.Fatalf("%T from %q: %v", v, s, err)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatalf("%T from %q: encoding/json: %v", v, s, err)
			}
			if !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte{'\n'})) {
				t.Fatalf("%T from %q:\n%s\n%s", v, s, got, want.Bytes())
			}
		}
	})
}

// FuzzChunkKey checks that what the model call count reads of a chunk
// payload is what DecodeChunkData reads of it, for any payload.
func FuzzChunkKey(f *testing.F) {
	for _, s := range []string{
		`{"turn":1,"step":2,"attempt":3,"chunk":{"type":"text-delta","index":0,"text":"x \u00e9"}}`,
		`{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"m","code":"C","status":500}}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"aborted"}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c","name":"n","arguments":"{}"}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":1,"outputTokens":2}}}`,
		`{"step":1,"turn":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"\x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		key, finish, ok := session.ChunkKey(data)
		d, err := session.DecodeChunkData(data)
		if ok != (err == nil) || ok && (key != [3]int{d.Turn, d.Step, d.Attempt} || finish != d.Chunk.IsFinish()) {
			t.Fatalf("%q: count reads %v %v %v; DecodeChunkData %+v, %v", data, key, finish, ok, d, err)
		}
	})
}
