package main

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/report"
	"github.com/agentsnap/agentsnap/session"
)

// Secrets in what check, report and review show. A developer runs them
// with the real keys in the shell, and their output goes to CI logs, pull
// request comments and HTML artifacts: an agent that now writes a key into
// a message makes a drift, a log difference and a transcript diff that
// quote it. The values of the key variables, of the base URL's
// credentials and of the variables AGENTSNAP_SECRET_VARS names show as
// [REDACTED] in all of it, as in a test's failures and in serve's verdict.
// judge.Drift and judge.Difference are raw values; what is printed of them
// goes through the set here (or Outcome.Report, which redacts with it).

// withSecrets returns ctx carrying the secrets of the shell: replays made
// with it report them redacted (judge.Outcome.Report), and the wire layer
// adds what an agent sends as a credential to the same set.
func withSecrets(ctx context.Context, e *env) context.Context {
	return secret.NewContext(ctx, secret.FromEnv(e.getenv))
}

// redact replaces the secrets s holds in everything r shows: the table's
// notes, the problems, the first difference, the command and the HTML
// report's page.
func (r *checkResult) redact(s *secret.Set) {
	if s.Len() == 0 {
		return
	}
	r.verdict, r.first, r.fix, r.pending = s.Redact(r.verdict), s.Redact(r.first), s.Redact(r.fix), s.Redact(r.pending)
	r.notes = redactAll(s, r.notes)
	r.problems = redactAll(s, r.problems)
	if r.page != nil {
		r.page = redactPage(s, r.page)
	}
}

// redactAll returns texts redacted, in a new slice.
func redactAll(s *secret.Set, texts []string) []string {
	if texts == nil {
		return nil
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = s.Redact(t)
	}
	return out
}

// redactPage returns a copy of sc with the secrets s holds gone from its
// text and from its logs, which the page renders messages, tool calls and
// results from: a log is redacted before it is rendered, since the page's
// HTML escaping writes a key's "+" or "/" otherwise than the key.
func redactPage(s *secret.Set, sc *report.Scenario) *report.Scenario {
	out := *sc
	out.Problems = redactAll(s, sc.Problems)
	out.FixCommand = s.Redact(sc.FixCommand)
	out.GoldenTranscript, out.ReplayTranscript = s.Redact(sc.GoldenTranscript), s.Redact(sc.ReplayTranscript)
	out.Recorded, out.Replayed = redactLogs(s, sc.Recorded), redactLogs(s, sc.Replayed)
	return &out
}

// redactLogs returns copies of logs with the secrets s holds replaced in
// every string of the header and every event's JSON. The set's forms
// include a value's JSON escaping, and [REDACTED] needs none, so the JSON
// stays valid.
func redactLogs(s *secret.Set, logs []*session.Log) []*session.Log {
	if logs == nil {
		return nil
	}
	out := make([]*session.Log, len(logs))
	for i, l := range logs {
		c := *l
		h := &c.Header
		h.ID, h.Cwd, h.ParentSession, h.AgentPreset, h.ParentCallID = s.Redact(h.ID), s.Redact(h.Cwd), s.Redact(h.ParentSession), s.Redact(h.AgentPreset), s.Redact(h.ParentCallID)
		h.Extra = redactRaw(s, h.Extra)
		c.Events = make([]session.Event, len(l.Events))
		for j, e := range l.Events {
			e.Data, e.SurfaceOp = redactJSON(s, e.Data), redactJSON(s, e.SurfaceOp)
			e.Extra = redactRaw(s, e.Extra)
			c.Events[j] = e
		}
		out[i] = &c
	}
	return out
}

// redactJSON returns raw redacted, raw itself when it holds no secret.
func redactJSON(s *secret.Set, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	if red := s.Redact(string(raw)); red != string(raw) {
		return json.RawMessage(red)
	}
	return raw
}

// redactRaw returns a copy of m, each value redacted (redactJSON).
func redactRaw(s *secret.Set, m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		out[k] = redactJSON(s, v)
	}
	return out
}

// redactProposals replaces the secrets s holds in what review shows of
// each proposal: its diffs and warnings. The files it accepts or rejects
// are named as they are.
func redactProposals(s *secret.Set, props []proposal) {
	if s.Len() == 0 {
		return
	}
	for i := range props {
		p := &props[i]
		p.Warnings = redactAll(s, p.Warnings)
		for j := range p.Sessions {
			d := &p.Sessions[j]
			d.Session, d.Diff = s.Redact(d.Session), s.Redact(d.Diff)
		}
	}
}
