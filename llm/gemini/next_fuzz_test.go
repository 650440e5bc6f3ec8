package gemini_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/llm/gemini"
)

// FuzzDecodeNext checks that a request read against any earlier one is
// read as DecodeRequest reads it, or refused with its error. The second
// body is the first with insert put in at cut (a new content after the
// last, when cut is the end of the contents), or, when whole is set,
// insert itself.
func FuzzDecodeNext(f *testing.F) {
	head := `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"c2ln"},{"functionCall":{"name":"f"}}]}`
	tail := `],"systemInstruction":{"parts":[{"text":"s"}]},"tools":[{"functionDeclarations":[{"name":"f"}]}]}`
	result := `,{"parts":[{"functionResponse":{"name":"f","response":{"output":"v"}}}]}`
	at := uint16(len(head))
	f.Add([]byte(head+tail), at, []byte(result), false)
	f.Add([]byte(head+result+tail), at, []byte(result+`,{"role":"model","parts":[{"text":"ok"}]}`), false)
	f.Add([]byte(head+tail), at, []byte(`,{"role":"model","parts":[{"text":"more"}]}`), false)
	f.Add([]byte(head+tail), at, []byte(`,{"parts":[{}]},{"role":"model","parts":[{"thoughtSignature":"eA=="}]}`), false)
	f.Add([]byte(head+tail), at, []byte(result+`],"generationConfig":{"temperature":1},"x":[`), false)
	f.Add([]byte(head+tail), at+uint16(len(tail))-1, []byte(`,"Contents":[]`), false)
	f.Add([]byte(head+tail), uint16(13), []byte(`{"role":"user","parts":[{"text":"x"}]},`), false)
	f.Add([]byte(`{"contents":[]}`), uint16(0), []byte(`{"contents":[ {"role":"user","parts":[{"text":"x"}]} ] }`), true)
	f.Fuzz(func(t *testing.T, first []byte, cut uint16, insert []byte, whole bool) {
		prev, err := gemini.DecodeNext(nil, first)
		if err != nil {
			return
		}
		if !reflect.DeepEqual(prev.Call, mustDecode(first)) {
			t.Fatalf("DecodeNext(nil) differs from DecodeRequest on %q", first)
		}
		body := insert
		if !whole {
			k := int(cut) % (len(first) + 1)
			body = slices.Concat(first[:k], insert, first[k:])
		}
		want, wantErr := gemini.DecodeRequest(body)
		got, err := gemini.DecodeNext(prev, body)
		switch {
		case !reflect.DeepEqual(prev.Call, mustDecode(first)):
			t.Fatalf("reading against the last request changed it")
		case wantErr != nil:
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("DecodeNext: %v, DecodeRequest: %v", err, wantErr)
			}
		case err != nil:
			t.Fatalf("DecodeNext refuses what DecodeRequest reads: %v", err)
		case !reflect.DeepEqual(got.Call, want):
			t.Fatalf("DecodeNext read\n%+v\nDecodeRequest\n%+v", got.Call, want)
		case got.Reused > 0 && got.Reused != len(prev.Call.Messages):
			t.Fatalf("reused %d messages of the last request's %d: all or none", got.Reused, len(prev.Call.Messages))
		case got.Reused > 0 && !reflect.DeepEqual(got.Call.Messages[:got.Reused], prev.Call.Messages):
			t.Fatalf("the reused messages are not the last request's")
		}
	})
}

func mustDecode(body []byte) *gemini.Call {
	c, _ := gemini.DecodeRequest(body)
	return c
}
