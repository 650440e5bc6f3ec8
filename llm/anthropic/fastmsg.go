package anthropic

import (
	"encoding/json"
	"slices"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// decodeElem reads one element of a request's messages into m, a zero
// Message, as json.Unmarshal does: the usual shapes by hand (fastMessage),
// anything else with encoding/json. encoding/json reads a message's blocks
// twice over (Block.UnmarshalJSON), most of what reading a call's new
// messages costs.
func decodeElem(b []byte, m *Message) error { return jsonscan.Decode(b, m, fastMessage) }

// fastMessage reads b, a message object of the shapes agents send, into
// m as json.Unmarshal would; strings and inputs may be windows of b. It
// returns false, m left in any state, for anything it does not read
// exactly as encoding/json does: a name that is escaped, not ASCII,
// repeated (a known one) or a known one in other case; a value of another
// kind; a block that is not an object; text that is not one JSON object.
// Members it does not know are skipped, as encoding/json skips them. A
// fuzz test holds it to encoding/json.
func fastMessage(b []byte, m *Message) bool {
	return jsonscan.Fields(b, messageNames, func(k int, val []byte) bool {
		if k == 0 {
			return jsonscan.StringField(val, &m.Role)
		}
		return fastContent(val, &m.Content)
	})
}

var (
	messageNames = []string{"role", "content"}
	blockNames   = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input", "tool_use_id", "content", "is_error", "cache_control"}
)

// fastContent reads content as Content.UnmarshalJSON does: null, a string
// (one text block) or an array of blocks (an empty one an empty Content).
func fastContent(val []byte, c *Content) bool {
	switch val[0] {
	case 'n':
		*c = nil
		return true
	case '"':
		var s string
		if !jsonscan.StringField(val, &s) {
			return false
		}
		*c = Content{{Type: TypeText, Text: s}}
		return true
	case '[':
	default:
		return false
	}
	blocks := Content{}
	ok := jsonscan.EachElement(val, func(elem []byte) bool {
		blocks = append(blocks, Block{})
		if !fastBlock(elem, &blocks[len(blocks)-1]) {
			return false
		}
		return true
	})
	*c = blocks
	return ok
}

// fastBlock reads one block as Block.UnmarshalJSON does: a content
// member is read only for a tool_result block, whichever member comes
// first.
func fastBlock(b []byte, blk *Block) bool {
	var content []byte
	ok := jsonscan.Fields(b, blockNames, func(k int, val []byte) bool {
		switch k {
		case 0:
			return jsonscan.StringField(val, &blk.Type)
		case 1:
			return jsonscan.StringField(val, &blk.Text)
		case 2:
			return jsonscan.StringField(val, &blk.Thinking)
		case 3:
			return jsonscan.StringField(val, &blk.Signature)
		case 4:
			return jsonscan.StringField(val, &blk.Data)
		case 5:
			return jsonscan.StringField(val, &blk.ID)
		case 6:
			return jsonscan.StringField(val, &blk.Name)
		case 7:
			blk.Input = jsonscan.Window(val)
			return true
		case 8:
			return jsonscan.StringField(val, &blk.ToolUseID)
		case 9:
			content = val
			return true
		case 11:
			blk.CacheControl = jsonscan.Window(val)
			return true
		}
		return jsonscan.BoolField(val, &blk.IsError)
	})
	if ok && !readsOwn(blk.Type) {
		// A copy, as UnmarshalJSON keeps: an image's block goes on with the
		// conversation (llm.Media), and a window would hold the whole body
		// that brought it, every image before it included, as long.
		blk.raw = slices.Clone(json.RawMessage(b))
	}
	if !ok || blk.Type != TypeToolResult || content == nil {
		return ok
	}
	return fastContent(content, &blk.Content)
}
