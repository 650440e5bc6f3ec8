package gemini

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
)

// decodeWhole is DecodeRequest, also returning the conversation as it
// stands after the last content: DecodeNext reads the next request's new
// contents on from there. It reads the usual bodies by hand (fastWhole),
// the rest with encoding/json (decodeStd): every session's first request
// is read whole, and encoding/json reads a body twice (once for the
// struct, once for the members), by reflection.
func decodeWhole(body []byte) (*Call, *conversation, error) {
	if call, c, ok := fastWhole(body); ok {
		return call, c, nil
	}
	return decodeStd(body)
}

// fastWhole reads body, a request of the shapes agents send, into the Call
// and conversation decodeStd makes of it. It returns false, for decodeStd
// to read, on anything it does not read exactly as encoding/json does: a
// name that is escaped, not ASCII, repeated (a known one) or a known one
// in other case, in the request or in a tool or declaration; a value of
// another kind; a content, instruction or tool decodeStd refuses; text
// after the object. A fuzz test holds it to decodeStd.
func fastWhole(body []byte) (*Call, *conversation, bool) {
	var w whole
	// The contents are most of a body: their elements are found in one
	// pass, and the other members read from a copy of the body without
	// them, which the settings may then keep (the caller may reuse body).
	var rest []byte
	elems := w.spans[:0]
	at, _, found := jsonscan.ArrayMember(body, "contents", noContents, noContentsAt, &elems)
	if found {
		rest = slices.Concat(body[:at.Arr], []byte("[]"), body[at.End:])
	} else {
		rest = bytes.Clone(body)
	}
	if !w.scan(rest) || !found && w.contents != nil && !jsonscan.IsNull(w.contents) {
		return nil, nil, false
	}
	out := &Call{Settings: w.settings()}
	if w.system != nil && !jsonscan.IsNull(w.system) && !fastSystem(w.system, &out.System) {
		return nil, nil, false
	}
	c := newConversation()
	var content Content // each content in turn: the conversation keeps nothing of it
	for i, e := range elems {
		content = Content{}
		if decodeContent(body[e[0]:e[1]], &content) != nil || c.add(i, &content) != nil {
			return nil, nil, false
		}
	}
	out.Messages, out.Media, out.Responses = c.messages(), c.media, c.responses
	if w.tools != nil && !jsonscan.IsNull(w.tools) {
		var extra []json.RawMessage
		var ok, openAPI bool
		if out.Tools, extra, openAPI, ok = fastTools(w.tools); !ok {
			return nil, nil, false
		}
		switch {
		case openAPI:
			out.Settings["tools"] = jsonscan.Window(w.tools) // as sent (declarationsSayMore)
		case len(extra) > 0:
			b, _ := json.Marshal(extra)
			out.Settings["tools"] = b
		}
	}
	return out, c, true
}

// noContents is a body whose contents every array begins with: read
// against it, ArrayMember lists the elements of a body's contents.
var noContents = []byte(`{"contents":[]}`)

var noContentsAt, _, _ = jsonscan.ArrayMember(noContents, "contents", nil, jsonscan.Spans{}, nil)

// whole is a request object's members, as scanned.
type whole struct {
	contents, system, tools []byte
	other                   []member // the settings, in order
	first                   [4]member
	spans                   [64][2]int // room for the contents of the usual body
}

type member struct{ key, val []byte }

// requestNames are the names encoding/json matches with Request's fields,
// in any case.
var requestNames = [...]string{"contents", "systemInstruction", "tools"}

// scan reads rest's members, each value validated, refusing what
// fastWhole leaves to encoding/json.
func (w *whole) scan(rest []byte) bool {
	w.other = w.first[:0]
	return jsonscan.Known(rest, requestNames[:], func(k int, key, val []byte) bool {
		switch k {
		case -1:
			w.other = append(w.other, member{key, val})
		case 0:
			w.contents = val
		case 1:
			w.system = val
		default:
			w.tools = val
		}
		return true
	})
}

// settings returns the members but contents, systemInstruction and tools
// as decodeStd keeps them: the last of a name counts, and one that is an
// empty object is left out. The values are windows of the text scanned,
// which is fastWhole's own.
func (w *whole) settings() map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(w.other))
	for _, m := range w.other {
		name := settingName(m.key)
		if m.val[0] == '{' && jsonscan.SkipSpace(m.val, 1) == len(m.val)-1 {
			delete(out, name) // {}: says nothing
			continue
		}
		out[name] = jsonscan.Window(m.val)
	}
	return out
}

// settingNames are the settings the SDKs send, named without a copy.
var settingNames = [...]string{"generationConfig", "toolConfig", "safetySettings", "cachedContent", "labels"}

func settingName(key []byte) string {
	for _, name := range settingNames {
		if string(key) == name {
			return name
		}
	}
	return string(key)
}

// fastSystem reads the systemInstruction object val into *system.
func fastSystem(val []byte, system *string) bool {
	if val[0] != '{' {
		return false
	}
	var si Content
	if decodeContent(val, &si) != nil {
		return false
	}
	s, err := systemText(&si)
	*system = s
	return err == nil
}

// fastTools reads the tools array val as tools (in server.go) does: the
// function declarations as specs, each other tool (googleSearch, …) as
// encoding/json writes it again. openAPI reports whether a declaration
// has OpenAPI parameters: the tools are then a setting, as sent.
func fastTools(val []byte) (specs []llm.ToolSpec, extra []json.RawMessage, openAPI, ok bool) {
	if val[0] != '[' {
		return nil, nil, false, false
	}
	ok = jsonscan.EachElement(val, func(elem []byte) bool {
		switch elem[0] {
		case 'n':
			return true // a zero Tool, a nil map: nothing
		case '{':
		default:
			return false
		}
		var decls []byte
		others := false
		if !jsonscan.Known(elem, toolNames, func(k int, _, v []byte) bool {
			if k == 0 {
				decls = v
			} else {
				others = true
			}
			return true
		}) {
			return false
		}
		if decls != nil && !fastDecls(decls, &specs, &openAPI) {
			return false
		}
		if others {
			x, ok := otherTool(elem)
			if !ok {
				return false
			}
			extra = append(extra, x)
		}
		return true
	})
	return specs, extra, openAPI, ok
}

// otherTool is the tool object elem less its function declarations, as
// encoding/json writes it: names in order, values compact. Few requests
// hold one, so encoding/json writes it.
func otherTool(elem []byte) (json.RawMessage, bool) {
	var e map[string]json.RawMessage
	if json.Unmarshal(elem, &e) != nil {
		return nil, false
	}
	delete(e, "functionDeclarations")
	b, err := json.Marshal(e)
	return b, err == nil
}

var toolNames = []string{"functionDeclarations"}

// fastDecls appends the specs of the functionDeclarations array val, a
// null declaration a zero one, as encoding/json reads it, and sets
// *openAPI when one has OpenAPI parameters. A declaration with a member
// but declNames is left to decodeStd: the tools are then a setting
// (declarationsSayMore), as they are with OpenAPI parameters.
func fastDecls(val []byte, specs *[]llm.ToolSpec, openAPI *bool) bool {
	if jsonscan.IsNull(val) {
		return true
	}
	return jsonscan.EachElement(val, func(elem []byte) bool {
		var d FunctionDeclaration
		if elem[0] != 'n' && !jsonscan.Known(elem, declNames, func(k int, _, v []byte) bool {
			switch k {
			case -1:
				return false
			case 0:
				return jsonscan.StringField(v, &d.Name)
			case 1:
				return jsonscan.StringField(v, &d.Description)
			case 2:
				d.Parameters = jsonscan.Window(v)
				*openAPI = *openAPI || present(v)
			default:
				d.ParametersJSONSchema = jsonscan.Window(v)
			}
			return true
		}) {
			return false
		}
		spec, err := toolSpec(d)
		if err != nil {
			return false
		}
		*specs = append(*specs, spec)
		return true
	})
}
