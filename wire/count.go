package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// countFormat is a Format whose API counts a request's input tokens on an
// endpoint beside its model calls (Anthropic's POST
// /v1/messages/count_tokens, Gemini's models/{model}:countTokens).
type countFormat interface {
	Format
	// MatchCount reports whether r is a token count of this API.
	MatchCount(r *http.Request) bool
	// DecodeCount reads a token count's request with the decoder of the
	// API's model calls.
	DecodeCount(r *http.Request, body []byte) (*Request, error)
	// WriteCount answers a token count: n input tokens.
	WriteCount(w http.ResponseWriter, n int64) error
}

// countFormat returns the format whose token counting endpoint r is on,
// or nil.
func (h *Handler) countFormat(r *http.Request) countFormat {
	for _, f := range h.cfg.Formats {
		if c, ok := f.(countFormat); ok && c.MatchCount(r) {
			return c
		}
	}
	return nil
}

// serveCount answers an agent's token count request and records it in
// the log of the session that made it — told as a model call's is, by
// its Agentsnap-* headers, its context or, with Infer, its conversation —
// as a count/tokens event (session.CountTokensData), written where an
// mcp/call is (journal.Journal.RecordCount). While recording the model
// driver counts (llm.TokenCounter: a live call to the API's endpoint with
// what the agent's model calls carry, or a playbook's estimate); in a replay the recording answers
// (llm.CountReplay) by the request's digest, and a request it holds no
// count of fails the replay as drift, naming the session and the request.
// A count is no model call: it starts no turn and no step.
func (h *Handler) serveCount(w http.ResponseWriter, r *http.Request, f countFormat) {
	body, ok := h.readBody(w, r, f)
	if !ok {
		return
	}
	what := r.Method + " " + r.URL.EscapedPath()
	req, err := f.DecodeCount(r, body)
	if err == nil {
		err = noConversation(f, req)
	}
	if err != nil {
		h.fail(w, f, http.StatusBadRequest, fmt.Errorf("wire: %s: %w", what, err))
		return
	}
	s, err := h.session(r, req)
	if err != nil {
		h.fail(w, f, http.StatusBadRequest, fmt.Errorf("wire: %s: %w", what, err))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.j == nil {
		if err := s.start(context.WithoutCancel(r.Context()), h); err != nil {
			h.fail(w, f, http.StatusBadRequest, fmt.Errorf("wire: %s of session %s: %w", what, s.name, err))
			return
		}
	}
	h.mu.Lock()
	if s.last == nil {
		// A child whose first request is a count: under Infer its model
		// call finds it by the conversation, as it would its last call's.
		s.last, s.lastSystem = req.Messages, req.System
	}
	h.mu.Unlock()
	d, status, err := h.count(r.Context(), s, f, req)
	if err != nil {
		h.fail(w, f, status, fmt.Errorf("wire: %s of session %s: %w", what, s.name, err))
		return
	}
	if d.Failure != nil {
		// The agent gets the failure it got while recording, as for a
		// failed model call: it is no fault of the replay's.
		status, code, msg := live.ServedFailure(&session.FinishReason{Kind: session.FinishError, Failure: d.Failure})
		retryAtOnce(w)
		f.WriteError(w, status, code, msg)
		return
	}
	if err := f.WriteCount(w, d.InputTokens); err != nil {
		h.cfg.Logf("wire: session %s: writing the token count: %v", s.name, err)
	}
}

// count answers req, a token count of session s, and records it — a
// count that failed as the live endpoint failed it, or as recorded so —
// or returns the HTTP status to refuse it with and why. The caller holds
// s.mu.
func (h *Handler) count(ctx context.Context, s *wireSession, f Format, req *Request) (session.CountTokensData, int, error) {
	j := s.j
	lreq := llm.Request{Session: j.Ref(), Turn: j.Turn(), Step: j.Step(), Model: req.Model, System: req.System,
		Messages: req.Messages, Tools: req.Tools, API: f.API(), Settings: req.Settings, Forward: req.Forward}
	d := session.CountTokensData{Turn: lreq.Turn, Step: lreq.Step, API: lreq.API, Model: lreq.Model, Digest: llm.CountDigest(&lreq)}
	if r, ok := h.cfg.ToolReplay.(llm.CountReplay); ok {
		rec, err := r.ReplayCount(ctx, lreq.Session, d)
		switch {
		case errors.Is(err, llm.ErrRunTool): // recorded anew: the model counts
		case err != nil:
			// A 4xx: an SDK retries a 5xx, and the replay would only fail
			// again.
			return d, http.StatusBadRequest, err
		default:
			d.InputTokens, d.Failure = rec.InputTokens, rec.Failure
			j.RecordCount(d)
			return d, 0, nil
		}
	}
	n, err := llm.CountTokens(ctx, h.cfg.Driver, &lreq)
	if ce, ok := errors.AsType[*live.CountError](err); ok {
		// Recorded as a failed model call is, so an agent that counts
		// again (an SDK retries a 5xx) records and replays as it ran. One
		// it never counts again with success fails the recording, as a
		// model call it never retried does, unless the recorder keeps
		// live failures (recorder's liveWatch).
		failure := ce.Failure
		d.Failure = &failure
		j.RecordCount(d)
		return d, 0, nil
	}
	if err != nil {
		if errors.Is(err, llm.ErrCannotCount) {
			// A 4xx, as for a model call that cannot start: an SDK retries
			// a 5xx.
			return d, http.StatusBadRequest, fmt.Errorf("%w: a recording of an agent that counts tokens needs a model driver that counts (a live model of its API: agentsnap record --live, serve --record --live; or a playbook, which estimates the count); or have the agent not count them while it runs under agentsnap", err)
		}
		if errors.Is(err, live.ErrNoModel) || errors.Is(err, live.ErrBadRequest) {
			// Refused before it was sent: a 4xx, as for a model call that
			// cannot start; a 502 would have the SDK send it again, in vain.
			return d, http.StatusBadRequest, fmt.Errorf("the token count could not be sent to the model, so the recording fails (the log lacks the count): %w", err)
		}
		// The recording fails: its log lacks the count the agent asked
		// for, so a replay of it could not answer the agent.
		return d, http.StatusBadGateway, fmt.Errorf("the model did not count the tokens, so the recording fails (the log lacks the count): %w", err)
	}
	d.InputTokens = n
	j.RecordCount(d)
	return d, 0, nil
}

// countPath is the token counting endpoint of Anthropic Messages, under
// the model calls' path.
const countPath = "/v1/messages/count_tokens"

func (anthropicMessages) MatchCount(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, countPath)
}

func (f anthropicMessages) DecodeCount(r *http.Request, body []byte) (*Request, error) {
	return f.DecodeRequest(r, body)
}

func (f anthropicMessages) WriteCount(w http.ResponseWriter, n int64) error {
	return f.writeJSON(w, http.StatusOK, struct {
		InputTokens int64 `json:"input_tokens"`
	}{n})
}

var _ countFormat = anthropicMessages{}

func (geminiFormat) MatchCount(r *http.Request) bool {
	_, ok := gemini.ParseCountPath(r.URL.Path)
	return r.Method == http.MethodPost && ok
}

// DecodeCount reads a countTokens body — its contents, or its
// generateContentRequest — as a generateContent body, with the model of
// the URL.
func (geminiFormat) DecodeCount(r *http.Request, body []byte) (*Request, error) {
	model, _ := gemini.ParseCountPath(r.URL.Path)
	inner, err := gemini.CountBody(body)
	if err != nil {
		return nil, err
	}
	return decodeGemini(model, false, inner, nil)
}

func (geminiFormat) WriteCount(w http.ResponseWriter, n int64) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := fmt.Fprintf(w, "{\"totalTokens\":%d}\n", n)
	return err
}

var _ countFormat = geminiFormat{}
