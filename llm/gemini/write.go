package gemini

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"sync"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// Answer names the answer being written: the model the agent asked for,
// and the response id the API hands out, the same in every run of the
// call.
type Answer struct {
	Model      string
	ResponseID string
}

func (a Answer) response(c Candidate, u *session.Usage) Response {
	r := Response{Candidates: []Candidate{c}, ModelVersion: a.Model, ResponseID: a.ResponseID}
	if u != nil {
		r.UsageMetadata = usageMetadata(u)
	}
	return r
}

// streamWriter writes the chunks of one model call as the events of a
// streamGenerateContent?alt=sse answer, the way the official SDKs parse
// them: each event one data line holding a whole GenerateContentResponse,
// then a blank line; nothing else. Every event carries one part with
// something in it — an SDK's chat drops an event without from its history
// — and the last one also the finishReason (STOP after function calls
// too) and the usage: a part is held back until the next one, or the
// finish, comes. A function call goes out whole at its block-end, a thought
// signature on the last part of its block. A failed call ends with an
// error event, an aborted one with no finish at all, as a cut connection
// does. No continuationToken is ever sent: the SDK would send the request
// again.
//
// A streamWriter serves one call; only its buffer is reused, so a driver
// that calls yield after its stream returned reaches an ended writer.
//
// With array set the same events go out as the elements of one JSON array
// (see WriteJSONStream), closed once the last event, the finish or an
// error, went out: an aborted call leaves it open, as a cut connection
// does.
type streamWriter struct {
	w        io.Writer
	flusher  http.Flusher // or nil
	array    bool         // a JSON array, not server-sent events
	sent     int          // the events written
	closing  bool         // the last event went out: the array is closed after it
	answer   Answer
	pending  outPart
	held     bool // pending holds a part
	heldFrom int  // the block index of pending
	usage    *session.Usage
	done     bool  // after the finish, an error, or the end of the call
	err      error // WriteStream's
	buf      *[]byte
}

// streamBufs keeps the event buffers of ended streams for the next: an
// io.Writer keeps nothing it is given.
var streamBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 1024)
	return &b
}}

// each writes what chunk c adds to the answer; false once the stream has
// ended, as a range over the chunks would stop.
func (s *streamWriter) each(c session.Chunk) bool {
	if !s.done {
		s.err = s.add(&c)
		s.done = s.done || s.err != nil
	}
	return !s.done
}

// release ends s and hands its buffer back, keeping an outsized one out.
func (s *streamWriter) release() {
	s.done = true
	if cap(*s.buf) <= 64<<10 {
		streamBufs.Put(s.buf)
	}
	s.buf = nil
}

// add writes what chunk c adds to the answer. It returns an error when
// writing fails or the chunks cannot be written as Gemini events (a tool
// call whose arguments are not an object: the stream ends with an error
// event then).
func (s *streamWriter) add(c *session.Chunk) error {
	switch c.Type {
	case session.ChunkTextDelta, session.ChunkReasoningDelta:
		if c.Text != "" {
			return s.hold(outPart{text: c.Text, hasText: true, thought: c.Type == session.ChunkReasoningDelta}, c.Index)
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

// blockEnd writes what a block's end adds: a tool call, whole; a thought
// signature, on the block's last part.
func (s *streamWriter) blockEnd(index int, b *session.Block) error {
	sig := Signature(b.Meta)
	if b.Type == session.BlockToolCall {
		args, ok := callArgs(b.Arguments, s.buf)
		if !ok {
			err := argsError(b.ID, b.Name, b.Arguments)
			s.done, s.closing = true, true
			_ = s.send(appendErrorEvent(s.start(), http.StatusInternalServerError, err.Error()))
			return err
		}
		return s.hold(outPart{call: true, id: b.ID, name: b.Name, args: args, sig: sig}, index)
	}
	switch {
	case sig == "":
	case s.held && s.heldFrom == index:
		s.pending.sig = sig
	default: // a block whose text went out before, or that had none
		return s.hold(outPart{hasText: true, thought: b.Type == session.BlockReasoning, sig: sig}, index)
	}
	return nil
}

// functionCallPart is the part of a tool call; a call that has no id (a
// log from elsewhere) goes out without one, as the API sends such calls.
func functionCallPart(id, name, arguments, sig string) (*Part, error) {
	args, ok := argsObject(arguments)
	if !ok {
		return nil, argsError(id, name, arguments)
	}
	return &Part{FunctionCall: &FunctionCall{ID: id, Name: name, Args: args}, ThoughtSignature: sig}, nil
}

// argsError is the error of a tool call whose arguments are not a JSON
// object.
func argsError(id, name, arguments string) error {
	return fmt.Errorf("gemini: tool call %s (%s) has arguments that are not a JSON object, which functionCall.args must be: %.60q", id, name, arguments)
}

// hold sends the pending part, if any, and keeps p in its place.
func (s *streamWriter) hold(p outPart, index int) error {
	if err := s.sendHeld(); err != nil {
		return err
	}
	s.pending, s.held, s.heldFrom = p, true, index
	return nil
}

// sendHeld sends the pending part, if any, in an event of its own.
func (s *streamWriter) sendHeld() error {
	if !s.held {
		return nil
	}
	s.held = false
	return s.send(appendEvent(s.start(), &s.answer, &s.pending, "", nil))
}

// finish writes the end of the answer.
func (s *streamWriter) finish(r *session.FinishReason) error {
	if r == nil {
		r = &session.FinishReason{Kind: session.FinishStop}
	}
	switch r.Kind {
	case session.FinishAborted:
		return nil
	case session.FinishError:
		if err := s.sendHeld(); err != nil {
			return err
		}
		status, _, msg := live.ServedFailure(r)
		s.closing = true
		return s.send(appendErrorEvent(s.start(), status, msg))
	}
	if !s.held {
		s.pending = outPart{hasText: true}
	}
	var u *UsageMetadata
	if s.usage != nil {
		u = usageMetadata(s.usage)
	}
	s.closing = true
	return s.send(appendEvent(s.start(), &s.answer, &s.pending, finishReason(r.Kind), u))
}

// start begins an event in the buffer: its data line, or the array's
// opening or the comma before it.
func (s *streamWriter) start() []byte {
	b := (*s.buf)[:0]
	switch {
	case !s.array:
		return append(b, "data: "...)
	case s.sent == 0:
		return append(b, '[')
	}
	return append(b, ",\r\n"...)
}

// send ends the event ev (begun by start), writes it and flushes; the last
// one of an array closes it.
func (s *streamWriter) send(ev []byte) error {
	if !s.array {
		ev = append(ev, "\n\n"...)
	} else if s.closing {
		ev = append(ev, ']')
	}
	*s.buf = ev // keep the buffer if it grew
	s.sent++
	if _, err := s.w.Write(ev); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}

func finishReason(kind string) string {
	if kind == session.FinishMaxTokens {
		return "MAX_TOKENS"
	}
	return "STOP"
}

// WriteStream writes a streamed answer of chunks to w: the status, the
// headers and the events (see streamWriter). chunks is called once, with
// a yield that returns false once the stream ended: at the finish or at
// an error, which WriteStream returns.
func WriteStream(w http.ResponseWriter, a Answer, chunks iter.Seq[session.Chunk]) error {
	live.StreamHeaders(w.Header())
	return writeStream(w, &streamWriter{w: w, answer: a}, chunks)
}

// WriteJSONStream writes a streamed answer of chunks to w as
// streamGenerateContent answers a request that does not ask for alt=sse
// (alt=json, the API's default, which the clients generated from its
// protos ask for — generative-ai-go, and langchaingo's googleai on it):
// the events of WriteStream as the elements of one JSON array, "[" before
// the first, ",\r\n" between them and "]" after the finish or an error.
// Such a client reads an error element as an empty response, as it does
// the API's.
func WriteJSONStream(w http.ResponseWriter, a Answer, chunks iter.Seq[session.Chunk]) error {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	return writeStream(w, &streamWriter{w: w, answer: a, array: true}, chunks)
}

func writeStream(w http.ResponseWriter, s *streamWriter, chunks iter.Seq[session.Chunk]) error {
	w.WriteHeader(http.StatusOK)
	s.buf = streamBufs.Get().(*[]byte)
	s.flusher, _ = w.(http.Flusher)
	// A call of chunks, not a range over it: a range over a dynamic
	// iterator allocates its closure and state.
	chunks(s.each)
	err := s.err
	s.release() // not deferred: the buffer of a stream whose chunks panicked is not reused
	return err
}

// WriteMessage writes a whole answer: the message's parts in one content,
// the finishReason and the usage; a failed call as an error body.
func WriteMessage(w http.ResponseWriter, a Answer, msg session.Message, usage *session.Usage, finish *session.FinishReason) error {
	kind := session.FinishStop
	if finish != nil {
		kind = finish.Kind
	}
	switch kind {
	case session.FinishError:
		status, _, text := live.ServedFailure(finish)
		return WriteError(w, status, "", text)
	case session.FinishAborted:
		return WriteError(w, 499, "ABORTED", "agentsnap: the model call was aborted")
	}
	var parts []Part
	for _, p := range msg.Content {
		sig := Signature(p.Meta)
		switch p.Type {
		case session.PartText, session.PartReasoning:
			parts = append(parts, Part{Text: ptr(p.Text), Thought: p.Type == session.PartReasoning, ThoughtSignature: sig})
		case session.PartToolCall:
			fc, err := functionCallPart(p.ID, p.Name, p.Arguments, sig)
			if err != nil {
				// agentsnap's own refusal: a retry would fail alike, after
				// the SDK's back-off.
				w.Header().Set("X-Should-Retry", "false")
				_ = WriteError(w, http.StatusInternalServerError, "AGENTSNAP", err.Error())
				return err
			}
			parts = append(parts, *fc)
		}
	}
	if len(parts) == 0 {
		parts = []Part{{Text: ptr("")}}
	}
	body := a.response(Candidate{Content: &Content{Role: "model", Parts: parts}, FinishReason: finishReason(kind)}, usage)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	return json.NewEncoder(w).Encode(body)
}

// WriteError writes an error body in the API's shape, {"error": {"code":
// status, "message", "status"}}, with agentsnap's code, when there is one,
// as the reason of an ErrorInfo detail.
func WriteError(w http.ResponseWriter, status int, code, message string) error {
	e := APIError{Code: status, Message: message, Status: statusName(status)}
	if code != "" {
		d, _ := json.Marshal(map[string]string{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": code, "domain": "agentsnap"})
		e.Details = []json.RawMessage{d}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(map[string]APIError{"error": e})
}

// statusName is the google.rpc status the API names an HTTP status by.
func statusName(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ABORTED"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}
