package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// MCPSend sends one request to the live MCP server and returns its
// answer: the result, or rpcErr for an error response. err means there is
// no answer (the connection failed, ctx ended); nothing is recorded then.
type MCPSend func(ctx context.Context) (result json.RawMessage, rpcErr *session.MCPError, err error)

// ErrMCPReplay is the code of the JSON-RPC error a replay answers an MCP
// request with when the recording holds no answer to it (the message
// names the request and what to do); the replay fails as well.
const ErrMCPReplay = -32099

// errNoAnswer marks MCP's error for a request send did not get answered,
// from the others (a session that cannot be told, no send): only then is
// the live server what to fix.
var errNoAnswer = errors.New("got no answer")

// MCP answers one JSON-RPC request (method, params) that a session makes
// to the MCP server named server, and records it in that session's log as
// an mcp/call event (session.MCPCallData): the session whose Agentsnap-*
// headers are in header, or, with none (header may be nil), the one ctx
// names — made with Spawn or Fork from its parent's context; a context
// that names none is the root's (with InferLineage too: inference reads
// model requests only).
//
// While recording (Config.ToolReplay nil, or one that answers
// llm.ErrRunTool for the request: an only-changed recording's session
// recorded anew) send answers the request. In a replay
// Config.ToolReplay answers it from the recorded session's own
// events and send is never called: no server runs. A request the
// recording holds no answer to gets an error response (code ErrMCPReplay)
// that says why, the replay fails naming it, and err is nil — what the
// agent makes of the error shows in its log. err is send's failure, or a
// session that cannot be told.
//
// MCP may be called from any goroutine; the session's events are written
// in the order of their session.MCPCallData.Key, so the log's bytes do
// not depend on which request finished first.
func (h *Handler) MCP(ctx context.Context, header http.Header, server, method string, params json.RawMessage, send MCPSend) (session.MCPCallData, error) {
	j, turn, step, err := h.mcpJournal(ctx, header)
	if err != nil {
		return session.MCPCallData{}, err
	}
	call := session.MCPCallData{Turn: turn, Step: step, Server: server, Method: method, Params: params}
	if r := h.cfg.ToolReplay; r != nil {
		rec, err := r.ReplayMCP(ctx, j.Ref(), call)
		switch {
		case errors.Is(err, llm.ErrRunTool): // recorded anew: the server answers
		case err != nil:
			call.Error = &session.MCPError{Code: ErrMCPReplay, Message: err.Error()}
			j.RecordMCP(call)
			return call, nil
		default:
			call.Result, call.Error = rec.Result, rec.Error
			j.RecordMCP(call)
			return call, nil
		}
	}
	if send == nil {
		return session.MCPCallData{}, fmt.Errorf("wire: MCP request %s to server %q: a recording needs the live server, and send is nil; pass Handler.MCP the function that sends the request to the live server", method, server)
	}
	if secret.FromContext(ctx) == nil && h.secrets != nil {
		// The agent's MCP client may run on a context of its own, not
		// Run's: what send connects with (a token in the live server's
		// URL, mcpsnap) is still a secret of the recording.
		ctx = secret.NewContext(ctx, h.secrets)
	}
	call.Result, call.Error, err = send(ctx)
	if err != nil {
		return session.MCPCallData{}, fmt.Errorf("wire: MCP request %s to server %q of session %s %w: %w", method, server, j.ID(), errNoAnswer, err)
	}
	if call.Error == nil && len(call.Result) == 0 {
		call.Result = json.RawMessage(`{}`)
	}
	j.RecordMCP(call)
	return call, nil
}

// mcpJournal returns the journal of the session an MCP request names,
// and its turn and step now, starting it when the session has made no
// model call yet (an agent that lists its tools before it asks the model).
func (h *Handler) mcpJournal(ctx context.Context, header http.Header) (_ *journal.Journal, turn, step int, _ error) {
	id, byHeaders, err := fromHeaders(header)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("wire: MCP request: %w", err)
	}
	h.mu.Lock()
	var s *wireSession
	if byHeaders {
		s, err = h.byHeaderID(id)
	} else {
		s, err = h.byContextTag(tagOf(ctx))
	}
	h.mu.Unlock()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("wire: MCP request: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.j == nil {
		if err := s.start(context.WithoutCancel(ctx), h); err != nil {
			return nil, 0, 0, fmt.Errorf("wire: MCP request of session %s: %w", s.name, err)
		}
	}
	return s.j, s.j.Turn(), s.j.Step(), nil
}
