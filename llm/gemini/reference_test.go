package gemini

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// The reference: WriteStream as it was before its events were written by
// hand, through encoding/json's reflection. FuzzWriteStream holds the
// writer to its bytes. It keeps its own copies of what the writer calls,
// so that a bug planted there is not in both.

func refWriteStream(w http.ResponseWriter, a Answer, chunks iter.Seq[session.Chunk]) error {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var flush func()
	if fl, ok := w.(http.Flusher); ok {
		flush = fl.Flush
	}
	sw := newRefStreamWriter(w, flush, a)
	for c := range chunks {
		if err := sw.add(c); err != nil {
			return err
		}
		if sw.done {
			return nil
		}
	}
	return nil
}

type refStreamWriter struct {
	w        io.Writer
	flush    func()
	answer   Answer
	pending  *Part
	heldFrom int
	usage    *session.Usage
	done     bool
}

func newRefStreamWriter(w io.Writer, flush func(), a Answer) *refStreamWriter {
	if flush == nil {
		flush = func() {}
	}
	return &refStreamWriter{w: w, flush: flush, answer: a, heldFrom: -1}
}

func (s *refStreamWriter) add(c session.Chunk) error {
	if s.done {
		return nil
	}
	switch c.Type {
	case session.ChunkTextDelta, session.ChunkReasoningDelta:
		if c.Text != "" {
			return s.hold(&Part{Text: ptr(c.Text), Thought: c.Type == session.ChunkReasoningDelta}, c.Index)
		}
	case session.ChunkBlockEnd:
		if c.Block != nil {
			return s.blockEnd(c.Index, c.Block)
		}
	case session.ChunkUsage:
		s.usage = c.Usage
	case session.ChunkFinish:
		s.done = true
		return s.finish(c.Reason)
	}
	return nil
}

func (s *refStreamWriter) blockEnd(index int, b *session.Block) error {
	sig := Signature(b.Meta)
	if b.Type == session.BlockToolCall {
		p, err := refFunctionCallPart(b.ID, b.Name, b.Arguments, sig)
		if err != nil {
			s.done = true
			_ = s.send(refErrorResponse(http.StatusInternalServerError, err.Error()))
			return err
		}
		return s.hold(p, index)
	}
	switch {
	case sig == "":
	case s.pending != nil && s.heldFrom == index:
		s.pending.ThoughtSignature = sig
	default:
		return s.hold(&Part{Text: ptr(""), Thought: b.Type == session.BlockReasoning, ThoughtSignature: sig}, index)
	}
	return nil
}

func refFunctionCallPart(id, name, arguments, sig string) (*Part, error) {
	args, ok := refArgsObject(arguments)
	if !ok {
		return nil, fmt.Errorf("gemini: tool call %s (%s) has arguments that are not a JSON object, which functionCall.args must be: %.60q", id, name, arguments)
	}
	return &Part{FunctionCall: &FunctionCall{ID: id, Name: name, Args: args}, ThoughtSignature: sig}, nil
}

func refArgsObject(args string) (json.RawMessage, bool) {
	t := strings.TrimSpace(args)
	if t == "" {
		return json.RawMessage(`{}`), true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(t), &m) != nil || m == nil {
		return nil, false
	}
	return json.RawMessage(t), true
}

func (s *refStreamWriter) hold(p *Part, index int) error {
	if s.pending != nil {
		if err := s.send(s.answer.response(Candidate{Content: &Content{Role: "model", Parts: []Part{*s.pending}}}, nil)); err != nil {
			return err
		}
	}
	s.pending, s.heldFrom = p, index
	return nil
}

func (s *refStreamWriter) finish(r *session.FinishReason) error {
	if r == nil {
		r = &session.FinishReason{Kind: session.FinishStop}
	}
	switch r.Kind {
	case session.FinishAborted:
		return nil
	case session.FinishError:
		if err := s.hold(nil, -1); err != nil {
			return err
		}
		status, _, msg := live.ServedFailure(r)
		return s.send(refErrorResponse(status, msg))
	}
	last := s.pending
	if last == nil {
		last = &Part{Text: ptr("")}
	}
	return s.send(s.answer.response(Candidate{Content: &Content{Role: "model", Parts: []Part{*last}}, FinishReason: finishReason(r.Kind)}, s.usage))
}

func (s *refStreamWriter) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	s.flush()
	return nil
}

func refErrorResponse(status int, message string) map[string]APIError {
	return map[string]APIError{"error": {Code: status, Message: message, Status: statusName(status)}}
}
