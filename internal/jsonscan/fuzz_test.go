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

// stdCanonical is what AppendCanonical must equal: encoding/json decodes
// b into an any (UseNumber), refusing anything but space after the value,
// and encodes it again with HTML escaping off.
func stdCanonical(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if rest := bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, errors.New("data after the value")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// canonicalSeeds are texts whose canonical form is easy to get wrong.
var canonicalSeeds = []string{
	`{"b":1,"a":{"d":[{"z":0,"y":1}],"c":2}}`, `{"a":1,"a":2,"b":3,"a":4}`, `{"\u0062":1,"a":2,"b":3}`,
	`{"a\"":1,"a":2,"a\\":3,"a/":4,"a\/":5}`, `{"é":1,"e":2,"\u00e9":3}`, "{\"\xff\":1,\"\\ufffd\":2,\"\xfe\":3}",
	`"\ud83d\ude00 \ud83d x \ude00 \ud800\ud800\udc00 \u2028\u2029 \u0000\u001f\u007f \b\f\n\r\t\"\\\/"`,
	"\"\xe2\x80\xa8\xe2\x80\xa9 <&> \xed\xa0\x80 \xc0\xaf\"", `[1E5,-0,1.50,0e-0,-1.0E+10,123456789012345678901234567890]`,
	`{}`, `[]`, ` [ { } , [ ] ] `, "\t{\"a\" :\n[1 ,2]}\r\n", `{"a":1} x`, `{"a":1}}`, `1 2`, `"s"x`, `true x`,
	`{"a":[1,2}`, `{"":0," ":1,"\t":2}`, `[{"b":[{"d":1,"c":2}],"a":{"f":{"h":1,"g":2},"e":3}}]`,
}

// FuzzAppendCanonical holds AppendCanonical to the encoding/json round
// trip: the same bytes, and an error exactly when it errors.
func FuzzAppendCanonical(f *testing.F) {
	for _, s := range validityCases {
		f.Add([]byte(s))
	}
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantErr := stdCanonical(b)
		got, err := jsonscan.AppendCanonical([]byte("x"), b)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("AppendCanonical(%q): %v; encoding/json: %v", b, err, wantErr)
		}
		if err != nil {
			var syn *jsonscan.SyntaxError
			if !errors.As(err, &syn) || string(got) != "x" {
				t.Fatalf("AppendCanonical(%q) = %q, %v; want x and a *SyntaxError", b, got, err)
			}
			return
		}
		if string(got) != "x"+string(want) {
			t.Fatalf("AppendCanonical(%q):\n ours %q\n std  %q", b, got[1:], want)
		}
	})
}
