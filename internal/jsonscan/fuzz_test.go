package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// member is one top-level member of an object as both decoders see it.
type member struct {
	Key string
	Val string
}

// stdMembers lists the members of a valid JSON object with encoding/json.
func stdMembers(t *testing.T, b []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{tok.(string), string(raw)})
	}
	return out
}

// FuzzObject checks that Object accepts exactly the valid JSON objects, that
// its errors have the right kind, and that it sees the same members as
// encoding/json.
func FuzzObject(f *testing.F) {
	for _, s := range validityCases {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a\u0062":[1,{"c":"\ud83d\ude00"}],"a":-0.5e-3,"":{}}`))
	f.Add([]byte("{\"k\xff\":\"v\xfe\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []member
		err := jsonscan.Object(b, func(key []byte, esc bool, val []byte) error {
			got = append(got, member{jsonscan.Key(key, esc), string(val)})
			return nil
		})
		valid := json.Valid(b)
		trimmed := bytes.TrimLeft(b, " \t\r\n")
		isObject := valid && trimmed[0] == '{'
		var notObj *jsonscan.ErrNotObject
		var syn *jsonscan.SyntaxError
		switch {
		case isObject && err != nil:
			t.Fatalf("Object refuses a valid object: %v", err)
		case valid && !isObject && !errors.As(err, &notObj):
			t.Fatalf("Object on a valid %s: %v, want *ErrNotObject", jsonscan.Kind(trimmed[0]), err)
		case !valid && !errors.As(err, &syn):
			t.Fatalf("Object on invalid JSON: %v, want *SyntaxError", err)
		}
		if isObject {
			if want := stdMembers(t, b); !equalMembers(got, want) {
				t.Fatalf("members differ:\n ours %q\n std  %q", got, want)
			}
		}
	})
}

func equalMembers(a, b []member) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzSkipValue checks SkipValue against json.Valid, and String against
// encoding/json on every valid string.
func FuzzSkipValue(f *testing.F) {
	for _, s := range validityCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		i := jsonscan.SkipSpace(b, 0)
		end, err := jsonscan.SkipValue(b, i)
		ours := err == nil && jsonscan.SkipSpace(b, end) == len(b)
		if ours != json.Valid(b) {
			t.Fatalf("SkipValue says %v (end %d, %v), json.Valid says %v", ours, end, err, !ours)
		}
		if !ours || b[i] != '"' {
			return
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got, err := jsonscan.String(b[i:end])
		if err != nil || got != want {
			t.Fatalf("String = %q, %v; encoding/json = %q", got, err, want)
		}
	})
}

// FuzzAppendString checks that every string encodes to valid JSON on one
// line that decodes back to it (invalid UTF-8 as U+FFFD, like encoding/json).
func FuzzAppendString(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := jsonscan.AppendString(nil, s)
		if !json.Valid(out) {
			t.Fatalf("AppendString(%q) = %q is not valid JSON", s, out)
		}
		if bytes.ContainsAny(out, "\n\r\u2028\u2029") {
			t.Fatalf("AppendString(%q) = %q holds a raw line break", s, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		std, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(std, &want); err != nil {
			t.Fatal(err)
		}
		if back != want || (utf8.ValidString(s) && back != s) {
			t.Fatalf("AppendString(%q) decodes to %q, want %q", s, back, want)
		}
		if got, err := jsonscan.String(out); err != nil || got != back {
			t.Fatalf("String(AppendString(%q)) = %q, %v", s, got, err)
		}
	})
}
