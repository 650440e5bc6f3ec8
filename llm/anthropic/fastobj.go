package anthropic

import (
	"bytes"
	"errors"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// errFallBack stops a walk whose text is left to encoding/json.
var errFallBack = errors.New("left to encoding/json")

// eachKnown reads the object b is, exactly, as encoding/json reads it into
// a struct of fields names: member(k, val) for names[k]; a member of
// another name is skipped, its value validated. It refuses a name that is
// escaped or not ASCII (encoding/json folds some other letters to ASCII
// ones), one of names repeated or in other case, and anything but one
// object.
func eachKnown(b []byte, names []string, member func(k int, val []byte) bool) bool {
	it, ok := openObject(b)
	if !ok {
		return false
	}
	var seen uint
	for {
		key, val, more, ok := it.next()
		if !ok {
			return false
		}
		if !more {
			return jsonscan.SkipSpace(b, it.i) == len(b)
		}
		for k, name := range names {
			switch {
			case string(key) == name:
				if seen&(1<<k) != 0 || !member(k, val) {
					return false
				}
				seen |= 1 << k
			case otherCase(key, name):
				return false
			}
		}
	}
}

// otherCase reports whether key is not ASCII, or is name in other case:
// encoding/json might fill name's field from it.
func otherCase(key []byte, name string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return bytes.EqualFold(key, []byte(name))
}

// members steps through the members of an object, validating it.
type members struct {
	b []byte
	i int
}

// openObject starts at the object b begins with (after space).
func openObject(b []byte) (members, bool) {
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return members{}, false
	}
	return members{b: b, i: jsonscan.SkipSpace(b, i+1)}, true
}

// next returns the next member's unescaped name and its value, more false
// past the closing brace (it.i then past it), ok false on text that is not
// an object or a name with escapes.
func (it *members) next() (key, val []byte, more, ok bool) {
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
	end, esc, err := jsonscan.SkipString(b, i)
	if err != nil || esc {
		return nil, nil, false, false
	}
	key = b[i+1 : end-1]
	if i = jsonscan.SkipSpace(b, end); i >= len(b) || b[i] != ':' {
		return nil, nil, false, false
	}
	i = jsonscan.SkipSpace(b, i+1)
	vend, err := jsonscan.SkipMember(b, i)
	if err != nil {
		return nil, nil, false, false
	}
	val = b[i:vend]
	switch i = jsonscan.SkipSpace(b, vend); {
	case i < len(b) && b[i] == ',':
		if i = jsonscan.SkipSpace(b, i+1); i >= len(b) || b[i] != '"' {
			return nil, nil, false, false // no trailing comma
		}
	case i >= len(b) || b[i] != '}':
		return nil, nil, false, false
	}
	it.i = i
	return key, val, true, true
}
