package jsonscan

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// TypeError words err, when it is a *json.UnmarshalTypeError that
// encoding/json met reading doc, in the terms of the API doc was sent to:
// the member by its JSON path in doc, what it is and what to send there
// ("messages is a string: send an array of message objects"). at is where
// doc stands in the request ("messages[2]"; "" for the body itself). It
// returns nil for any other error, which the caller words as before.
//
// It is for the error path only: it walks doc again to find the value
// encoding/json names by its field path alone (no array index, and the
// name of an embedded Go struct among the members').
func TypeError(doc []byte, at string, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return nil
	}
	kind := te.Value
	if i := strings.IndexByte(kind, ' '); i >= 0 {
		kind = kind[:i] // "number 3.5"
	}
	var segs []string
	if te.Field != "" {
		segs = strings.Split(te.Field, ".")
	}
	doc = doc[SkipSpace(doc, 0):]
	path, val, ok := locator{kind: kind}.locate(doc, segs, at)
	if !ok {
		path, val, ok = locator{kind: kind, skip: true}.locate(doc, segs, at)
	}
	if !ok {
		// Not found again (a decoder of its own in between): the path as
		// encoding/json has it, each array's index left out.
		path, val = join(at, te.Field), nil
	}
	name := path
	if name == "" {
		name = "the body"
	}
	return fmt.Errorf("%s is %s: send %s", name, sent(val, kind), want(te.Type, path))
}

// locator finds the value encoding/json names by its field path: the
// first in document order at that path whose JSON kind is kind. An array
// stands for each of its elements. With skip, a segment but the last that
// is no member of an object is taken for the name of an embedded Go
// struct, whose members are the object's own.
type locator struct {
	kind string
	skip bool
}

// locate returns the path (after at) and the text of the value in v at
// the member path segs.
func (l locator) locate(v []byte, segs []string, at string) (string, []byte, bool) {
	if len(v) == 0 {
		return "", nil, false
	}
	if len(segs) == 0 && kindOf(v[0]) == l.kind {
		return at, v, true
	}
	switch v[0] {
	case '[':
		return l.elems(v, segs, at)
	case '{':
		if len(segs) == 0 {
			return "", nil, false
		}
		if p, val, ok := l.member(v, segs, at); ok {
			return p, val, true
		}
		if l.skip && len(segs) > 1 {
			return l.locate(v, segs[1:], at)
		}
	}
	return "", nil, false
}

// elems is locate over each element of the array v.
func (l locator) elems(v []byte, segs []string, at string) (path string, val []byte, ok bool) {
	i := 0
	_ = Elements(v, func(e []byte) error {
		path, val, ok = l.locate(e, segs, at+"["+strconv.Itoa(i)+"]")
		i++
		if ok {
			return errStopped
		}
		return nil
	})
	return path, val, ok
}

// member is locate in the member of the object v named segs[0], as
// encoding/json matches a field: exactly, or else in any case.
func (l locator) member(v []byte, segs []string, at string) (path string, val []byte, ok bool) {
	try := func(fold bool) {
		_ = Members(v, func(key []byte, escaped bool, mv []byte) error {
			k := Key(key, escaped)
			if k == segs[0] || fold && strings.EqualFold(k, segs[0]) {
				path, val, ok = l.locate(mv, segs[1:], join(at, k))
			}
			if ok {
				return errStopped
			}
			return nil
		})
	}
	if try(false); !ok {
		try(true)
	}
	return path, val, ok
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// kindOf names the JSON kind that starts with c as encoding/json's
// UnmarshalTypeError.Value does.
func kindOf(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// sent describes the value sent, val (nil when not found again) of kind.
func sent(val []byte, kind string) string {
	switch {
	case kind == "number" && len(val) > 0 && len(val) <= 24:
		return "the number " + string(val)
	case kind == "bool" && len(val) > 0:
		return string(val)
	case kind == "bool":
		return "a boolean"
	}
	return Kind(kindByte(kind))
}

func kindByte(kind string) byte {
	switch kind {
	case "object":
		return '{'
	case "array":
		return '['
	case "string":
		return '"'
	case "null":
		return 'n'
	}
	return '0'
}

// want says what a value of Go type t is in JSON, for the member at path:
// an array's elements named after the member ("messages": message
// objects).
func want(t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if of := elems(t.Elem(), path); of != "" {
			return "an array of " + of
		}
		return "an array"
	case reflect.Struct, reflect.Map:
		if path == "" {
			return "a JSON object"
		}
		if of, ok := strings.CutSuffix(path, "]"); ok {
			// messages[2]: a message object
			if one := elems(t, of[:strings.LastIndexByte(of, '[')]); one != "objects" {
				one = strings.TrimSuffix(one, "s")
				if strings.ContainsRune("aeiou", rune(one[0])) {
					return "an " + one
				}
				return "a " + one
			}
		}
		return "an object"
	}
	return "another kind of value"
}

// elems names the elements of an array of Go type t at path, or "".
func elems(t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Bool:
		return "booleans"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integers"
	case reflect.Float32, reflect.Float64:
		return "numbers"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() != reflect.Uint8 { // json.RawMessage: any value
			return "arrays"
		}
	case reflect.Struct, reflect.Map:
		name := path[strings.LastIndexAny(path, ".]")+1:]
		if one, ok := strings.CutSuffix(name, "s"); ok && one != "" {
			return one + " objects"
		}
		return "objects"
	}
	return ""
}
