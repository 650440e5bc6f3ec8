package playbook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Errors of the driver, for errors.Is.
var (
	ErrNoSession = errors.New("no turns for this session")
	ErrExhausted = errors.New("turns exhausted")
	ErrUnused    = errors.New("turns left unused")
)

// Driver plays a Playbook. It is safe for concurrent use.
type Driver struct {
	pb   *Playbook
	name string // the playbook's file, for messages

	mu   sync.Mutex
	next map[string]int // turns served per session key
}

// NewDriver returns a driver over pb; name (usually the file path) is used
// in errors.
func NewDriver(pb *Playbook, name string) *Driver {
	return &Driver{pb: pb, name: name, next: map[string]int{}}
}

// Key returns the playbook key of the session making a call.
func Key(ref llm.SessionRef) string {
	if ref.IsRoot() {
		return RootKey
	}
	return ref.ParentCallID
}

// Stream implements llm.Driver. It serves the session's next turn: key
// "root" for the root session, the creating call's id for a child. The
// chunks are rendered when Stream is called, so the request may be reused as
// soon as Stream returns. A hang turn's stream blocks until ctx is done.
func (d *Driver) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	key := Key(req.Session)
	d.mu.Lock()
	turns, ok := d.pb.Sessions[key]
	n := d.next[key]
	if ok && n < len(turns) {
		d.next[key] = n + 1
	}
	d.mu.Unlock()
	switch {
	case !ok && req.Session.IsRoot():
		return nil, fmt.Errorf("playbook: %s: %w: the root session has no entry; add sessions.%s to the playbook", d.name, ErrNoSession, key)
	case !ok:
		return nil, fmt.Errorf("playbook: %s: %w: session %s (created by call %s) has no entry; add sessions.%s to the playbook", d.name, ErrNoSession, req.Session.ID, req.Session.ParentCallID, key)
	case n >= len(turns):
		return nil, fmt.Errorf("playbook: %s: %w: sessions.%s asked for model turn %d (turn %d step %d), the playbook has %d; add a turn to sessions.%s", d.name, ErrExhausted, key, n+1, req.Turn, req.Step, len(turns), key)
	}
	t := turns[n]
	chunks := t.chunks(req)
	return func(yield func(llm.Chunk) bool) {
		for _, c := range chunks {
			if !yield(c) {
				return
			}
		}
		if t.Hang {
			<-ctx.Done()
			yield(session.Finish(session.FinishAborted))
		}
	}, nil
}

// Skip counts one call of req's session as answered elsewhere — replayed
// from a recording — so that session's next call gets the turn after it,
// and Unused counts the turn as used: playbook turn n answers a session's
// n-th call, whoever answered the ones before it.
func (d *Driver) Skip(req *llm.Request) {
	key := Key(req.Session)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next[key]++
}

// chunks renders the turn as a stream. Error and hang turns stream their
// text without closing it, as a stream cut off mid-way does.
func (t *Turn) chunks(req *llm.Request) []llm.Chunk {
	var m llm.Message
	m.Role = session.RoleAssistant
	if t.Reasoning != "" {
		m.Content = append(m.Content, session.Part{Type: session.PartReasoning, Text: t.Reasoning})
	}
	if t.Text != "" {
		m.Content = append(m.Content, session.TextPart(t.Text))
	}
	for _, c := range t.ToolCalls {
		args := "{}"
		if len(c.Arguments) > 0 {
			if b, err := session.MarshalData(json.RawMessage(c.Arguments)); err == nil {
				args = string(b)
			}
		}
		m.Content = append(m.Content, session.Part{Type: session.PartToolCall, ID: c.ID, Name: c.Name, Arguments: args})
	}
	all := llm.StreamMessage(m, t.usage(req, &m), t.Finish)
	if t.Error == nil && !t.Hang {
		return all
	}
	// Keep the opening and the deltas; drop block ends, usage and finish.
	cut := slices.DeleteFunc(all, func(c llm.Chunk) bool {
		return c.Type == session.ChunkBlockEnd || c.Type == session.ChunkUsage || c.Type == session.ChunkFinish
	})
	if t.Error != nil {
		cut = append(cut, session.ErrorFinish(t.Error.Code, t.Error.Message))
	}
	return cut
}

// usage is the authored usage, or a deterministic estimate (4 characters a
// token) so recordings carry realistic accounting.
func (t *Turn) usage(req *llm.Request, m *llm.Message) *session.Usage {
	if t.Usage != nil {
		return &session.Usage{InputTokens: t.Usage.InputTokens, OutputTokens: t.Usage.OutputTokens, CacheReadTokens: t.Usage.CacheReadTokens, ReasoningTokens: t.Usage.ReasoningTokens}
	}
	out, _ := session.MarshalData(m)
	return &session.Usage{InputTokens: int(inputEstimate(req)), OutputTokens: len(out)/4 + 1}
}

// inputEstimate is the input tokens of req a playbook reports: 4
// characters of its system prompt and conversation a token.
func inputEstimate(req *llm.Request) int64 {
	in := len(req.System)
	for _, msg := range req.Messages {
		b, _ := session.MarshalData(msg)
		in += len(b)
	}
	return int64(in/4 + 1)
}

var _ llm.TokenCounter = (*Driver)(nil)

// CountTokens implements llm.TokenCounter, so an agent that counts its
// tokens can be recorded from a playbook: the count is the estimate a
// turn without authored usage reports as its input tokens, so counting a
// request and then calling with it agree, as with a live model. It uses
// no turn: playbook.json has nothing to author for a count.
func (d *Driver) CountTokens(_ context.Context, req *llm.Request) (int64, error) {
	return inputEstimate(req), nil
}

// Unused reports the playbook turns no call consumed — a sign the agent took
// another path than the author planned. nil when every turn was used.
func (d *Driver) Unused() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var left []string
	for _, key := range slices.Sorted(maps.Keys(d.pb.Sessions)) {
		if used, n := d.next[key], len(d.pb.Sessions[key]); used < n {
			left = append(left, fmt.Sprintf("sessions.%s used %d of %d turns", key, used, n))
		}
	}
	if len(left) == 0 {
		return nil
	}
	return fmt.Errorf("playbook: %s: %w: %s; the agent took another path than the playbook plans, or the playbook has turns too many", d.name, ErrUnused, strings.Join(left, "; "))
}
