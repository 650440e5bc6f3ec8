package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/llm/responses"
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
	// Formats are the model APIs served, each on its own paths; default
	// DefaultFormats().
	Formats []Format
	// Lineage says how a call's session is told: Explicit (the default)
	// or Infer.
	Lineage Lineage
	// ToolReplay answers the agent's MCP requests in a replay (Handler.MCP):
	// the Env's ToolReplay. Nil while recording: the MCP server answers
	// (as it does a request ToolReplay answers llm.ErrRunTool for: an
	// only-changed recording's session recorded anew).
	ToolReplay llm.ToolReplay
	Logf       func(format string, args ...any)
}

// Lineage says how the handler tells which session makes a call.
type Lineage int

const (
	// Explicit names every child session: in process with Spawn or Fork
	// on the child's context, over HTTP with the Agentsnap-* headers. A
	// call that names none is the root's.
	Explicit Lineage = iota
	// Infer is for agents that name no sessions. A call that names none
	// continues the session whose conversation it extends; one that
	// continues none, while a session waits for the results of its tool
	// calls, is the child of the one open call whose arguments hold its
	// prompt. What was inferred is recorded in the log's headers like any
	// lineage; a call that fits no session, or more than one, is refused,
	// naming the headers to send.
	Infer
)

// Handler is a model endpoint (http.Handler) that speaks the APIs of
// Config.Formats, serves every call from Config.Driver — routed by the
// calling session — and writes each session's log from what crosses the
// wire, to the same contract as any runtime: every call as it was sent;
// turns start at the user messages a request ends with after a finished
// turn and end when the model answers without tool calls; steps follow
// the tool results the next request brings; a fork child's seed is its
// parent's completed turns. A call's events are stored once its answer is
// recorded (journal.Config.FlushAfterAnswers), not before it is served.
// A token count of an API that has one (Anthropic's count_tokens,
// Gemini's countTokens) is answered too, as no model call: while recording
// by Config.Driver (an llm.TokenCounter), in a replay by Config.ToolReplay
// (an llm.CountReplay), and recorded as a count/tokens event of the
// session that asked — one the live endpoint failed as failed, served
// again as that failure in a replay.
//
// A Handler is safe for concurrent use: sessions may call at the same
// time; one session's calls are served one after another. Call Close when
// the agent is done: it ends the turns left open and reports every
// problem met on the way.
type Handler struct {
	cfg  Config
	jcfg journal.Config

	mu       sync.Mutex
	root     *wireSession
	byTag    map[*tag]*wireSession
	byHeader map[string]*wireSession
	all      []*wireSession // creation order
	recent   *wireSession   // the session that kept a request's state last (incremental.go)
	problems []error

	atOnce bool // every call is answered without waiting (answersAtOnce)
	// inProcess: the handler is served through Transport, so its agent
	// runs in this process, not behind agentsnap serve (stopAdvice).
	inProcess atomic.Bool
	// secrets is the set of the recording the handler runs in (Runtime
	// takes it from Run's context): an agent in process may make its
	// calls on a context of its own, which carries none.
	secrets *secret.Set
}

// NewHandler returns a handler for cfg. Driver and Store are required.
func NewHandler(cfg Config) (*Handler, error) {
	if cfg.Driver == nil || cfg.Store == nil {
		return nil, errors.New("wire: Config.Driver and Config.Store are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if len(cfg.Formats) == 0 {
		cfg.Formats = DefaultFormats()
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	d, ok := cfg.Driver.(interface{ NeverWaits() bool })
	return &Handler{
		cfg:      cfg,
		jcfg:     journal.Config{Store: cfg.Store, Clock: cfg.Clock, Cwd: cfg.Cwd, ToolReplay: cfg.ToolReplay, FlushAfterAnswers: true},
		atOnce:   ok && d.NeverWaits(),
		byTag:    map[*tag]*wireSession{},
		byHeader: map[string]*wireSession{},
	}, nil
}

// answersAtOnce reports whether every call is answered without waiting
// for anything: a driver that never waits (fakellm.Driver.NeverWaits).
// Transport then serves a call on the caller's goroutine.
func (h *Handler) answersAtOnce() bool { return h.atOnce }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := h.format(r)
	if f == nil {
		if c := h.countFormat(r); c != nil {
			h.serveCount(w, r, c)
			return
		}
		h.unknown(w, r)
		return
	}
	body, ok := h.readBody(w, r, f)
	if !ok {
		return
	}
	req, err := h.decode(r, f, body)
	if err == nil {
		err = noConversation(f, req)
	}
	if err != nil {
		h.fail(w, f, http.StatusBadRequest, fmt.Errorf("wire: %s %s: %w", r.Method, r.URL.EscapedPath(), err))
		return
	}
	h.settingsSecrets(r, req.Settings)
	s, err := h.session(r, req)
	if err != nil {
		// Which session sent it follows from the agent's own requests (its
		// headers, its context, its conversation): a recording fails alike.
		h.fail(w, f, http.StatusBadRequest, unserved{err})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.open(r.Context(), h, req); err != nil {
		h.fail(w, f, http.StatusBadRequest, err)
		return
	}
	if err := s.call(r.Context(), h, f, w, req); err != nil {
		h.problem(err)
	}
}

// settingsSecrets takes the credentials a request's settings carry (an
// api_key member, extra headers) for secrets, as readBody takes its
// headers': the settings are recorded as sent.
func (h *Handler) settingsSecrets(r *http.Request, settings []byte) {
	if len(settings) == 0 {
		return
	}
	// The source names the way out: a key is the API's header's business.
	const where = "the agent's request body, recorded as sent (send the key as a header instead)"
	secret.FromContext(r.Context()).AddMembers(settings, where)
	if s := h.secrets; s != nil && s != secret.FromContext(r.Context()) {
		s.AddMembers(settings, where)
	}
}

// readBody reads the body of a request of f's API, taking what the agent
// sends as credentials for secrets; false when it answered the request
// (a body too big or unreadable).
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, f Format) ([]byte, bool) {
	// What the agent sends as a credential (a header, a key= in the
	// query, userinfo) is a secret of the recording too: an agent that
	// puts its own key into a message must not leave it in a fixture.
	// A replay without a set in its context adds nothing; serve's and the
	// harness's replays have one, so their verdicts show the agent's key
	// as [REDACTED]. In process the request's context is the agent's,
	// which need not come from Run's: the run's set takes it too.
	secret.FromContext(r.Context()).AddRequest(r, "the agent's request")
	if s := h.secrets; s != nil && s != secret.FromContext(r.Context()) {
		s.AddRequest(r, "the agent's request")
	}
	body, err := readBody(r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			// serve's guard answers and notes it; it is not a call.
			refuse(w, f, http.StatusRequestEntityTooLarge, "BAD_REQUEST", fmt.Sprintf("wire: %s %s: the body is over %d bytes; send a smaller request (or raise the limit: agentsnap serve --max-body)", r.Method, r.URL.EscapedPath(), tooBig.Limit))
			return nil, false
		}
		refuse(w, f, http.StatusBadRequest, "BAD_REQUEST", "wire: reading the request: "+err.Error())
		return nil, false
	}
	return body, true
}

// noConversation refuses a request without a conversation — {}, or any
// JSON object of other members — which no API answers: served, it would
// be recorded as a model call of no message. The member named is where
// the API of f takes the conversation; a system prompt alone is one only
// where the API takes it in that member (OpenAI's).
func noConversation(f Format, req *Request) error {
	if len(req.Messages) > 0 {
		return nil
	}
	member, system := "messages", false
	switch f.API() {
	case openai.API:
		system = true
	case responses.API:
		member, system = "input", true
	case gemini.API:
		member = "contents"
	}
	if system && req.System != "" {
		return nil
	}
	return unserved{fmt.Errorf("the body is no model call of %s, the API this path is: it has no %q, or no message in it; send the conversation there, at least one message, as that API defines it", f.Name(), member)}
}

// unserved is a request agentsnap does not serve as sent — its path, its
// body, or the session it names — whose message says what the agent should
// send instead. A recording refuses it alike, so the verdict of a replay it
// fails does not advise re-recording (agentsnap.NotMended).
type unserved struct{ error }

var _ agentsnap.NotMended = unserved{}

func (e unserved) Unwrap() error       { return e.error }
func (unserved) NotMendedByRecording() {}

// format returns the format whose paths r is on, or nil.
func (h *Handler) format(r *http.Request) Format {
	for _, f := range h.cfg.Formats {
		if f.Match(r) {
			return f
		}
	}
	return nil
}

// unknown answers a request on a path no format serves, naming the APIs
// that are, and keeps it for Close: an SDK may hide the 404. A request on
// an endpoint under one of their paths (Message Batches, a Responses
// compaction) came from an SDK pointed the right way: it is answered in
// its API's error shape, saying so.
func (h *Handler) unknown(w http.ResponseWriter, r *http.Request) {
	names := make([]string, len(h.cfg.Formats))
	for i, f := range h.cfg.Formats {
		names[i] = f.Name()
	}
	shape, advice := h.cfg.Formats[0], "point the agent's SDK at one of those APIs"
	if f := h.beside(r); f != nil {
		shape = f
		advice = "it is an endpoint of " + f.Name() + " beside its model calls, which a recording does not hold: have the agent not call it while it runs under agentsnap"
	} else if f := h.versionless(r); f != nil {
		shape = f
		advice = "it looks like a call of " + f.Name() + " on a base URL without /v1: a client that adds only /messages, as the Vercel AI SDK's @ai-sdk/anthropic does, takes the base URL with /v1 (the URL serve prints, or wire.Env.BaseURL, as it is); the official Anthropic SDKs add /v1/messages themselves and take it without /v1"
	}
	err := unserved{fmt.Errorf("wire: %s %s is not a model call agentsnap serves (it serves %s); %s", r.Method, r.URL.EscapedPath(), strings.Join(names, ", "), advice)}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		// A call the agent needed: named first, it explains what follows.
		// (A GET, such as a client listing models, asks for nothing a
		// recording holds.)
		h.mu.Lock()
		h.problems = append([]error{err}, h.problems...)
		h.mu.Unlock()
	}
	refuse(w, shape, http.StatusNotFound, "NOT_FOUND", err.Error())
}

// versionless returns the Anthropic Messages format when r is a POST to
// /messages without the /v1 before it — a client that appends only
// /messages given a base URL without its version — or nil.
func (h *Handler) versionless(r *http.Request) Format {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/messages") {
		return nil
	}
	for _, f := range h.cfg.Formats {
		if _, ok := f.(anthropicMessages); ok {
			return f
		}
	}
	return nil
}

// beside returns the format whose model calls' path r's path is under
// (POST /v1/messages/batches: Anthropic Messages), or nil.
func (h *Handler) beside(r *http.Request) Format {
	parent := path.Dir(r.URL.Path)
	if parent == r.URL.Path || parent == "/" {
		return nil
	}
	u := *r.URL
	u.Path, u.RawPath = parent, ""
	call := &http.Request{Method: http.MethodPost, URL: &u, Header: r.Header}
	return h.format(call)
}

// fail answers a request the handler cannot serve and keeps the reason for
// Close: an agent may swallow the error.
func (h *Handler) fail(w http.ResponseWriter, f Format, status int, err error) {
	h.problem(err)
	refuse(w, f, status, "AGENTSNAP", err.Error())
}

func (h *Handler) problem(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.problems = append(h.problems, err)
}

// lineageError ends err with what an agent sends to name a session.
func (h *Handler) lineageError(err error) error {
	how := "if it is a subagent's call, name its session: in process, make the child's context with wire.Spawn(ctx, callID) or wire.Fork(ctx, callID) from its parent's; over HTTP, send the headers " +
		HeaderSession + ", " + HeaderParent + ", " + HeaderCall + " and " + HeaderMode
	if h.cfg.Lineage == Explicit {
		how += "; or let agentsnap infer children from the calls' arguments (agentsnap serve --lineage=infer, wire.InferLineage())"
	}
	return fmt.Errorf("%w; %s", err, how)
}

// Close ends every turn left open — a failed call nobody retried ends its
// turn with that failure, tool calls whose results never came end theirs
// with an error — and flushes every log. It returns every problem met
// while serving (a request on a path no API is served on, a model call
// that could not start, a session that stopped in the middle of its
// work), or nil.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	all := append([]*wireSession(nil), h.all...)
	h.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		err := s.close(ctx, h.stopAdvice())
		s.mu.Unlock()
		if err != nil {
			h.problem(err)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return errors.Join(h.problems...)
}

// stopAdvice says why a session was left in the middle of its work and
// what to do, as the agent runs: in this process (Transport), its run
// returned; behind agentsnap serve, it ended or serve was stopped.
func (h *Handler) stopAdvice() string {
	if h.inProcess.Load() {
		return "the agent's run returned in the middle of its work (an error, a step limit?); let the agent finish each turn, sending its tool calls' results, before its run returns"
	}
	return "the agent ended (or was stopped) in the middle of its work; let it finish before stopping serve"
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
