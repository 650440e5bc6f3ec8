package wire

import (
	"io"
	"net/http"
)

// An agent sends its whole conversation on every call, so a session's
// request repeats its last one and adds a message or two. A format that
// can reads a request against the last one of its session (incremental),
// and the session then compares with its log only what is new: the cost
// of a call stays flat however long the conversation grows.

// incremental is a Format that reads a request against the last one its
// session sent.
type incremental interface {
	// decodeNext is DecodeRequest, reading body against prev — the state
	// a request of the format read before left (Request.state), or nil —
	// when it can. Whatever prev is, the request read is DecodeRequest's.
	// When the request's first Request.reused messages are those of the
	// request that left prev, the same values, it sets Request.base to
	// prev.
	decodeNext(r *http.Request, body []byte, prev any) (*Request, error)
}

// decode reads the request r of format f: against the last request of the
// session that sent it, when the format can and that session is known
// before the request is read.
func (h *Handler) decode(r *http.Request, f Format, body []byte) (*Request, error) {
	inc, ok := f.(incremental)
	if !ok {
		return f.DecodeRequest(r, body)
	}
	return inc.decodeNext(r, body, h.lastDecoded(r))
}

// lastDecoded returns what the last request of r's session left to read
// the next one against, or nil. The session is the one r names if it has
// called before (under Infer, when r names none, the session that called
// last); looking it up creates nothing.
func (h *Handler) lastDecoded(r *http.Request) any {
	id, byHeaders, err := fromHeaders(r.Header)
	if err != nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var s *wireSession
	switch t := tagOf(r.Context()); {
	case byHeaders:
		s = h.byHeader[id.id]
	case t != nil:
		s = h.byTag[t]
	case h.cfg.Lineage == Explicit:
		s = h.root
	default:
		s = h.recent
	}
	if s == nil {
		return nil
	}
	return s.decoded
}

// known returns how many leading messages of req the log's conversation
// of s is known to hold — the messages of s's last request, which req
// repeats, when req was read against what that request left — and forgets
// that state: the request now changes the log. Only a request read
// against the session's own last one, with nothing in between that could
// have changed the log's history, counts. The caller holds s.mu.
func (h *Handler) known(s *wireSession, req *Request) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	if req.base != nil && req.base == s.decoded {
		n = req.reused
	}
	// A format keeps a request beside the state it leaves (one
	// allocation), so a base kept would hold the last request, its base
	// the one before, and so on: every body the session sent.
	req.base = nil
	s.decoded = nil
	return n
}

// keep records req as the last request of s, whose messages the log's
// conversation now holds. The caller holds s.mu.
func (h *Handler) keep(s *wireSession, req *Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.last, s.lastSystem, s.decoded = req.Messages, req.System, req.state
	if req.state != nil {
		h.recent = s
	}
}

// maxPresize bounds the buffer a request's Content-Length makes room for
// at once (a client may claim any length); a longer body grows as it is
// read.
const maxPresize = 4 << 20

// readBody reads r's body whole, as io.ReadAll does, into a buffer of the
// size its Content-Length says: an agent's request repeats its whole
// conversation, and growing to it copies it over and over.
func readBody(r *http.Request) ([]byte, error) {
	size := int64(512)
	if n := r.ContentLength; n > 0 {
		size = min(n, maxPresize) + 1 // room to read the end without growing
	}
	b := make([]byte, 0, size)
	for {
		n, err := r.Body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
