package jsonscan

import "encoding/json"

// Decode reads b into v as json.Unmarshal does: with fast, a hand reader,
// when it reads b (fast returns false, v in any state, for anything it
// does not read exactly as encoding/json does), else with encoding/json,
// v reset to its zero value first, whose error Decode returns.
func Decode[T any](b []byte, v *T, fast func(b []byte, v *T) bool) error {
	if fast(b, v) {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(b, v)
}

// Window is val as a RawMessage that an append cannot write past: a value
// a hand reader keeps as its caller's bytes, not a copy.
func Window(val []byte) json.RawMessage { return val[:len(val):len(val)] }
