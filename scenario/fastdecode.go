package scenario

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// decodeFast decodes the shapes scenario.json's members almost always
// have — a string, strings, an integer, a boolean, a duration string, the
// agent object kept raw, a recorded object of string members named
// exactly — without encoding/json, and reports whether it did, with what
// json.Unmarshal gives them. Everything else (null, a type mismatch, a number
// encoding/json refuses for an int, a member name of another case or
// escaped) it leaves to encoding/json, whose errors name the member. raw
// is one value of a valid JSON text, a copy of its own.
func decodeFast(raw []byte, dst any) bool {
	switch p := dst.(type) {
	case *string:
		s, err := jsonscan.String(raw)
		if err != nil {
			return false
		}
		*p = s
	case *[]string:
		v, err := jsonscan.Strings(raw)
		if err != nil {
			return false
		}
		*p = v
	case *json.RawMessage:
		// json.Unmarshal keeps the value without the space around it.
		if len(raw) == 0 || jsonscan.SkipSpace(raw, 0) != 0 || jsonscan.SkipSpace(raw[len(raw)-1:], 0) != 0 {
			return false
		}
		*p = raw
	case *int:
		n, err := jsonscan.Int(raw)
		if err != nil {
			return false
		}
		*p = int(n)
	case *bool:
		v, err := jsonscan.Bool(raw)
		if err != nil {
			return false
		}
		*p = v
	case *Duration:
		// Duration.UnmarshalJSON decodes its string with encoding/json
		// again, inside json.Unmarshal's own pass; a bad one is left to it
		// for its message.
		str, err := jsonscan.String(raw)
		if err != nil {
			return false
		}
		v, err := time.ParseDuration(str)
		if err != nil || v < 0 {
			return false
		}
		*p = Duration(v)
	case **Recorded:
		return *p == nil && decodeRecorded(raw, p)
	default:
		return false
	}
	return true
}

var errSlow = errors.New("scenario: left to encoding/json")

// decodeRecorded decodes a recorded object whose members are all known
// names, written exactly, with string values.
func decodeRecorded(raw []byte, dst **Recorded) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	r := &Recorded{}
	err := jsonscan.Members(raw, func(key []byte, esc bool, val []byte) error {
		f := r.field(string(key))
		if esc || f == nil {
			return errSlow
		}
		s, err := jsonscan.String(val)
		if err != nil {
			return errSlow
		}
		*f = s
		return nil
	})
	if err != nil {
		return false
	}
	*dst = r
	return true
}

// field returns where recorded's member key decodes to, or nil.
func (r *Recorded) field(key string) *string {
	switch key {
	case "provider":
		return &r.Provider
	case "model":
		return &r.Model
	case "at":
		return &r.At
	case "by":
		return &r.By
	case "runtime":
		return &r.Runtime
	case "playbook":
		return &r.Playbook
	case "lineage":
		return &r.Lineage
	}
	return nil
}
