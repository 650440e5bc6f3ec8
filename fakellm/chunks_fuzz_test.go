package fakellm_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// FuzzEntryChunks checks that an entry's chunks read without encoding/json
// are what json.Unmarshal reads from the compacted text: the same chunks,
// or an error alike.
func FuzzEntryChunks(f *testing.F) {
	for _, s := range []string{
		`[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"hi"}]`,
		"[\n  {\"type\": \"text-delta\", \"index\": 0, \"text\": \"hi\", \"meta\": {\n    \"x\": [1,\n 2]\n  }},\n  {\"type\": \"finish\", \"reason\": {\"kind\": \"stop\"}}\n]",
		`[]`, `null`, `[1]`, `[{"type":"finish"}, "x"]`, `[{"type":"nope","index":-1}]`, `{}`, `"s"`, `[`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := fakellm.EntryChunks(data)
		var want []session.Chunk
		var compact bytes.Buffer
		wantErr := json.Compact(&compact, data)
		if wantErr == nil {
			wantErr = json.Unmarshal(compact.Bytes(), &want)
		}
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: read %v, encoding/json %v", data, err, wantErr)
		}
		if err != nil {
			if json.Valid(data) && err.Error() != wantErr.Error() {
				t.Fatalf("%q: read says %q, encoding/json %q", data, err, wantErr)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read %#v, encoding/json %#v", data, got, want)
		}
	})
}
