package scenario

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeFast checks that decodeFast, whenever it decodes a member,
// gives what json.Unmarshal gives into the same destination, for any
// valid JSON value and each of the destinations Parse decodes into.
//
//	go test -run '^$' -fuzz '^FuzzDecodeFast$' -fuzztime 60s ./scenario
func FuzzDecodeFast(f *testing.F) {
	for _, s := range []string{
		`"a"`, `"caf\u00e9 \ud800 \n"`, "\"\xff\"", `""`, `null`, `true`, `false`, `0`, `-0`, `17`, `1e3`, `1.0`,
		`-9223372036854775808`, `9223372036854775808`, `123456789012345678901`,
		`[]`, `["a","b"]`, `["a",null]`, `[1]`, `[ "a" , "b" ]`, `{}`, `{"preset":"default","tools":["a"]}`,
		`{"provider":"playbook","model":"m","at":"2000-01-01T00:00:00Z","by":"x","runtime":"reference","playbook":"sha256:1"}`,
		`"300ms"`, `"1h2m3.5s"`, `"-1s"`, `"0"`, `"5"`, `"1\u0073"`, `"soon"`,
		`{"Model":"m"}`, `{"model":"m","model":"n"}`, `{"mod\u0065l":"m"}`, `{"model":null}`, `{"model":1}`, `{"extra":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		for _, zero := range []func() any{
			func() any { return new(string) }, func() any { return new([]string) }, func() any { return new(json.RawMessage) },
			func() any { return new(int) }, func() any { return new(bool) }, func() any { return new(*Recorded) },
			func() any { return new(Duration) },
		} {
			fast, slow := zero(), zero()
			// decodeFast is given a copy of its own, as objectMembers gives it.
			if !decodeFast(append([]byte(nil), raw...), fast) {
				continue
			}
			if err := json.Unmarshal(raw, slow); err != nil {
				t.Fatalf("%q into %T: decodeFast took it, json.Unmarshal refuses it: %v", raw, fast, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q into %T: decodeFast gives %#v, json.Unmarshal %#v", raw, fast, reflect.ValueOf(fast).Elem(), reflect.ValueOf(slow).Elem())
			}
		}
	})
}

// TestDecodeFastReadsTheUsualShapes keeps FuzzDecodeFast from passing on a
// decodeFast that leaves everything to encoding/json.
func TestDecodeFastReadsTheUsualShapes(t *testing.T) {
	for _, c := range []struct {
		raw string
		dst any
	}{
		{`"a"`, new(string)}, {`["a","b"]`, new([]string)}, {`{"preset":"default"}`, new(json.RawMessage)},
		{`17`, new(int)}, {`true`, new(bool)}, {`"300ms"`, new(Duration)}, {`{"provider":"playbook","model":"m","at":"t","by":"x"}`, new(*Recorded)},
	} {
		if !decodeFast([]byte(c.raw), c.dst) {
			t.Errorf("decodeFast leaves %s into %T to encoding/json", c.raw, c.dst)
		}
	}
}
