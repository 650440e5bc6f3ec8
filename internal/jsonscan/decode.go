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

// NamedSchema reads the object b of three members, names[0] to names[2],
// as encoding/json reads it into two strings and a json.RawMessage: a
// name, a description and a schema kept as the caller's bytes (Window) —
// a tool as Anthropic Messages and Chat Completions write one, under
// their own member names. Other members are skipped.
func NamedSchema(b []byte, names []string, name, description *string, schema *json.RawMessage) bool {
	return Fields(b, names, func(k int, val []byte) bool {
		switch k {
		case 0:
			return StringField(val, name)
		case 1:
			return StringField(val, description)
		}
		*schema = Window(val)
		return true
	})
}
