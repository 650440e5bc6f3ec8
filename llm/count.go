package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// TokenCounter is a driver that can count a request's input tokens
// without making a model call: a live driver of an API with a token
// counting endpoint (Anthropic's count_tokens), or a playbook, which
// estimates the count as it does a turn's usage. The wire layer asks it
// while recording an agent's own count request; the answer is recorded as
// a count/tokens event (session.CountTokensData).
type TokenCounter interface {
	// CountTokens returns the input tokens req would take. req.Session,
	// Turn and Step name the session asking, for messages.
	CountTokens(ctx context.Context, req *Request) (int64, error)
}

// ErrCannotCount is what CountTokens answers (wrapped) for a driver that
// is no TokenCounter: a replay driver, a DriverFunc; and what a
// TokenCounter answers (wrapped) when it can count no request of the API
// asked — a live driver of an API without a counting endpoint, or without
// the API's key.
var ErrCannotCount = errors.New("the model driver cannot count tokens")

// CountTokens asks d to count req's input tokens, for a driver that wraps
// another: d's count when it is a TokenCounter, else an error wrapping
// ErrCannotCount that names d's type.
func CountTokens(ctx context.Context, d Driver, req *Request) (int64, error) {
	if c, ok := d.(TokenCounter); ok {
		return c.CountTokens(ctx, req)
	}
	return 0, fmt.Errorf("%w (%T)", ErrCannotCount, d)
}

// CountReplay is a ToolReplay that also serves recorded token counts:
// the replay driver (fakellm.Driver) is one, an only-changed recording
// another. A ToolReplay that is no CountReplay serves none: the wire layer
// then asks the model driver (a TokenCounter), as while recording.
type CountReplay interface {
	// ReplayCount returns the recorded count of the session's request
	// call.Digest (call.InputTokens is ignored). An error means there is
	// none to serve: the request was never recorded, or differs from the
	// recording's (drift) — or, wrapping ErrRunTool, the model is to be
	// asked and its answer recorded.
	ReplayCount(ctx context.Context, s SessionRef, call session.CountTokensData) (session.CountTokensData, error)
}

// CountDigest is the digest a count/tokens event records for req: of its
// API, model, system prompt, tools, conversation and settings — what the
// count depends on — as request/header digests them (RequestHeader), so
// a request the agent changed in any of them is another digest.
func CountDigest(req *Request) string {
	h := RequestHeader("", req)
	var b strings.Builder
	for _, s := range []string{h.API, h.Model, h.SystemDigest, h.ToolsDigest, h.MessagesDigest, string(h.Settings)} {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return Digest([]byte(b.String()))
}
