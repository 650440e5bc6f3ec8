package fakellm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// Kind says what a script entry does when it is replayed.
type Kind string

// Entry kinds.
const (
	// KindChunks replays its chunks, which end with exactly one finish.
	KindChunks Kind = "chunks"
	// KindThrow replays its chunks (a prefix without a finish), then an
	// error finish with Code and Message.
	KindThrow Kind = "throw"
	// KindHang replays its chunks (a prefix without a finish), then blocks
	// until the call's context is cancelled and ends with an aborted finish.
	KindHang Kind = "hang"
)

// Entry is what one Stream call replays.
//
// Turn and Step say where the call was recorded; a replay whose live call
// is elsewhere fails with [ErrPathMismatch]. Zero means "not checked", which
// is what authored entries usually leave them. Attempt is the recorded
// attempt number (0 in logs that do not record attempts), and Call the
// number of the recorded model call among the session's own, from 1,
// failed attempts counted ([session.ModelCalls]: the number inspect, drift,
// record --only-changed and the report give it; 0 for an authored entry);
// both are informative only.
//
// The JSON encoding — the sidecar's entry shape and the output of
// "agentsnap derive" — is
//
//	{"kind":"chunks","turn":1,"step":1,"call":1,"chunks":[...]}
//	{"kind":"throw","chunks":[...],"code":"RATE_LIMIT","message":"..."}
//	{"kind":"hang","chunks":[...]}
//
// with turn, step, attempt, call, code and message omitted when zero.
type Entry struct {
	Kind    Kind
	Turn    int
	Step    int
	Attempt int
	Call    int
	Chunks  []session.Chunk
	Code    string // throw: the failure code of the error finish
	Message string // throw: the failure message of the error finish
}

// AppendJSON appends the entry's JSON encoding.
func (e *Entry) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"kind":`...)
	dst = jsonscan.AppendString(dst, string(e.Kind))
	dst = appendOptInt(dst, "turn", e.Turn)
	dst = appendOptInt(dst, "step", e.Step)
	dst = appendOptInt(dst, "attempt", e.Attempt)
	dst = appendOptInt(dst, "call", e.Call)
	dst = append(dst, `,"chunks":[`...)
	for i := range e.Chunks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = e.Chunks[i].AppendJSON(dst)
	}
	dst = append(dst, ']')
	if e.Code != "" {
		dst = append(dst, `,"code":`...)
		dst = jsonscan.AppendString(dst, e.Code)
	}
	if e.Message != "" {
		dst = append(dst, `,"message":`...)
		dst = jsonscan.AppendString(dst, e.Message)
	}
	return append(dst, '}')
}

func appendOptInt(dst []byte, key string, n int) []byte {
	if n == 0 {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return strconv.AppendInt(dst, int64(n), 10)
}

// MarshalJSON encodes the entry in its sidecar shape.
func (e Entry) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// UnmarshalJSON decodes and validates an entry: an unknown member, an
// unknown kind or a misplaced finish chunk is an error.
func (e *Entry) UnmarshalJSON(b []byte) error {
	members, err := objectMembers(b)
	if err != nil {
		return fmt.Errorf("an entry must be a JSON object: %w", err)
	}
	out := Entry{}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		v := members[k]
		var err error
		switch k {
		case "kind":
			err = unmarshalString(v, (*string)(&out.Kind))
		case "turn":
			err = json.Unmarshal(v, &out.Turn)
		case "step":
			err = json.Unmarshal(v, &out.Step)
		case "attempt":
			err = json.Unmarshal(v, &out.Attempt)
		case "call":
			err = json.Unmarshal(v, &out.Call)
		case "chunks":
			out.Chunks, err = entryChunks(v)
		case "code":
			err = unmarshalString(v, &out.Code)
		case "message":
			err = unmarshalString(v, &out.Message)
		default:
			err = errors.New("unknown key (an entry has kind, turn, step, attempt, call, chunks, code and message)")
		}
		if err != nil {
			return fmt.Errorf("entry member %q: %w", k, err)
		}
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*e = out
	return nil
}

// entryChunks reads an entry's chunks, v, as json.Unmarshal into a
// []session.Chunk reads them once compacted: chunk members the session
// package does not know are kept verbatim and written back into log lines
// by the replay, so an indented sidecar's newlines must not reach them. An
// array of objects, the usual shape, is read element by element without
// encoding/json; anything else by it.
func entryChunks(v []byte) ([]session.Chunk, error) {
	compact, err := jsonscan.AppendCompact(nil, v)
	if err != nil {
		var chunks []session.Chunk
		return chunks, json.Unmarshal(v, &chunks) // its error
	}
	var elems [][]byte
	if jsonscan.Elements(compact, func(e []byte) error {
		if e[0] != '{' {
			return errNotChunk
		}
		elems = append(elems, e)
		return nil
	}) != nil {
		var chunks []session.Chunk
		err := json.Unmarshal(compact, &chunks)
		return chunks, err
	}
	chunks := make([]session.Chunk, len(elems))
	for i, e := range elems {
		if err := chunks[i].UnmarshalJSON(e); err != nil {
			return nil, err
		}
	}
	return chunks, nil
}

// errNotChunk stops entryChunks's walk at an element that is not an object.
var errNotChunk = errors.New("not a chunk object")

// unmarshalString is json.Unmarshal into a string, reading a string value
// (valid JSON here) without encoding/json.
func unmarshalString(v []byte, dst *string) error {
	if len(v) > 0 && v[0] == '"' {
		s, err := jsonscan.String(v)
		if err == nil {
			*dst = s
			return nil
		}
	}
	return json.Unmarshal(v, dst)
}

// Validate checks that the entry can be replayed: a known kind, a finish
// only where the kind allows one, and a code on a throw.
func (e *Entry) Validate() error {
	finishes := 0
	for i := range e.Chunks {
		if !knownChunk(e.Chunks[i].Type) {
			return fmt.Errorf("chunk %d has unknown type %q (want block-start, text-delta, reasoning-delta, tool-call-delta, block-end, usage or finish)", i, e.Chunks[i].Type)
		}
		if e.Chunks[i].IsFinish() {
			finishes++
		}
	}
	switch e.Kind {
	case KindChunks:
		if len(e.Chunks) == 0 || !e.Chunks[len(e.Chunks)-1].IsFinish() || finishes != 1 {
			return fmt.Errorf(`a "chunks" entry must end with exactly one finish chunk (it has %d chunks, %d finish)`, len(e.Chunks), finishes)
		}
	case KindThrow, KindHang:
		if finishes != 0 {
			return fmt.Errorf("a %q entry's chunks are the prefix before its end and must not hold a finish chunk (the replay adds it)", e.Kind)
		}
		if e.Kind == KindThrow && e.Code == "" {
			return errors.New(`a "throw" entry needs a "code" (the failure code of its error finish)`)
		}
	case "":
		return errors.New(`the entry has no "kind" (one of "chunks", "throw", "hang")`)
	default:
		return fmt.Errorf(`unknown entry kind %q (want "chunks", "throw" or "hang")`, e.Kind)
	}
	if e.Kind != KindThrow && (e.Code != "" || e.Message != "") {
		return fmt.Errorf(`only a "throw" entry has a code and a message, not a %q entry`, e.Kind)
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"turn", e.Turn}, {"step", e.Step}, {"attempt", e.Attempt}, {"call", e.Call}} {
		if n.v < 0 || n.v > maxPosition {
			return fmt.Errorf(`entry member %q is %d; use 1 to %d (0: not checked)`, n.name, n.v, maxPosition)
		}
	}
	if err := checkChunks(e.Chunks); err != nil {
		return fmt.Errorf("%w: %w; fix the entry's chunks as CONTRACT.md (assistant/chunk) describes them", ErrContract, err)
	}
	return nil
}

// maxPosition bounds an entry's turn, step, attempt and call: far beyond any
// recording, and a number a typo cannot turn into a wrap-around.
const maxPosition = 1_000_000

func knownChunk(t string) bool {
	switch t {
	case session.ChunkBlockStart, session.ChunkTextDelta, session.ChunkReasoningDelta, session.ChunkToolCallDelta,
		session.ChunkBlockEnd, session.ChunkUsage, session.ChunkFinish:
		return true
	}
	return false
}

// where describes the recorded position of an entry for messages.
func (e *Entry) where() string {
	if e.Turn == 0 && e.Step == 0 {
		return "an authored position"
	}
	return fmt.Sprintf("turn %d step %d", e.Turn, e.Step)
}

// MarshalScript encodes entries as a JSON array indented by two spaces:
// the output of "agentsnap derive" and the shape of a sidecar's "replace".
func MarshalScript(entries []Entry) []byte {
	compact := []byte{'['}
	for i := range entries {
		if i > 0 {
			compact = append(compact, ',')
		}
		compact = entries[i].AppendJSON(compact)
	}
	compact = append(compact, ']')
	var out bytes.Buffer
	out.Grow(len(compact) * 2)
	// json.Indent keeps strings as they are (no HTML escaping) and cannot
	// fail on the valid JSON AppendJSON writes.
	_ = json.Indent(&out, compact, "", "  ")
	out.WriteByte('\n')
	return out.Bytes()
}
