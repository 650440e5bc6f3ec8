package persistence

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// eventMembers are the members an event line writes itself; Extra must not
// repeat them, or the line would hold a member twice. seq0 and time0 are not
// among them: they mean something only on a packed row, which no store
// keeps; on any other event the reader keeps them in Extra, and a store
// keeps them as it keeps every unknown member.
var eventMembers = map[string]bool{
	"type": true, "seq": true, "time": true, "data": true, "ignorable": true,
	"sourceEventSeqs": true, "surfaceOp": true,
}

// headerMembers are the members a header line writes itself.
var headerMembers = map[string]bool{
	"type": true, "version": true, "id": true, "createdAt": true, "cwd": true,
	"parentSession": true, "seedLength": true, "origin": true,
	"delegationDepth": true, "agentPreset": true, "parentCallId": true, "mode": true,
}

// ValidateHeader checks that h encodes to a header line the session reader
// accepts. Errors wrap ErrInvalid.
func ValidateHeader(h *session.Header) error {
	switch {
	case h.ID == "":
		return fmt.Errorf("%w: header has an empty id; give the session an id (the root's is \"root\", a child's its lineage, such as \"root/call_1\"), which replay routes by and messages name", ErrInvalid)
	case h.SeedLength < 0:
		return fmt.Errorf("%w: header has seedLength %d; it counts inherited events and cannot be negative", ErrInvalid, h.SeedLength)
	case h.DelegationDepth < 0 || h.DelegationDepth > session.MaxDelegationDepth:
		return fmt.Errorf("%w: header has delegationDepth %d; it must be 0 to %d (0 for a root, the parent's + 1 for a child)", ErrInvalid, h.DelegationDepth, session.MaxDelegationDepth)
	case h.Mode != "" && h.Mode != session.ModeSpawn && h.Mode != session.ModeFork:
		return fmt.Errorf("%w: header has mode %q; it must be %q, %q or empty", ErrInvalid, h.Mode, session.ModeSpawn, session.ModeFork)
	}
	return validateExtra("header", h.Extra, headerMembers)
}

// ValidateEvent checks that e encodes to an event line the session reader
// reads back as the same event. It does not check seq. Errors wrap
// ErrInvalid.
func ValidateEvent(e *session.Event) error {
	switch e.Type {
	case "":
		return fmt.Errorf("%w: event seq %d has an empty type", ErrInvalid, e.Seq)
	case "session":
		return fmt.Errorf("%w: event seq %d has type \"session\", which only the header line may have", ErrInvalid, e.Seq)
	case session.TypeTextChunks, session.TypeReasoningChunks, session.TypeToolCallChunks:
		return fmt.Errorf("%w: event seq %d has type %q, a packed row; store the logical assistant/chunk events instead", ErrInvalid, e.Seq, e.Type)
	}
	// Most events are chunks in the one layout the runtime writes, which is
	// valid by its shape; any other data is scanned.
	if e.Data != nil && (e.Type != session.TypeAssistantChunk || !session.CanonicalChunkData(e.Data)) {
		if err := validJSON(e.Data); err != nil {
			return fmt.Errorf("%w: event seq %d (%s): data is not JSON: %w", ErrInvalid, e.Seq, e.Type, err)
		}
	}
	if e.SurfaceOp != nil {
		if err := validJSON(e.SurfaceOp); err != nil {
			return fmt.Errorf("%w: event seq %d (%s): surfaceOp is not JSON: %w", ErrInvalid, e.Seq, e.Type, err)
		}
	}
	if len(e.Extra) == 0 {
		return nil // the common case, without building the name below
	}
	return validateExtra(fmt.Sprintf("event seq %d (%s)", e.Seq, e.Type), e.Extra, eventMembers)
}

func validateExtra(what string, extra map[string]json.RawMessage, known map[string]bool) error {
	for k, v := range extra {
		if known[k] {
			return fmt.Errorf("%w: %s has %q in Extra, a member the line already writes", ErrInvalid, what, k)
		}
		if err := validJSON(v); err != nil {
			return fmt.Errorf("%w: %s: member %q is not JSON: %w", ErrInvalid, what, k, err)
		}
	}
	return nil
}

// validJSON checks that b is exactly one JSON value on one line, nested no
// deeper than a reader accepts inside the line. A raw newline would split
// the log line; JSON strings cannot hold one, so only whitespace between
// tokens could, and that is refused too.
func validJSON(b []byte) error {
	end, err := jsonscan.SkipMember(b, 0)
	if err != nil {
		return err
	}
	if end != len(b) {
		return fmt.Errorf("unexpected %s after the value", jsonscan.Describe(b, end))
	}
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return fmt.Errorf("the value spans lines; a log line must be one line")
	}
	return nil
}
