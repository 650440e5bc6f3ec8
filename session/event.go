package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// Event types the agentsnap runtime writes. Logs may hold any other type;
// readers keep those verbatim.
const (
	TypeTurnStart        = "turn/start"
	TypeUserMessage      = "user/message"
	TypeStepStart        = "step/start"
	TypeRequestHeader    = "request/header"
	TypeAssistantChunk   = "assistant/chunk"
	TypeAssistantMessage = "assistant/message"
	TypeToolCall         = "tool/call"
	TypeToolResult       = "tool/result"
	TypeStepEnd          = "step/end"
	TypeTurnEnd          = "turn/end"
	// TypeHistoryReplace comes right before the step/start of a model call
	// whose request sends a conversation other than the log's; see
	// HistoryReplaceData.
	TypeHistoryReplace = "history/replace"
)

// Packed row types: one line standing for a run of assistant/chunk deltas.
const (
	TypeTextChunks      = "text-chunks"
	TypeReasoningChunks = "reasoning-chunks"
	TypeToolCallChunks  = "tool-call-chunks"
)

// Event is one logical event of a session log.
//
// Data is the event's payload, kept as the exact bytes of the log so unknown
// event types and unknown payload members survive. The typed payloads of the
// events the runtime writes are decoded with [Event.Decode].
type Event struct {
	Type            string
	Seq             int64
	Time            int64 // epoch milliseconds
	Data            json.RawMessage
	Ignorable       bool
	SourceEventSeqs []int64
	SurfaceOp       json.RawMessage // "append" or an object such as {"op":"replace",...}, verbatim

	// Extra holds top-level members this package does not know, verbatim.
	Extra map[string]json.RawMessage
}

// Decode unmarshals the event's data into v.
func (e *Event) Decode(v any) error {
	if len(e.Data) == 0 {
		return fmt.Errorf("event seq %d (%s) has no data", e.Seq, e.Type)
	}
	if decodeCanonical(e.Data, v) {
		return nil // what json.Unmarshal gives, in one pass
	}
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("event seq %d (%s): %w", e.Seq, e.Type, err)
	}
	return nil
}

// AppendEvent appends e as one JSON line (with the trailing newline).
// Members are written in a fixed order, so a log round-trips byte for byte.
func AppendEvent(dst []byte, e *Event) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonscan.AppendString(dst, e.Type)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, e.Seq, 10)
	dst = append(dst, `,"time":`...)
	dst = strconv.AppendInt(dst, e.Time, 10)
	if e.Data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.Data...)
	}
	if e.Ignorable {
		dst = append(dst, `,"ignorable":true`...)
	}
	if e.SourceEventSeqs != nil {
		dst = append(dst, `,"sourceEventSeqs":[`...)
		for i, s := range e.SourceEventSeqs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, s, 10)
		}
		dst = append(dst, ']')
	}
	if e.SurfaceOp != nil {
		dst = append(dst, `,"surfaceOp":`...)
		dst = append(dst, e.SurfaceOp...)
	}
	dst = appendExtra(dst, e.Extra)
	return append(dst, '}', '\n')
}

// MarshalJSON encodes the event as its log line (without the newline).
func (e Event) MarshalJSON() ([]byte, error) {
	b := AppendEvent(nil, &e)
	return b[:len(b)-1], nil
}

// rawLine is a decoded event line before packed-row expansion.
type rawLine struct {
	ev          Event
	hasSeq      bool
	hasTime     bool
	packed      bool
	seq0, time0 int64
}

// parseLine decodes one event line. line is owned by the result (Data and
// Extra alias it), so callers pass a buffer they will not reuse.
func parseLine(line []byte) (rawLine, error) {
	var r rawLine
	var sawType bool
	var seq0, time0 []byte // decoded only on packed rows; verbatim otherwise
	err := jsonscan.Object(line, func(key []byte, esc bool, val []byte) error {
		if esc {
			key = []byte(jsonscan.Key(key, esc))
		}
		var err error
		// switch string(key) compares without allocating a string.
		switch string(key) {
		case "type":
			sawType = true
			r.ev.Type, err = internString(knownTypes, val)
		case "seq":
			r.hasSeq = true
			r.ev.Seq, err = jsonscan.Int(val)
		case "time":
			r.hasTime = true
			r.ev.Time, err = jsonscan.Int(val)
		case "data":
			r.ev.Data = val
		case "ignorable":
			r.ev.Ignorable, err = jsonscan.Bool(val)
		case "sourceEventSeqs":
			r.ev.SourceEventSeqs, err = jsonscan.Ints(val)
		case "surfaceOp":
			r.ev.SurfaceOp = val
		case "seq0":
			seq0 = val
		case "time0":
			time0 = val
		default:
			// Key again: an unknown name may hold invalid UTF-8, which must
			// read as the writer would write it back.
			r.ev.keepExtra(jsonscan.Key(key, false), val)
		}
		if err != nil {
			return fmt.Errorf("member %q: %w", key, err)
		}
		return nil
	})
	if err != nil {
		return r, describeLineError(err, "an event object")
	}
	if !sawType {
		return r, errors.New(`event has no "type"`)
	}
	if r.ev.Type == "" {
		// A writer refuses it too (Validate), so it can only be damage.
		return r, errors.New(`event has an empty "type"`)
	}
	switch r.ev.Type {
	case TypeTextChunks, TypeReasoningChunks, TypeToolCallChunks:
		return r, r.packedHead(seq0, time0)
	case "session":
		return r, errors.New(`found a second session header; a log holds exactly one, on line 1`)
	}
	if !r.hasSeq {
		return r, fmt.Errorf(`event %q has no "seq"`, r.ev.Type)
	}
	if !r.hasTime {
		return r, fmt.Errorf(`event %q has no "time"`, r.ev.Type)
	}
	// seq0 and time0 mean something only on packed rows; on any other event
	// they are unknown members and survive like the rest.
	r.ev.keepExtra("seq0", seq0)
	r.ev.keepExtra("time0", time0)
	return r, nil
}

// keepExtra records an unknown member; a nil val means absent.
func (e *Event) keepExtra(key string, val []byte) {
	if val == nil {
		return
	}
	if e.Extra == nil {
		e.Extra = map[string]json.RawMessage{}
	}
	e.Extra[key] = val
}

// packedHead decodes the seq0 and time0 of a packed row.
func (r *rawLine) packedHead(seq0, time0 []byte) error {
	if seq0 == nil || time0 == nil {
		return fmt.Errorf(`packed row %s needs "seq0" and "time0"`, r.ev.Type)
	}
	var err error
	if r.seq0, err = jsonscan.Int(seq0); err != nil {
		return fmt.Errorf(`packed row %s, member "seq0": %w`, r.ev.Type, err)
	}
	if r.time0, err = jsonscan.Int(time0); err != nil {
		return fmt.Errorf(`packed row %s, member "time0": %w`, r.ev.Type, err)
	}
	r.packed = true
	return nil
}

// knownTypes holds one copy of each common event type, so that reading
// them allocates no string per line.
var knownTypes = map[string]string{}

func init() {
	for _, t := range []string{TypeTurnStart, TypeUserMessage, TypeStepStart, TypeRequestHeader,
		TypeAssistantChunk, TypeAssistantMessage, TypeToolCall, TypeToolResult, TypeStepEnd,
		TypeTurnEnd, TypeHistoryReplace, TypeToolRecorded, TypeMCPCall, TypeCountTokens, TypeTextChunks, TypeReasoningChunks, TypeToolCallChunks} {
		knownTypes[t] = t
	}
}

// internString decodes a raw JSON string, returning the copy in known if
// there is one. A string without escapes is its own bytes, so a match of
// the inner bytes is exact.
func internString(known map[string]string, val []byte) (string, error) {
	if len(val) >= 2 && val[0] == '"' {
		if t, ok := known[string(val[1:len(val)-1])]; ok {
			return t, nil
		}
	}
	return jsonscan.String(val)
}

func asErr[T error](err error, target *T) bool { return errors.As(err, target) }
