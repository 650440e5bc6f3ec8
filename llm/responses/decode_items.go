package responses

import (
	"bytes"
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

// headNames are the members eventHead reads.
var headNames = []string{"type", "error"}

// eventTypes are the types Event acts on, and those every stream sends:
// eventHead reads them without a copy. Deltas, the most of a stream, first.
var eventTypes = [...]string{
	EventTextDelta, EventArgsDelta, EventSummaryDelta, EventReasoningDelta, EventRefusalDelta,
	EventItemAdded, EventItemDone, EventCompleted, EventIncomplete, EventFailed, EventError,
	EventCreated, EventInProgress, EventPartAdded, EventPartDone, EventTextDone, EventArgsDone,
	EventSummaryPartAdded, EventSummaryPartDone, EventSummaryDone,
}

// eventHead reads what Event must know of data before it decodes the
// event as its kind: the type ("" when it has none) and whether an error
// member that is not null says the call failed, both as json.Unmarshal
// reads them (a repeated member's last value counts), or the error
// json.Unmarshal gives data that is no such object. Read by hand, the
// usual event is decoded once, and an event Event passes over not at all.
func eventHead(data []byte) (typ string, failed bool, err error) {
	if typ, failed, ok := scanHead(data); ok {
		return typ, failed, nil
	}
	// What the scan leaves to encoding/json: a repeated, escaped or
	// other-case name, a type that is no string, text that is no object.
	var probe struct {
		Type  string          `json:"type"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return "", false, err
	}
	return probe.Type, len(probe.Error) > 0 && string(bytes.TrimSpace(probe.Error)) != "null", nil
}

// scanHead is eventHead's reading by hand: the top-level type and error
// members only, a value nested in another member skipped; false for what
// it leaves to encoding/json (see jsonscan.Fields).
func scanHead(data []byte) (typ string, failed, ok bool) {
	ok = jsonscan.Fields(data, headNames, func(k int, val []byte) bool {
		if k == 0 {
			return knownField(val, &typ, eventTypes[:])
		}
		failed = !jsonscan.IsNull(val)
		return true
	})
	return typ, failed, ok
}
