package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// A hand reader of a request's usual shapes reads an object member by
// member and leaves anything it does not read exactly as encoding/json
// would to encoding/json. ObjectIter and Fields are what those readers
// (openai, anthropic) share.

// ObjectIter steps through the members of one JSON object, each value
// validated as it is reached, so a reader that gives up at a member pays
// for no more.
type ObjectIter struct {
	b []byte
	i int
}

// OpenObject starts at the object b begins with (after space); false when
// it begins with anything else.
func OpenObject(b []byte) (ObjectIter, bool) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ObjectIter{}, false
	}
	return ObjectIter{b: b, i: SkipSpace(b, i+1)}, true
}

// Next returns the next member's name, unescaped, and its value; more is
// false past the closing brace. ok is false on text that is not an object
// (a trailing comma included) and on a name with escapes, which a reader
// must leave to encoding/json.
func (it *ObjectIter) Next() (key, val []byte, more, ok bool) {
	b, i := it.b, it.i
	if i >= len(b) {
		return nil, nil, false, false
	}
	if b[i] == '}' {
		it.i = i + 1
		return nil, nil, false, true
	}
	if b[i] != '"' {
		return nil, nil, false, false
	}
	end, esc, err := SkipString(b, i)
	if err != nil || esc {
		return nil, nil, false, false
	}
	key = b[i+1 : end-1]
	if i = SkipSpace(b, end); i >= len(b) || b[i] != ':' {
		return nil, nil, false, false
	}
	i = SkipSpace(b, i+1)
	vend, err := SkipMember(b, i)
	if err != nil {
		return nil, nil, false, false
	}
	val = b[i:vend]
	if i, ok = nextMember(b, vend); !ok {
		return nil, nil, false, false
	}
	it.i = i
	return key, val, true, true
}

// AtEnd reports whether only space follows the object, once Next said it
// has no more members.
func (it *ObjectIter) AtEnd() bool { return SkipSpace(it.b, it.i) == len(it.b) }

// Fields reads the object b is, exactly, as encoding/json reads it into a
// struct whose fields are names: field(k, val) for the member names[k]; a
// member of another name is skipped, its value validated. It refuses
// (false) a name that is escaped or not ASCII (encoding/json folds some
// other letters to ASCII ones: ſ to s, K to k), one of names repeated or
// in other case (encoding/json matches names without regard to case),
// anything but one object, and whatever field refuses.
func Fields(b []byte, names []string, field func(k int, val []byte) bool) bool {
	return Known(b, names, func(k int, _, val []byte) bool { return k < 0 || field(k, val) })
}

// Known walks the object b is, exactly, as Fields does, for a reader that
// keeps the other members too: member(k, key, val) for every member in
// order, k the index of its name in names, or -1 for another name. It
// refuses what Fields refuses: a name of names repeated, and a name that
// is escaped, not ASCII, or one of names in other case. names holds at
// most 64.
func Known(b []byte, names []string, member func(k int, key, val []byte) bool) bool {
	var seen uint64
	return EachMember(b, func(key, val []byte) bool {
		ascii := isASCII(key) // once a member, not once a name
		k := -1
		for i, name := range names {
			switch {
			case string(key) == name:
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				k = i
			case !ascii || foldsTo(key, name):
				return false
			}
		}
		return member(k, key, val)
	})
}

// EachMember walks the object b is, exactly (space around it allowed):
// member(key, val) for each member in order, the value validated. It
// returns false for anything but one object, and once member does.
func EachMember(b []byte, member func(key, val []byte) bool) bool {
	it, ok := OpenObject(b)
	if !ok {
		return false
	}
	for {
		key, val, more, ok := it.Next()
		if !ok {
			return false
		}
		if !more {
			return it.AtEnd()
		}
		if !member(key, val) {
			return false
		}
	}
}

func isASCII(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldsTo reports whether the ASCII key is the ASCII name in any case: an
// ASCII text folds only to one as long.
func foldsTo(key []byte, name string) bool {
	return len(key) == len(name) && bytes.EqualFold(key, []byte(name))
}

// StringField sets *dst as encoding/json sets a string field from val, a
// valid value: a string is decoded, null leaves *dst as it is. It returns
// false for a value of another kind, which encoding/json refuses (the
// hand readers leave such a text to it, for its error). The roles every
// message names, and the types of Anthropic's blocks, are not copied.
func StringField(val []byte, dst *string) bool {
	switch val[0] {
	case 'n':
		return true
	case '"':
	default:
		return false
	}
	switch string(val[1 : len(val)-1]) {
	case "user":
		*dst = "user"
	case "assistant":
		*dst = "assistant"
	case "model":
		*dst = "model"
	case "tool":
		*dst = "tool"
	case "system":
		*dst = "system"
	case "function":
		*dst = "function"
	case "text":
		*dst = "text"
	case "tool_use":
		*dst = "tool_use"
	case "tool_result":
		*dst = "tool_result"
	case "thinking":
		*dst = "thinking"
	default:
		s, err := String(val)
		if err != nil {
			return false
		}
		*dst = s
	}
	return true
}

// PtrField sets *dst as encoding/json sets a pointer field from val, a
// valid value: null sets nil, another value is read by field (StringField,
// BoolField) into a new T, false when field refuses it.
func PtrField[T any](val []byte, dst **T, field func(val []byte, dst *T) bool) bool {
	if IsNull(val) {
		*dst = nil
		return true
	}
	v := new(T)
	if !field(val, v) {
		return false
	}
	*dst = v
	return true
}

// BoolField is StringField for a bool field: true, false, or null, which
// leaves *dst as it is.
func BoolField(val []byte, dst *bool) bool {
	switch string(val) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	case "null":
	default:
		return false
	}
	return true
}
