package openai_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/llm/openai"
)

// FuzzDecodeNext checks that a request read against any earlier one is
// read as DecodeRequest reads it, or refused with its error. The second
// body is the first with add spliced in at at — the next request of an
// agent, when add is a message or two and at the end of the messages —
// or, with at past the first's end, add alone. Two requests read against
// that one must leave what it and the first of them read as it was.
func FuzzDecodeNext(f *testing.F) {
	head := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	tail := `],"stream":true}`
	first := []byte(head + tail)
	at := uint32(len(head))
	f.Add(first, []byte(`,{"role":"tool","tool_call_id":"c1","content":"v"}`), at)
	f.Add(first, []byte(`,{"role":"tool","tool_call_id":"c1","content":"v"},{"role":"user","content":[{"type":"text","text":"go"}]}`), at)
	f.Add(first, []byte(`,{"role":"system","content":"s"}`), at)
	f.Add(first, []byte(`,{"role":"tool","tool_call_id":"c1","content":"v"}],"Messages":[`), at)
	f.Add(first, []byte(`,"temperature":1`), uint32(len(first)-1))
	f.Add(first, []byte(head+`,{"role":"system","content":"s"}],"temperature":1}`), ^uint32(0))
	f.Add([]byte(`{"messages":[]}`), []byte(` {"role":"user","content":[{"type":"text","text":"x"}]} `), uint32(13))
	f.Fuzz(func(t *testing.T, first, add []byte, at uint32) {
		prev, err := openai.DecodeNext(nil, first)
		if err != nil {
			return
		}
		body := add
		if int64(at) <= int64(len(first)) {
			body = slices.Concat(first[:at], add, first[at:])
		}
		want, wantErr := openai.DecodeRequest(body)
		got, err := openai.DecodeNext(prev, body)
		switch {
		case wantErr != nil:
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("DecodeNext: %v, DecodeRequest: %v", err, wantErr)
			}
			return
		case err != nil:
			t.Fatalf("DecodeNext refuses what DecodeRequest reads: %v", err)
		case !reflect.DeepEqual(got.Call, want):
			t.Fatalf("DecodeNext read\n%+v\nDecodeRequest\n%+v", got.Call, want)
		case got.Reused > 0 && !reflect.DeepEqual(got.Call.Messages[:got.Reused], prev.Call.Messages):
			t.Fatalf("the %d messages reused are not the last request's", got.Reused)
		}
		if int64(at) <= int64(len(first)) {
			checkForks(t, got, want, body, int(at)+len(add))
		}
	})
}

// checkForks reads two requests against d, read from body and giving want:
// each adds its own message at end (an agent retrying, or two forks of one
// conversation). Neither may change what was read before it.
func checkForks(t *testing.T, d *openai.Decoded, want *openai.Call, body []byte, end int) {
	t.Helper()
	one := slices.Concat(body[:end], []byte(`,{"role":"user","content":"one"}`), body[end:])
	two := slices.Concat(body[:end], []byte(`,{"role":"user","content":"two"}`), body[end:])
	got, err := openai.DecodeNext(d, one)
	if err != nil {
		return
	}
	wantOne, _ := openai.DecodeRequest(one)
	if _, err := openai.DecodeNext(d, two); err != nil {
		t.Fatalf("%q reads after %q, not after %q: %v", two, body, one, err)
	}
	if !reflect.DeepEqual(got.Call, wantOne) || !reflect.DeepEqual(d.Call, want) {
		t.Fatalf("reading %q against %q changed what %q read:\n%+v\nDecodeRequest\n%+v", two, body, one, got.Call, wantOne)
	}
}
