package gemini

import "github.com/agentsnap/agentsnap/internal/jsonscan"

// decodeContent reads one element of a request's contents into c as
// json.Unmarshal does: the usual shapes by hand (fastContent), anything
// else with encoding/json, c reset to zero first. encoding/json's
// reflection is most of what reading a call's new contents costs.
func decodeContent(b []byte, c *Content) error { return jsonscan.Decode(b, c, fastContent) }

var (
	contentNames  = []string{"role", "parts"}
	partNames     = []string{"text", "thought", "thoughtSignature", "functionCall", "functionResponse", "inlineData", "fileData", "executableCode", "codeExecutionResult", "toolCall", "toolResponse", "videoMetadata", "mediaResolution"}
	callNames     = []string{"id", "name", "args"}
	responseNames = []string{"id", "name", "response", "parts", "willContinue", "scheduling"}
)

// fastContent reads b, a content object of the shapes agents send, into
// c, a zero Content, as json.Unmarshal would; raw members (args,
// response, inlineData, …) are windows of b, so b must not change while
// c is in use. It returns false, c left in any state, for anything it
// does not read exactly as encoding/json does: a name that is escaped,
// not ASCII, repeated (a known one) or a known one in other case; a value
// of another kind than its field's; a part that is neither an object nor
// null; text that is not one JSON object. Members it does not know are
// skipped, as encoding/json skips them; null leaves a field as it is.
// A fuzz test holds it to encoding/json.
func fastContent(b []byte, c *Content) bool {
	return jsonscan.Fields(b, contentNames, func(k int, val []byte) bool {
		if k == 0 {
			return jsonscan.StringField(val, &c.Role)
		}
		return fastParts(val, &c.Parts)
	})
}

// fastParts reads parts: null (left as it is) or an array of parts (an
// empty one an empty, non-nil slice).
func fastParts(val []byte, parts *[]Part) bool {
	if jsonscan.IsNull(val) {
		return true
	}
	ps, ok := jsonscan.Slice(val, fastPart)
	*parts = ps
	return ok
}

// fastPart reads one part object.
func fastPart(b []byte, p *Part) bool {
	return jsonscan.Fields(b, partNames, func(k int, val []byte) bool {
		switch k {
		case 0:
			switch val[0] {
			case 'n':
				return true
			case '"':
				s, err := jsonscan.String(val)
				p.Text = &s
				return err == nil
			}
			return false
		case 1:
			return jsonscan.BoolField(val, &p.Thought)
		case 2:
			return jsonscan.StringField(val, &p.ThoughtSignature)
		case 3:
			switch val[0] {
			case 'n':
				return true
			case '{':
				p.FunctionCall = &FunctionCall{}
				return fastCall(val, p.FunctionCall)
			}
			return false
		case 4:
			switch val[0] {
			case 'n':
				return true
			case '{':
				p.FunctionResponse = &FunctionResponse{}
				return fastResponse(val, p.FunctionResponse)
			}
			return false
		case 5:
			p.InlineData = jsonscan.Window(val)
		case 6:
			p.FileData = jsonscan.Window(val)
		case 7:
			p.ExecutableCode = jsonscan.Window(val)
		case 8:
			p.CodeExecutionResult = jsonscan.Window(val)
		case 9:
			p.ToolCall = jsonscan.Window(val)
		case 10:
			p.ToolResponse = jsonscan.Window(val)
		case 11:
			p.VideoMetadata = jsonscan.Window(val)
		case 12:
			p.MediaResolution = jsonscan.Window(val)
		}
		return true
	})
}

// fastCall reads a functionCall object.
func fastCall(b []byte, fc *FunctionCall) bool {
	return jsonscan.Fields(b, callNames, func(k int, val []byte) bool {
		switch k {
		case 0:
			return jsonscan.StringField(val, &fc.ID)
		case 1:
			return jsonscan.StringField(val, &fc.Name)
		}
		fc.Args = jsonscan.Window(val)
		return true
	})
}

// fastResponse reads a functionResponse object.
func fastResponse(b []byte, fr *FunctionResponse) bool {
	return jsonscan.Fields(b, responseNames, func(k int, val []byte) bool {
		switch k {
		case 0:
			return jsonscan.StringField(val, &fr.ID)
		case 1:
			return jsonscan.StringField(val, &fr.Name)
		case 2:
			fr.Response = jsonscan.Window(val)
		case 3:
			fr.Parts = jsonscan.Window(val)
		case 4:
			fr.WillContinue = jsonscan.Window(val)
		case 5:
			fr.Scheduling = jsonscan.Window(val)
		}
		return true
	})
}
