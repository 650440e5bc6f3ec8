package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// Version is the only session log version this package reads and writes.
const Version = 0

// Mode says how a child session was created.
type Mode string

// Modes of delegation.
const (
	// ModeSpawn children start with an empty conversation.
	ModeSpawn Mode = "spawn"
	// ModeFork children start with their parent's completed turns.
	ModeFork Mode = "fork"
)

// OriginSubagent marks a session created by a delegation tool.
const OriginSubagent = "subagent"

// MaxDelegationDepth is the deepest delegationDepth a header may hold. A
// tree deeper than this is no agent's plan but a runaway or a corrupted
// header, and readers (inspect's tree, the transcript) would render it
// without end.
const MaxDelegationDepth = 64

// checkDepth refuses a delegationDepth outside 0..MaxDelegationDepth.
func checkDepth(n int64) error {
	if n < 0 || n > MaxDelegationDepth {
		return fmt.Errorf("%d is out of range: it must be 0 to %d (0 for a root, the parent's + 1 for a child); fix the header or re-record the session", n, MaxDelegationDepth)
	}
	return nil
}

// Header is line 1 of a session log.
//
// Zero values of the optional fields are not written, except DelegationDepth,
// which dsh always writes. SeedLength counts logical events (packed rows
// expanded); absent means 0.
type Header struct {
	ID              string
	CreatedAt       int64 // epoch milliseconds
	Cwd             string
	ParentSession   string
	SeedLength      int
	Origin          string
	DelegationDepth int
	AgentPreset     string
	ParentCallID    string // agentsnap: the tool call that created this child
	Mode            Mode   // agentsnap: spawn or fork

	// Extra holds header members this package does not know, verbatim, so
	// they survive a read-write round trip. They are written after the known
	// members in name order.
	Extra map[string]json.RawMessage
}

// IsChild reports whether the header belongs to a delegated session.
func (h *Header) IsChild() bool { return h.ParentSession != "" }

// AppendHeader appends h as one JSON line (with the trailing newline).
func AppendHeader(dst []byte, h *Header) []byte {
	dst = append(dst, `{"type":"session","version":0,"id":`...)
	dst = jsonscan.AppendString(dst, h.ID)
	dst = append(dst, `,"createdAt":`...)
	dst = strconv.AppendInt(dst, h.CreatedAt, 10)
	dst = appendOptString(dst, "cwd", h.Cwd)
	dst = appendOptString(dst, "parentSession", h.ParentSession)
	if h.SeedLength != 0 {
		dst = append(dst, `,"seedLength":`...)
		dst = strconv.AppendInt(dst, int64(h.SeedLength), 10)
	}
	dst = appendOptString(dst, "origin", h.Origin)
	dst = append(dst, `,"delegationDepth":`...)
	dst = strconv.AppendInt(dst, int64(h.DelegationDepth), 10)
	dst = appendOptString(dst, "agentPreset", h.AgentPreset)
	dst = appendOptString(dst, "parentCallId", h.ParentCallID)
	dst = appendOptString(dst, "mode", string(h.Mode))
	dst = appendExtra(dst, h.Extra)
	return append(dst, '}', '\n')
}

func appendOptString(dst []byte, key, val string) []byte {
	if val == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return jsonscan.AppendString(dst, val)
}

func appendExtra(dst []byte, extra map[string]json.RawMessage) []byte {
	if len(extra) == 0 {
		return dst
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = append(dst, ',')
		dst = jsonscan.AppendString(dst, k)
		dst = append(dst, ':')
		dst = append(dst, extra[k]...)
	}
	return dst
}

// MarshalJSON encodes the header as its log line (without the newline).
func (h Header) MarshalJSON() ([]byte, error) {
	b := AppendHeader(nil, &h)
	return b[:len(b)-1], nil
}

// UnmarshalJSON decodes a header line with the same validation as the reader.
func (h *Header) UnmarshalJSON(b []byte) error {
	parsed, err := parseHeader(b)
	if err != nil {
		return err
	}
	*h = *parsed
	return nil
}

// parseHeader decodes and validates line 1. Errors are plain sentences; the
// reader adds file and line.
// headerKeys holds the header's member names, so that reading one makes
// no string: a header is read for every log. An escaped or invalid name
// never matches one and is decoded.
var headerKeys = func() map[string]string {
	m := make(map[string]string, len(headerMembers))
	for _, k := range headerMembers {
		m[k] = k
	}
	return m
}()

func parseHeader(line []byte) (*Header, error) {
	h := &Header{}
	var typ, version []byte
	var sawID, sawCreated bool
	err := jsonscan.Object(line, func(key []byte, esc bool, val []byte) error {
		var err error
		k, known := headerKeys[string(key)] // no string made for a known name
		if !known {
			k = jsonscan.Key(key, esc)
		}
		switch k {
		case "type":
			typ = val
		case "version":
			version = val
		case "id":
			sawID = true
			h.ID, err = jsonscan.String(val)
		case "createdAt":
			sawCreated = true
			h.CreatedAt, err = jsonscan.Int(val)
		case "cwd":
			h.Cwd, err = optString(val)
		case "parentSession":
			h.ParentSession, err = optString(val)
		case "seedLength":
			var n int64
			n, err = jsonscan.Int(val)
			if err == nil && n < 0 {
				err = fmt.Errorf("seedLength is %d; it must be 0 or more (it counts the inherited events)", n)
			}
			h.SeedLength = int(n)
		case "origin":
			h.Origin, err = optString(val)
		case "delegationDepth":
			var n int64
			n, err = jsonscan.Int(val)
			if err == nil {
				err = checkDepth(n)
			}
			h.DelegationDepth = int(n)
		case "agentPreset":
			h.AgentPreset, err = optString(val)
		case "parentCallId":
			h.ParentCallID, err = optString(val)
		case "mode":
			var m string
			m, err = optString(val)
			h.Mode = Mode(m)
			if err == nil && m != "" && h.Mode != ModeSpawn && h.Mode != ModeFork {
				err = fmt.Errorf(`mode is %q; it must be "spawn" or "fork"`, m)
			}
		default:
			if h.Extra == nil {
				h.Extra = map[string]json.RawMessage{}
			}
			h.Extra[k] = slices.Clone(val)
		}
		if err != nil {
			return fmt.Errorf("header field %q: %w", jsonscan.Key(key, esc), err)
		}
		return nil
	})
	if err != nil {
		return nil, describeLineError(err, "a session header object")
	}
	if typ == nil {
		return nil, fmt.Errorf(`the first line is not a session header: it has no "type" (want {"type":"session","version":0,...})`)
	}
	if t, err := jsonscan.String(typ); err != nil || t != "session" {
		return nil, fmt.Errorf(`the first line is not a session header: type is %s, want "session"`, typ)
	}
	if version == nil {
		return nil, fmt.Errorf(`session header has no "version"; this reader understands version 0`)
	}
	if v, err := jsonscan.Int(version); err != nil || v != Version {
		return nil, fmt.Errorf("session header has version %s; this reader understands version 0 only (was the log written by a newer tool?)", version)
	}
	if !sawID {
		return nil, fmt.Errorf(`session header has no "id"`)
	}
	if h.ID == "" {
		// Replay routes a session by its id and every message names it.
		return nil, fmt.Errorf(`session header has an empty "id"; give the session an id (a dsh log has a UUID; agentsnap names the root "root" and a child by its lineage, such as "root/call_1")`)
	}
	if !sawCreated {
		return nil, fmt.Errorf(`session header has no "createdAt"`)
	}
	return h, nil
}

func optString(val []byte) (string, error) {
	if jsonscan.IsNull(val) {
		return "", nil
	}
	return jsonscan.String(val)
}

// describeLineError turns scanner errors into sentences about the line that
// still match ErrNotAnObject or ErrBrokenLine with errors.Is.
func describeLineError(err error, want string) error {
	var notObj *jsonscan.ErrNotObject
	var syn *jsonscan.SyntaxError
	switch {
	case asErr(err, &notObj):
		return &lineError{msg: "expected " + want + ", found " + notObj.Found, is: ErrNotAnObject}
	case asErr(err, &syn):
		return &lineError{msg: "broken JSON: " + syn.Error(), is: ErrBrokenLine, cause: syn}
	}
	return err
}

type lineError struct {
	msg   string
	is    error
	cause error
}

func (e *lineError) Error() string { return e.msg }

func (e *lineError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.is}
	}
	return []error{e.is, e.cause}
}
