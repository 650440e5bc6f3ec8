package responses

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// decodeItem reads b, one input item, into it, a zero Item, as
// json.Unmarshal does: the usual shapes by hand (fastItem), anything else
// with encoding/json, whose error it returns. Its content and output may
// be windows of b.
func decodeItem(b []byte, it *Item) error { return jsonscan.Decode(b, it, fastItem) }

var (
	itemNames = []string{"type", "id", "status", "role", "phase", "content", "call_id", "name", "arguments", "output", "summary", "encrypted_content"}
	partNames = []string{"type", "text", "refusal", "annotations"}
)

// fastItem reads b, an item object of the shapes agents send, into it as
// json.Unmarshal would; its content and output are windows of b. It
// returns false, it left in any state, for anything it does not read
// exactly as encoding/json does (see jsonscan.Fields): a name that is
// escaped, not ASCII, repeated (a known one) or a known one in other
// case; a value of another kind; a summary part it cannot read; text that
// is not one object. A fuzz test holds it to encoding/json.
func fastItem(b []byte, it *Item) bool {
	return jsonscan.Fields(b, itemNames, func(k int, val []byte) bool {
		switch k {
		case 0:
			return wordField(val, &it.Type)
		case 1:
			return jsonscan.StringField(val, &it.ID)
		case 2:
			return wordField(val, &it.Status)
		case 3:
			return jsonscan.StringField(val, &it.Role)
		case 4:
			return wordField(val, &it.Phase)
		case 5:
			it.Content = jsonscan.Window(val)
		case 6:
			return jsonscan.StringField(val, &it.CallID)
		case 7:
			return jsonscan.StringField(val, &it.Name)
		case 8:
			return jsonscan.PtrField(val, &it.Arguments, jsonscan.StringField)
		case 9:
			it.Output = jsonscan.Window(val)
		case 10:
			return fastParts(val, &it.Summary)
		default:
			return jsonscan.PtrField(val, &it.EncryptedContent, jsonscan.StringField)
		}
		return true
	})
}

// words are the values of types, statuses and phases that every request
// repeats: wordField reads them without a copy.
var words = [...]string{
	ItemMessage, ItemFunctionCall, ItemFunctionCallOutput, ItemReasoning, ItemReference,
	StatusCompleted, StatusIncomplete, StatusInProgress, "commentary", "final_answer",
	"input_text", "output_text", "summary_text", "reasoning_text", "refusal",
}

// wordField is jsonscan.StringField, a value of words not copied.
func wordField(val []byte, dst *string) bool { return knownField(val, dst, words[:]) }

// knownField is jsonscan.StringField, a value of known not copied.
func knownField(val []byte, dst *string, known []string) bool {
	if len(val) > 2 && val[0] == '"' {
		for _, w := range known {
			if string(val[1:len(val)-1]) == w { // no escape: the value is the bytes
				*dst = w
				return true
			}
		}
	}
	return jsonscan.StringField(val, dst)
}

// fastParts reads val, a valid value, as json.Unmarshal reads a []Part:
// null is nil, [] an empty slice, a null element a zero Part; false for a
// value or element of another kind and a part fastPart cannot read.
func fastParts(val []byte, dst *[]Part) bool {
	if jsonscan.IsNull(val) {
		*dst = nil
		return true
	}
	parts, ok := jsonscan.Slice(val, fastPart)
	*dst = parts
	return ok
}

// fastPart reads one part object as json.Unmarshal would; annotations are
// a window of b.
func fastPart(b []byte, p *Part) bool {
	return jsonscan.Fields(b, partNames, func(k int, val []byte) bool {
		switch k {
		case 0:
			return wordField(val, &p.Type)
		case 1:
			return jsonscan.StringField(val, &p.Text)
		case 2:
			return jsonscan.StringField(val, &p.Refusal)
		}
		p.Annotations = jsonscan.Window(val)
		return true
	})
}

// handParts is fastParts for raw, any text: false unless raw is one valid
// value that fastParts reads. Validated as a member, it nests no deeper
// than encoding/json allows.
func handParts(raw []byte) ([]Part, bool) {
	var parts []Part
	if end, err := jsonscan.SkipMember(raw, 0); err != nil || end != len(raw) || !fastParts(raw, &parts) {
		return nil, false
	}
	return parts, true
}

// readParts reads raw as json.Unmarshal reads a []Part, by hand when it
// can; false when encoding/json refuses it.
func readParts(raw []byte) ([]Part, bool) {
	if len(raw) == 0 {
		return nil, false // encoding/json: unexpected end of input
	}
	if parts, ok := handParts(raw); ok {
		return parts, true
	}
	var parts []Part
	return parts, json.Unmarshal(raw, &parts) == nil
}

// fastText is contentText by hand, for raw trimmed, neither empty nor
// null: a string, or an array of parts; false for anything it does not
// read as contentText does, which contentText then reads.
func fastText(raw []byte) (string, bool) {
	switch raw[0] {
	case '"':
		if end, _, err := jsonscan.SkipString(raw, 0); err != nil || end != len(raw) {
			return "", false
		}
		s, err := jsonscan.String(raw)
		return s, err == nil
	case '[':
		parts, ok := handParts(raw)
		if k, _ := notText(parts); !ok || k >= 0 {
			return "", false // what is not text: contentText's error
		}
		return partsText(parts), true
	}
	return "", false
}
