package responses

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// frameBuf is the memory of a stream being written: the event being
// written, and the response's tools member, compacted once per stream.
type frameBuf struct {
	buf, tools []byte
}

// frameBufs keeps the memory of the streams written, for the next: a
// ResponseWriter keeps nothing it is given, so it is free once a stream
// returns.
var frameBufs = sync.Pool{New: func() any { return &frameBuf{buf: make([]byte, 0, 1024)} }}

// release hands s's memory back to frameBufs; s writes nothing more.
func (s *streamer) release() {
	fb := s.fb
	fb.buf = s.buf[:0]
	if cap(fb.buf) > 64<<10 {
		fb.buf = nil // an outsized event: not kept for every stream after
	}
	if cap(fb.tools) > 64<<10 {
		fb.tools = nil
	}
	s.fb, s.buf = nil, nil
	frameBufs.Put(fb)
}

// begin starts event typ in s.buf, up to its sequence_number. typ is one
// of the Event* constants, which need no escaping.
func (s *streamer) begin(typ string) {
	b := append(s.buf[:0], "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":\""...)
	b = append(b, typ...)
	b = append(b, `","sequence_number":`...)
	s.buf = strconv.AppendInt(b, int64(s.seq), 10)
	s.seq++
}

// at starts event typ of item it: up to its output_index and item_id.
func (s *streamer) at(typ string, it *outItem) {
	s.begin(typ)
	s.buf = strconv.AppendInt(append(s.buf, `,"output_index":`...), int64(it.index), 10)
	s.buf = appendID(s.buf, `,"item_id":`, it)
}

// send ends the event in s.buf, writes it in one Write and flushes; after
// an error nothing more is written.
func (s *streamer) send() {
	if s.err != nil {
		return
	}
	// The encoder ends the data with a newline; the blank line ends the event.
	s.buf = append(s.buf, "}\n\n"...)
	if _, s.err = s.w.Write(s.buf); s.err != nil {
		return
	}
	if s.flush != nil {
		s.flush.Flush()
	}
}

func (s *streamer) textDelta(it *outItem, delta string) {
	s.at(EventTextDelta, it)
	s.buf = jsonscan.AppendStdString(append(s.buf, `,"content_index":0,"delta":`...), delta)
	s.buf = append(s.buf, `,"logprobs":[]`...)
	s.send()
}

func (s *streamer) textDone(it *outItem) {
	s.at(EventTextDone, it)
	s.buf = jsonscan.AppendStdString(append(s.buf, `,"content_index":0,"text":`...), it.text.String())
	s.buf = append(s.buf, `,"logprobs":[]`...)
	s.send()
}

func (s *streamer) argsDelta(it *outItem, delta string) {
	s.at(EventArgsDelta, it)
	s.buf = jsonscan.AppendStdString(append(s.buf, `,"delta":`...), delta)
	s.send()
}

func (s *streamer) argsDone(it *outItem) {
	s.at(EventArgsDone, it)
	s.buf = jsonscan.AppendStdString(append(s.buf, `,"arguments":`...), it.text.String())
	s.send()
}

// part writes content_part.added or .done (typ) of message it: its
// output_text part of text.
func (s *streamer) part(typ string, it *outItem, text string) {
	s.at(typ, it)
	s.buf = append(s.buf, `,"content_index":0,"part":{"type":"output_text","text":`...)
	s.buf = jsonscan.AppendStdString(s.buf, text)
	s.buf = append(s.buf, `,"annotations":[]}`...)
	s.send()
}

// summary writes an event typ of reasoning item it's summary part: member
// key (with its colon) of text, then tail.
func (s *streamer) summary(typ string, it *outItem, key, text, tail string) {
	s.at(typ, it)
	s.buf = append(append(s.buf, `,"summary_index":0`...), key...)
	s.buf = append(jsonscan.AppendStdString(s.buf, text), tail...)
	s.send()
}

func (s *streamer) itemAdded(it *outItem) {
	s.begin(EventItemAdded)
	s.buf = strconv.AppendInt(append(s.buf, `,"output_index":`...), int64(it.index), 10)
	s.buf = appendAddedItem(append(s.buf, `,"item":`...), it)
	s.send()
}

func (s *streamer) itemDone(it *outItem) {
	s.begin(EventItemDone)
	s.buf = strconv.AppendInt(append(s.buf, `,"output_index":`...), int64(it.index), 10)
	s.buf = appendDoneItem(append(s.buf, `,"item":`...), it)
	s.send()
}

func (s *streamer) errorEvent(code, msg string) {
	s.begin(EventError)
	s.buf = appendErrorEvent(s.buf, code, msg)
	s.send()
}

// open writes response.created and response.in_progress. It compacts the
// tools member the response events share.
func (s *streamer) open() {
	s.fb.tools, s.toolsErr = appendTools(s.fb.tools[:0], s.a.Tools)
	s.response(EventCreated, &response{status: StatusInProgress})
	s.response(EventInProgress, &response{status: StatusInProgress})
}

// response writes a response event typ of r. With tools whose parameters
// are not JSON it goes through encoding/json, which fails on them with
// the error WriteStream always returned.
func (s *streamer) response(typ string, r *response) {
	if s.toolsErr != nil {
		s.sendStd(typ, r)
		return
	}
	r.id, r.tools = s.id, s.fb.tools
	s.begin(typ)
	s.buf = appendResponse(append(s.buf, `,"response":`...), &s.a, r)
	s.send()
}

// sendStd writes response event typ of r with encoding/json, as every
// event once was: the fallback of response.
func (s *streamer) sendStd(typ string, r *response) {
	if s.err != nil {
		return
	}
	resp := newResponse(s.a, r.status)
	if r.final {
		resp.IncompleteDetails, resp.Usage = r.incomplete, usageOf(r.usage)
		for _, it := range r.items {
			resp.Output = append(resp.Output, it.doneItem())
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	ev := Event{Type: typ, SequenceNumber: s.seq, Response: resp}
	s.seq++
	if s.err = enc.Encode(ev); s.err != nil {
		return
	}
	s.buf = append(append(append(append(s.buf[:0], "event: "...), typ...), "\ndata: "...), b.Bytes()...)
	s.buf = append(s.buf, '\n')
	if _, s.err = s.w.Write(s.buf); s.err == nil && s.flush != nil {
		s.flush.Flush()
	}
}
