package wire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// minPrompt is the shortest text lineage inference finds inside a call's
// arguments, or the arguments inside: shorter ones ("ok", "yes") match too
// much. A prompt that is an argument's whole value matches at any length.
const minPrompt = 8

// infer finds the session of a call that names none (Lineage Infer): the
// session whose last request it shares the most leading messages with,
// unless it is the first call of a child — its prompt is in the arguments
// of exactly one open tool call (made, not yet answered, no child yet) and
// it carries none of the results that session waits for. The caller holds
// h.mu.
func (h *Handler) infer(req *Request) (*wireSession, error) {
	if h.root == nil {
		return h.rootSession(), nil
	}
	var bests []*wireSession
	bestLen := 0
	for _, s := range h.all {
		switch n := commonPrefixFrom(s.last, req.Messages, lastKnown(s, req)); {
		case n > bestLen:
			bests, bestLen = append(bests[:0], s), n
		case n == bestLen && n > 0:
			bests = append(bests, s)
		}
	}
	bests = sameSystem(bests, req.System)
	var best *wireSession
	if len(bests) > 0 {
		best = bests[0]
	}
	parent, call, err := h.openCall(req, best, bestLen)
	if err != nil {
		return nil, err
	}
	if call != nil {
		mode := session.ModeSpawn
		// It starts with what its parent says in a turn after one the
		// parent completed, which a fork inherits: as those turns, or as
		// its first message rewritten to hold them (langchaingo's memory).
		// A first message the parent sent from its start (a preamble an
		// agent sends every agent) is no inheritance, and on the parent's
		// first turn a fork would inherit nothing.
		if inherits(parent, req.Messages) {
			mode = session.ModeFork
		}
		return h.newChild(parent, call.id, mode, "")
	}
	switch {
	case len(bests) > 1:
		return nil, h.lineageError(fmt.Errorf("wire: lineage inference: a request's conversation continues %d sessions alike (messages in common with each: %d), so which one sent it cannot be told", len(bests), bestLen))
	case best != nil:
		return best, nil
	case !h.waiting():
		return h.root, nil // an agent without memory: the root again
	}
	return nil, h.lineageError(fmt.Errorf("wire: lineage inference: a request (%s) continues no session, and no open tool call's arguments hold its prompt", lastUserText(req.Messages)))
}

// inherits reports whether a child whose first request sends msgs starts
// with what its parent passes a fork: the turns the parent completed, or
// the first message of the parent's last request when that message is not
// the one the parent started with. The caller holds h.mu.
func inherits(parent *wireSession, msgs []session.Message) bool {
	done := parent.j.Completed()
	if len(done) == 0 || len(parent.last) == 0 || len(msgs) == 0 || differs(&parent.last[0], &msgs[0]) != "" {
		return false
	}
	return differs(&done[0], &msgs[0]) != "" || commonPrefixFrom(done, msgs, 0) == len(done)
}

// sameSystem narrows sessions that a request continues alike to those
// whose last request had its system prompt: an agent without memory sends
// each agent's preamble again, and the system prompt says whose call it is.
// When none or all of them had it, they stay as they are.
func sameSystem(alike []*wireSession, system string) []*wireSession {
	if len(alike) < 2 {
		return alike
	}
	var same []*wireSession
	for _, s := range alike {
		if s.lastSystem == system {
			same = append(same, s)
		}
	}
	if len(same) == 0 {
		return alike
	}
	return same
}

// lastKnown returns how many leading messages of req are known to be
// those of s.last: read against what s's last request left. The caller
// holds h.mu.
func lastKnown(s *wireSession, req *Request) int {
	if req.base != nil && req.base == s.decoded {
		return min(req.reused, len(s.last))
	}
	return 0
}

// openCall returns the open tool call whose arguments hold the prompt of
// req — the user messages after the n it shares with best — and its
// session, or nil when there is none. More than one is an error.
func (h *Handler) openCall(req *Request, best *wireSession, n int) (*wireSession, *madeCall, error) {
	prompts := userTexts(req.Messages[n:])
	for i := len(prompts) - 1; i >= 0; i-- { // the last one: the task, after any context
		var hits []*madeCall
		var owners []*wireSession
		for _, s := range h.all {
			if s == best && carriesResults(req.Messages[n:], s) {
				continue // the session's own next step
			}
			for k := range s.made {
				m := &s.made[k]
				if !m.answered && m.children == 0 && argsHold(m.args, prompts[i]) {
					hits, owners = append(hits, m), append(owners, s)
				}
			}
		}
		switch len(hits) {
		case 0:
			continue
		case 1:
			return owners[0], hits[0], nil
		}
		ids := make([]string, len(hits))
		for k, m := range hits {
			ids[k] = owners[k].name + " " + m.id
		}
		return nil, nil, h.lineageError(fmt.Errorf("wire: lineage inference: the prompt %q of a new session is in the arguments of %d open tool calls (%s)", abbrev(prompts[i]), len(hits), strings.Join(ids, ", ")))
	}
	return nil, nil, nil
}

// waiting reports whether some session waits for tool results. The caller
// holds h.mu.
func (h *Handler) waiting() bool {
	for _, s := range h.all {
		for _, m := range s.made {
			if !m.answered {
				return true
			}
		}
	}
	return false
}

// carriesResults reports whether msgs hold a result of one of s's open
// calls, paired as the session pairs them (pairResults): by id, or by the
// tool's name for a result that names no id.
func carriesResults(msgs []session.Message, s *wireSession) bool {
	var open, results []session.Part
	for _, c := range s.made {
		if !c.answered {
			open = append(open, session.Part{Type: session.PartToolCall, ID: c.id, Name: c.name})
		}
	}
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.Type == session.PartToolResult {
				results = append(results, p)
			}
		}
	}
	_, n := pairResults(open, results)
	return n > 0
}

// argsHold reports whether a prompt is one of the string values of a
// call's arguments, or — for texts of minPrompt bytes or more — one holds
// the other (a framework may wrap the task in a template, or pass part of
// it).
func argsHold(args, prompt string) bool {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" {
		return false
	}
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return len(prompt) >= minPrompt && strings.Contains(args, prompt)
	}
	found := false
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			x = strings.TrimSpace(x)
			if x == prompt || len(x) >= minPrompt && len(prompt) >= minPrompt && (strings.Contains(x, prompt) || strings.Contains(prompt, x)) {
				found = true
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return found
}

func userTexts(msgs []session.Message) []string {
	var out []string
	for i := range msgs {
		if plainUser(&msgs[i]) {
			if t := msgs[i].Text(); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

func lastUserText(msgs []session.Message) string {
	if t := userTexts(msgs); len(t) > 0 {
		return fmt.Sprintf("last user message %q", abbrev(t[len(t)-1]))
	}
	return fmt.Sprintf("%d messages, no user text", len(msgs))
}
