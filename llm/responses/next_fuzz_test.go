package responses_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/llm/responses"
)

// FuzzDecodeNext checks that a request read against any earlier one is
// read as Decode reads it, or refused with its error. The second body is
// the first with add spliced in at at — the next request of an agent,
// when add is an item or two and at the end of the input — or, with at
// past the first's end, add alone. The run served an item, fc_0, that the
// bodies may send back or reference.
func FuzzDecodeNext(f *testing.F) {
	head := `{"model":"m","instructions":"Be terse.","input":[{"role":"user","content":"hi"},` +
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"e"},{"type":"function_call","id":"fc_0","call_id":"call_0","name":"f","arguments":"{}"}`
	tail := `],"tools":[{"type":"function","name":"f","parameters":{}}],"store":false,"stream":true}`
	first := []byte(head + tail)
	at := uint32(len(head))
	output := `,{"type":"function_call_output","call_id":"call_0","output":[{"type":"input_text","text":"v"}]},{"role":"developer","content":"d"}`
	f.Add(first, []byte(output), at)
	f.Add(first, []byte(`,{"type":"function_call","call_id":"call_0","name":"g","arguments":"{}"}`+output), at)
	f.Add(first, []byte(`,{"role":"user","content":"x"},{"type":"item_reference","id":"fc_0"},{"type":"function_call_output","call_id":"call_0","output":"x"}`), at)
	f.Add(first, []byte(`,{"role":"wizard","content":"x"}`), at)
	f.Add(first, []byte(output+`],"Input":[`), at)
	f.Add(first, []byte(`,"temperature":0.5`), uint32(len(first)-1))
	f.Add(first, []byte(`,"previous_response_id":"resp_1"`), uint32(len(first)-1))
	f.Add(first, []byte(head+output+`],"instructions":"other"}`), ^uint32(0))
	f.Add([]byte(`{"input":[]}`), []byte(` {"role":"assistant","content":[{"type":"output_text","text":"x"}]} `), uint32(10))
	f.Add([]byte(`{"input":"hi"}`), []byte(`x`), uint32(11))
	f.Fuzz(func(t *testing.T, first, add []byte, at uint32) {
		s := servedRun()
		prev, err := s.DecodeNext(nil, first)
		if err != nil {
			return
		}
		body := add
		if int64(at) <= int64(len(first)) {
			body = slices.Concat(first[:at], add, first[at:])
		}
		sameAsDecode(t, s, prev, body)
	})
}

// FuzzDecodeChained checks that a request continuing a response by
// previous_response_id, read against a chained one, is read as Decode
// reads it, or refused with its error. The second body is the first with
// the drop bytes at at replaced by add — a new id and input when they
// cover those of the first — or, with at past the first's end, add
// alone. The run served resp_1 (fc_0 and msg_1) and the answer to the
// first request, resp_2, which continues it.
func FuzzDecodeChained(f *testing.F) {
	head := `{"model":"m","instructions":"Be terse.","previous_response_id":"`
	mid := `","input":[`
	tail := `],"tools":[{"type":"function","name":"f","parameters":{}}],"stream":true,"temperature":0.5}`
	items := `{"type":"function_call_output","call_id":"call_0","output":"v"},{"role":"developer","content":"d"}`
	first := []byte(head + "resp_1" + mid + items + tail)
	idAt := uint32(len(head))
	inAt := uint32(len(head + "resp_1" + mid))
	f.Add(first, []byte("resp_2"), idAt, uint32(len("resp_1")))
	f.Add(first, []byte(`{"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"w"}]}`), inAt, uint32(len(items)))
	f.Add(first, []byte(`resp_2","input":[{"role":"user","content":"x"},{"type":"item_reference","id":"fc_0"},{"role":"system","content":"s"}`), idAt, uint32(len(items)+len("resp_1")+len(mid)))
	f.Add(first, []byte(`resp_2","input":[{"role":"wizard","content":"x"}`), idAt, uint32(len(items)+len("resp_1")+len(mid)))
	f.Add(first, []byte(`,"previous_response_id":"resp_2"`), uint32(len(first)-1), uint32(0))
	f.Add(first, []byte(`,"Input":[]`), uint32(len(first)-1), uint32(0))
	f.Add(first, []byte(`,"conversation":null`), uint32(len(first)-1), uint32(0))
	f.Add(first, []byte(`.0`), uint32(len(first)-1), uint32(0))
	f.Add(first, []byte(`"Be terser.`), uint32(len(`{"model":"m","instructions":`)), uint32(len(`"Be terse.`)))
	f.Add(first, []byte(`{"previous_response_id":"resp_2","input":"x","stream":true}`), ^uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, first, add []byte, at, drop uint32) {
		s := servedRun()
		prev, err := s.DecodeNext(nil, first)
		if err != nil {
			return
		}
		if prev.Decoded.Store {
			s.PutNext("resp_2", prev, callAnswer("call_2"), []string{"fc_2"}, true)
		}
		body := add
		if int64(at) <= int64(len(first)) {
			end := min(int64(at)+int64(drop), int64(len(first)))
			body = slices.Concat(first[:at], add, first[end:])
		}
		sameAsDecode(t, s, prev, body)
	})
}

// sameAsDecode fails t unless body read against prev is what Decode reads
// (or refuses it with Decode's error). DecodeNext goes first, so that it
// takes the room a chain appends to in place, as it does in a run.
func sameAsDecode(t *testing.T, s *responses.Served, prev *responses.Next, body []byte) {
	t.Helper()
	got, err := s.DecodeNext(prev, body)
	want, wantErr := s.Decode(body)
	switch {
	case wantErr != nil:
		if err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("DecodeNext: %v, Decode: %v", err, wantErr)
		}
	case err != nil:
		t.Fatalf("DecodeNext refuses what Decode reads: %v", err)
	case !reflect.DeepEqual(got.Decoded, want):
		t.Fatalf("DecodeNext read\n%+v\nDecode\n%+v", got.Decoded, want)
	case got.Reused > 0 && !reflect.DeepEqual(got.Decoded.Messages[:got.Reused], prev.Decoded.Messages):
		t.Fatalf("the %d messages reused are not the last request's", got.Reused)
	}
}
