package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Config is what a Handler serves from and writes to.
type Config struct {
	Driver llm.Driver        // the model: fakellm (replay), a playbook or a live driver (recording)
	Store  persistence.Store // where the session logs written from the wire go
	// Provider is recorded in each request/header; the model name comes
	// from each request.
	Provider string
	Clock    func() time.Time // default time.Now
	Cwd      string           // recorded in headers
	Format   Format           // default ChatCompletions
	Logf     func(format string, args ...any)
}

// Handler is an OpenAI-compatible model endpoint (http.Handler) that
// serves every call from Config.Driver — routed by the calling session —
// and writes each session's log from what crosses the wire, to the same
// contract as any runtime: turns start at a user message and end when the
// model answers without tool calls, steps follow the tool results the next
// request brings, a fork child's seed is its parent's completed turns.
//
// A Handler is safe for concurrent use: sessions may call at the same
// time; one session's calls are served one after another. Call Close when
// the agent is done: it ends the turns left open and reports every
// protocol problem met on the way.
type Handler struct {
	cfg  Config
	jcfg journal.Config

	mu       sync.Mutex
	root     *wireSession
	byTag    map[*tag]*wireSession
	byHeader map[string]*wireSession
	all      []*wireSession // creation order
	problems []error
}

// NewHandler returns a handler for cfg. Driver and Store are required.
func NewHandler(cfg Config) (*Handler, error) {
	if cfg.Driver == nil || cfg.Store == nil {
		return nil, errors.New("wire: Config.Driver and Config.Store are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Format == nil {
		cfg.Format = ChatCompletions
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return &Handler{
		cfg:      cfg,
		jcfg:     journal.Config{Store: cfg.Store, Clock: cfg.Clock, Cwd: cfg.Cwd},
		byTag:    map[*tag]*wireSession{},
		byHeader: map[string]*wireSession{},
	}, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := h.cfg.Format
	if !f.Match(r) {
		f.WriteError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("wire: %s %s is not a %s call", r.Method, r.URL.Path, f.Name()))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.WriteError(w, http.StatusBadRequest, "BAD_REQUEST", "wire: reading the request: "+err.Error())
		return
	}
	req, err := f.DecodeRequest(body)
	if err != nil {
		h.fail(w, http.StatusBadRequest, fmt.Errorf("wire: %w", err))
		return
	}
	s, err := h.session(r)
	if err != nil {
		h.fail(w, http.StatusBadRequest, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.open(r.Context(), h, req); err != nil {
		h.fail(w, http.StatusBadRequest, err)
		return
	}
	if err := s.call(r.Context(), h, w, req); err != nil {
		h.problem(err)
	}
}

// fail answers a request the handler cannot serve and keeps the reason for
// Close: an agent may swallow the error.
func (h *Handler) fail(w http.ResponseWriter, status int, err error) {
	h.problem(err)
	h.cfg.Format.WriteError(w, status, "AGENTSNAP", err.Error())
}

func (h *Handler) problem(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.problems = append(h.problems, err)
}

// session finds or creates the session a request belongs to.
func (h *Handler) session(r *http.Request) (*wireSession, error) {
	id, byHeaders, err := fromHeaders(r.Header)
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if byHeaders {
		return h.byHeaderID(id)
	}
	return h.byContextTag(tagOf(r.Context()))
}

func (h *Handler) rootSession() *wireSession {
	if h.root == nil {
		h.root = &wireSession{name: "root"}
		h.all = append(h.all, h.root)
	}
	return h.root
}

func (h *Handler) byContextTag(t *tag) (*wireSession, error) {
	if t == nil {
		return h.rootSession(), nil
	}
	if s, ok := h.byTag[t]; ok {
		return s, nil
	}
	parent, err := h.byContextTag(t.parent)
	if err != nil {
		return nil, err
	}
	s := &wireSession{parent: parent, callID: t.callID, mode: t.mode, name: parent.name + "/" + t.callID}
	h.byTag[t] = s
	h.all = append(h.all, s)
	return s, nil
}

func (h *Handler) byHeaderID(id headerIdentity) (*wireSession, error) {
	if s, ok := h.byHeader[id.id]; ok {
		if s.callID != id.callID || s.mode != id.mode {
			return nil, fmt.Errorf("wire: session %q was created by call %q (%s) and now names call %q (%s); a session keeps its lineage", id.id, s.callID, s.mode, id.callID, id.mode)
		}
		return s, nil
	}
	if id.parent == "" {
		if h.root != nil && h.root.headerID != "" && h.root.headerID != id.id {
			return nil, fmt.Errorf("wire: a second root session %q (the root is %q); a replay serves one root, and a child names its parent in %s", id.id, h.root.headerID, HeaderParent)
		}
		s := h.rootSession()
		s.headerID = id.id
		h.byHeader[id.id] = s
		return s, nil
	}
	parent, ok := h.byHeader[id.parent]
	if !ok {
		return nil, fmt.Errorf("wire: child session %q names parent %q, which has made no call; a parent calls the model before it delegates", id.id, id.parent)
	}
	s := &wireSession{parent: parent, callID: id.callID, mode: id.mode, headerID: id.id, name: parent.name + "/" + id.callID}
	h.byHeader[id.id] = s
	h.all = append(h.all, s)
	return s, nil
}

// Close ends every turn left open — a failed call nobody retried ends its
// turn with that failure, tool calls whose results never came end theirs
// with an error — and flushes every log. It returns every problem met
// while serving (a request that did not fit its session's conversation, a
// model call that could not start), or nil.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	all := append([]*wireSession(nil), h.all...)
	h.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		err := s.close(ctx)
		s.mu.Unlock()
		if err != nil {
			h.problem(err)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return errors.Join(h.problems...)
}

// newJournal creates the journal of s at its first call.
func (h *Handler) newJournal(ctx context.Context, s *wireSession) (*journal.Journal, error) {
	if s.parent == nil {
		return journal.NewRoot(ctx, h.jcfg)
	}
	h.mu.Lock()
	parent := s.parent.j
	h.mu.Unlock()
	if parent == nil {
		return nil, fmt.Errorf("wire: session %s calls the model before its parent %s did; a parent calls the model before it delegates", s.name, s.parent.name)
	}
	return parent.Child(ctx, s.callID, s.mode)
}

// requestFor builds the model call of req for s's journal to fill in.
func requestFor(req *Request) *llm.Request {
	return &llm.Request{Model: req.Model, System: req.System, Messages: req.Messages, Tools: req.Tools}
}

// endReason is how a turn ends after a call that finished so.
func endReason(f *session.FinishReason) session.EndReason {
	if f.Kind == session.FinishAborted {
		return session.EndReason{Kind: session.TurnAborted, Message: "the model call was aborted"}
	}
	msg := "the model call failed"
	if f.Failure != nil {
		msg = f.Failure.Code + ": " + f.Failure.Message
	}
	return session.EndReason{Kind: session.TurnError, Message: msg}
}
