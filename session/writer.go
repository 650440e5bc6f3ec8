package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// Writer writes a session log. It buffers one batch at a time and hands it
// to the underlying writer in a single Write, so a batch is never split
// across calls. A Writer is not safe for concurrent use.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a writer that encodes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteHeader writes line 1.
func (w *Writer) WriteHeader(h *Header) error {
	w.buf = AppendHeader(w.buf[:0], h)
	_, err := w.w.Write(w.buf)
	return err
}

// WriteEvents writes events as one batch.
func (w *Writer) WriteEvents(events ...Event) error {
	w.buf = w.buf[:0]
	for i := range events {
		w.buf = AppendEvent(w.buf, &events[i])
	}
	_, err := w.w.Write(w.buf)
	return err
}

// Encode returns the whole log as JSON Lines.
func Encode(h *Header, events []Event) []byte {
	buf := AppendHeader(nil, h)
	for i := range events {
		buf = AppendEvent(buf, &events[i])
	}
	return buf
}

// Validate checks what a writer must not produce, so that a log it passes
// reads back: seqs not dense from 0, a seedLength outside the log, an event
// without a type or with a type only a reader understands (a packed row, a
// second header), and raw members (data, surfaceOp, extras) that are not one
// JSON value each.
func Validate(h *Header, events []Event) error {
	if err := validRaw(h.Extra, headerMembers); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	if err := checkDepth(int64(h.DelegationDepth)); err != nil {
		return fmt.Errorf("header: delegationDepth %w", err)
	}
	for i := range events {
		e := &events[i]
		if e.Seq != int64(i) {
			return fmt.Errorf("%w: event %d has seq %d, expected %d", ErrSeqGap, i, e.Seq, i)
		}
		switch e.Type {
		case "":
			return fmt.Errorf("event seq %d has no type", i)
		case "session", TypeTextChunks, TypeReasoningChunks, TypeToolCallChunks:
			return fmt.Errorf("event seq %d has type %q, which a log cannot hold as a plain event (expand packed rows into assistant/chunk events)", i, e.Type)
		}
		if err := validEventRaw(e); err != nil {
			return err
		}
	}
	if h.SeedLength < 0 || h.SeedLength > len(events) {
		return fmt.Errorf("%w: seedLength is %d but the log holds %d events", ErrSeedPastEnd, h.SeedLength, len(events))
	}
	return nil
}

func validEventRaw(e *Event) error {
	err := validValue("data", e.Data)
	if err == nil {
		err = validValue("surfaceOp", e.SurfaceOp)
	}
	if err == nil {
		err = validRaw(e.Extra, eventMembers)
	}
	if err != nil {
		return fmt.Errorf("event seq %d (%s): %w", e.Seq, e.Type, err)
	}
	return nil
}

// Members with a field of their own; an Extra entry of the same name would
// write the member twice.
var (
	headerMembers = []string{"type", "version", "id", "createdAt", "cwd", "parentSession", "seedLength",
		"origin", "delegationDepth", "agentPreset", "parentCallId", "mode"}
	eventMembers = []string{"type", "seq", "time", "data", "ignorable", "sourceEventSeqs", "surfaceOp"}
)

// validRaw checks every member of an Extra map, in name order so the error
// is the same every run.
func validRaw(extra map[string]json.RawMessage, known []string) error {
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if slices.Contains(known, k) {
			return fmt.Errorf("extra member %q has a field of its own; set the field instead", k)
		}
		if err := validValue(k, extra[k]); err != nil {
			return err
		}
	}
	return nil
}

// validValue checks that a raw member is absent (nil) or exactly one JSON
// value on one line: a newline would split the log line in two.
func validValue(key string, v json.RawMessage) error {
	if v == nil {
		return nil
	}
	end, err := jsonscan.SkipMember(v, 0) // nested in its line
	switch {
	case err != nil:
	case end != len(v):
		err = fmt.Errorf("unexpected %s after the value", jsonscan.Describe(v, end))
	case bytes.IndexByte(v, '\n') >= 0:
		err = errors.New("it holds a newline, which would split the log line")
	}
	if err != nil {
		return fmt.Errorf("member %q is not one JSON value: %w", key, err)
	}
	return nil
}

// WriteFile validates l and writes it to path atomically (temporary file,
// sync, rename): a crash leaves the old file or the new, never a mix.
func WriteFile(path string, l *Log) error {
	if err := Validate(&l.Header, l.Events); err != nil {
		return fmt.Errorf("session: not writing %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, Encode(&l.Header, l.Events), 0o644)
}
