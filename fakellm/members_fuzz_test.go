package fakellm_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentsnap/agentsnap/fakellm"
)

// FuzzObjectMembers checks that the sidecar's member split gives what
// json.Unmarshal into a map[string]json.RawMessage gives, for any text:
// the same members (a repeated one's last value) or an error alike.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "b": {"c": [1, 2]}, "a": "x"}`, `{"k\u00e9y": null, "\ud800": 1}`, "{\"\xff\": 2}",
		` { } `, `null`, `[]`, `"s"`, `{"a":}`, `{"a":1} x`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := fakellm.ObjectMembers(data)
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(data, &want)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: split %v, encoding/json %v", data, err, wantErr)
		}
		if err != nil {
			if err.Error() != wantErr.Error() {
				t.Fatalf("%q: split says %q, encoding/json %q", data, err, wantErr)
			}
			return
		}
		if (got == nil) != (want == nil) || len(got) != len(want) {
			t.Fatalf("%q: split %v, encoding/json %v", data, got, want)
		}
		for k, v := range want {
			if !reflect.DeepEqual([]byte(got[k]), []byte(v)) {
				t.Fatalf("%q: member %q: split %s, encoding/json %s", data, k, got[k], v)
			}
		}
	})
}
