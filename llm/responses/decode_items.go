package responses

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// event is an event as the live decoder reads it: the members it
// uses, and no others, so a member it has no use for (a terminal
// response's instructions, which a prompt template makes an array) cannot
// fail the call whatever its kind.
type event struct {
	Type         string        `json:"type"`
	Response     *liveResponse `json:"response"`
	Item         *outputItem   `json:"item"`
	ItemID       string        `json:"item_id"`
	SummaryIndex *int          `json:"summary_index"`
	Delta        *string       `json:"delta"`
}

// liveResponse is the response of a terminal or failed event as the live
// decoder reads it.
type liveResponse struct {
	Error             *Error       `json:"error"`
	IncompleteDetails *Incomplete  `json:"incomplete_details"`
	Output            []outputItem `json:"output"`
	Usage             *Usage       `json:"usage"`
}

// outputItem is an output item as the live decoder reads it, by its type:
// a function call, a message or reasoning into Item; any other item only
// for what it may ask of the client (asked), Item left empty. Items the
// server ran itself carry nothing for the log, and their members need not
// be of the kinds Item declares (a tool search's arguments are an object):
// they are skipped, not read.
type outputItem struct {
	Item
	asked askedItem
}

// typeName is the one member itemType reads.
var typeName = []string{"type"}

// UnmarshalJSON reads b, an item encoding/json has checked is valid JSON.
// Item's content and output may be windows of b: the decoder is done with
// an event's items before the event returns. An item whose type is not a
// string fails as Item would.
func (o *outputItem) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	typ, ok := itemType(b)
	switch {
	case !ok:
		return json.Unmarshal(b, &o.Item)
	case typ == ItemFunctionCall || typ == ItemMessage || typ == ItemReasoning:
		return decodeItem(b, &o.Item)
	}
	// A member of another kind than askedItem's is left empty, the rest
	// read: b is valid, so that is the only error there can be.
	_ = json.Unmarshal(b, &o.asked)
	o.asked.Type = typ
	return nil
}

// itemType is the type of item b, "" when it has none, as encoding/json
// reads it; false when it is not a string (or b no object).
func itemType(b []byte) (string, bool) {
	var typ string
	if jsonscan.Fields(b, typeName, func(_ int, val []byte) bool { return wordField(val, &typ) }) {
		return typ, true
	}
	var probe struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &probe) != nil {
		return "", false
	}
	return probe.Type, true
}
