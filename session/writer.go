package session

import (
	"fmt"
	"io"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
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

// Validate checks what a writer must not produce: seqs not dense from 0 and
// a seedLength outside the log.
func Validate(h *Header, events []Event) error {
	for i := range events {
		if events[i].Seq != int64(i) {
			return fmt.Errorf("%w: event %d has seq %d, expected %d", ErrSeqGap, i, events[i].Seq, i)
		}
		if events[i].Type == "" {
			return fmt.Errorf("event seq %d has no type", i)
		}
	}
	if h.SeedLength < 0 || h.SeedLength > len(events) {
		return fmt.Errorf("%w: seedLength is %d but the log holds %d events", ErrSeedPastEnd, h.SeedLength, len(events))
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
