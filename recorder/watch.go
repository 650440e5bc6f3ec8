package recorder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/internal/termtext"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// liveWatch wraps a live driver and keeps, per step of each session, how
// its last model call finished, so a recording can tell a live failure
// the agent recovered from (a retry that worked) from one it did not.
type liveWatch struct {
	inner   llm.Driver
	failure func(code string) bool
	// set is the recording's secrets. The inner driver gets it in the
	// context of every call, to add what it sends, and every failure
	// message loses them before the runtime sees it: a failure kept in the
	// fixture (KeepLiveFailures) is recorded redacted.
	set *secret.Set

	mu   sync.Mutex
	last map[stepKey]callOutcome
	// counts holds how the last token count of each request of a session
	// ended: its failure outside the model, or nil. A failure the agent
	// never counted again with success fails the recording as a model call
	// it did not retry does, unless KeepLiveFailures.
	counts map[countKey]*session.Failure
}

type stepKey struct {
	session    string
	turn, step int
}

// countKey is a token count's request: its session and llm.CountDigest,
// which the count/tokens event records.
type countKey struct {
	session, digest string
}

type callOutcome struct {
	attempt int
	failure *session.Failure // nil when the call did not fail outside the model
}

func (w *liveWatch) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	// The runtime's context may not be the recording's (serve's requests
	// come from an HTTP server), so the set is handed on here.
	seq, err := w.inner.Stream(secret.NewContext(ctx, w.set), req)
	if err != nil {
		return nil, err
	}
	return func(yield func(llm.Chunk) bool) {
		for c := range seq {
			if c.IsFinish() {
				c = w.redact(c)
				w.note(req, c)
			}
			if !yield(c) {
				return
			}
		}
	}, nil
}

// CountTokens implements llm.TokenCounter: the live driver counts, with
// the recording's secrets in its context as for Stream.
func (w *liveWatch) CountTokens(ctx context.Context, req *llm.Request) (int64, error) {
	n, err := llm.CountTokens(secret.NewContext(ctx, w.set), w.inner, req)
	if ce, ok := errors.AsType[*live.CountError](err); ok {
		// Kept a CountError, redacted: the wire layer records it.
		redacted := *ce
		redacted.Failure.Message = w.set.Redact(ce.Failure.Message)
		w.noteCount(req, &redacted.Failure)
		return n, &redacted
	}
	if err == nil {
		w.noteCount(req, nil)
	}
	// Redacted, still wrapping what it wrapped: the wire layer answers
	// llm.ErrCannotCount and a request that cannot be sent with a 400, a
	// 502 (which SDKs retry) only for the rest.
	return n, w.set.Error(err)
}

// redact returns finish with the secrets gone from its failure message.
func (w *liveWatch) redact(finish llm.Chunk) llm.Chunk {
	r := finish.Reason
	if r == nil || r.Failure == nil {
		return finish
	}
	msg := w.set.Redact(r.Failure.Message)
	if msg == r.Failure.Message {
		return finish
	}
	reason, failure := *r, *r.Failure
	failure.Message = msg
	reason.Failure = &failure
	finish.Reason = &reason
	return finish
}

// note records how the call req ended; a later attempt of the same step
// replaces an earlier one.
func (w *liveWatch) note(req *llm.Request, finish llm.Chunk) {
	var f *session.Failure
	if r := finish.Reason; r != nil && r.Kind == session.FinishError && r.Failure != nil && w.failure(r.Failure.Code) {
		f = r.Failure
	}
	k := stepKey{req.Session.ID, req.Turn, req.Step}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		w.last = map[stepKey]callOutcome{}
	}
	if prev, ok := w.last[k]; !ok || req.Attempt >= prev.attempt {
		w.last[k] = callOutcome{attempt: req.Attempt, failure: f}
	}
}

// noteCount records how the token count of req ended: f is its failure,
// nil when it counted. A later count of the same request replaces it.
func (w *liveWatch) noteCount(req *llm.Request, f *session.Failure) {
	if f != nil && !w.failure(f.Code) {
		f = nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.counts == nil {
		w.counts = map[countKey]*session.Failure{}
	}
	w.counts[countKey{req.Session.ID, llm.CountDigest(req)}] = f
}

// failed returns an error naming every step whose last live call failed
// outside the model, and every request whose last token count did, or
// nil.
func (w *liveWatch) failed(endpoint string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var keys []stepKey
	for k, o := range w.last {
		if o.failure != nil {
			keys = append(keys, k)
		}
	}
	var counts []countKey
	for k, f := range w.counts {
		if f != nil {
			counts = append(counts, k)
		}
	}
	if len(keys) == 0 && len(counts) == 0 {
		return nil
	}
	slices.SortFunc(keys, func(a, b stepKey) int {
		return cmp.Or(strings.Compare(a.session, b.session), cmp.Compare(a.turn, b.turn), cmp.Compare(a.step, b.step))
	})
	slices.SortFunc(counts, func(a, b countKey) int {
		return cmp.Or(strings.Compare(a.session, b.session), strings.Compare(a.digest, b.digest))
	})
	where := "the live endpoint"
	if endpoint != "" {
		where = endpoint
	}
	var what []string
	if len(keys) > 0 {
		what = append(what, fmt.Sprintf("%d model %s", len(keys), english.Plural(len(keys), "call")))
	}
	if len(counts) > 0 {
		what = append(what, fmt.Sprintf("%d token %s", len(counts), english.Plural(len(counts), "count")))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed at %s", strings.Join(what, " and "), where)
	unrecordable := 0
	for _, k := range keys {
		f := w.last[k].failure
		fmt.Fprintf(&b, "\n  session %s turn %d step %d: %s: %s", k.session, k.turn, k.step, f.Code, f.Message)
		if live.Unrecordable(f) {
			unrecordable++
		}
	}
	for _, k := range counts {
		f := w.counts[k]
		fmt.Fprintf(&b, "\n  session %s, the token count of the request with digest %s, never counted again with success: %s: %s", k.session, k.digest[:min(12, len(k.digest))], f.Code, f.Message)
	}
	b.WriteString(liveFailureAdvice(len(keys)+len(counts)-unrecordable, len(counts) > 0, unrecordable > 0))
	return fmt.Errorf("%w: %s", ErrLiveFailure, b.String())
}

// liveFailureAdvice ends failed's message: for the failures outside the
// model (others of them, counts among them), the network, the key and
// how to keep them; for a call the model made of a tool a log cannot
// record (unrecordable), only that its message says what to change, as
// no retry, key or network fixes it and keeping it records no call.
func liveFailureAdvice(others int, counts, unrecordable bool) string {
	var b strings.Builder
	if others > 0 {
		b.WriteString("\n(a failure of the network, the key, the model name or the server is not agent behaviour; ")
		if counts {
			b.WriteString("let the agent count again after a failed count, as an SDK retries a 429 or 5xx; ")
		}
		b.WriteString("to keep such failures in the fixture on purpose, record with --keep-live-failures, or from your tests (-record) with AGENTSNAP_KEEP_LIVE_FAILURES=1)")
	}
	if unrecordable {
		b.WriteString("\n(the model called a tool a session log cannot record, whatever the network or the key: change the agent's tools as its message says, then record again)")
	}
	return b.String()
}

// progressStore wraps store so that every turn that starts or ends in any
// session prints one progress line to w, whatever the runtime.
func progressStore(store persistence.Store, w io.Writer, dir string) persistence.Store {
	if w == nil {
		return store
	}
	name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
	return &progress{Store: store, w: w, name: name, who: map[string]string{}}
}

type progress struct {
	persistence.Store
	w    io.Writer
	name string

	mu  sync.Mutex
	who map[string]string
}

func (p *progress) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	who := "root"
	if h.IsChild() {
		who = fmt.Sprintf("%s child via %s (depth %d)", cmp.Or(string(h.Mode), "child"), h.ParentCallID, h.DelegationDepth)
	}
	p.mu.Lock()
	p.who[h.ID] = who
	p.mu.Unlock()
	return p.Store.Create(ctx, h, seed)
}

func (p *progress) Append(ctx context.Context, id string, events []session.Event) error {
	err := p.Store.Append(ctx, id, events)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range events {
		switch events[i].Type {
		case session.TypeTurnStart:
			var d session.TurnStartData
			_ = events[i].Decode(&d)
			fmt.Fprintf(p.w, "record %s: %s turn %d\n", termtext.String(p.name), termtext.String(p.who[id]), d.Turn)
		case session.TypeTurnEnd:
			var d session.TurnEndData
			_ = events[i].Decode(&d)
			// The runtime wrote the reason and the child's header, and a
			// model named the call: none of them may drive the terminal.
			fmt.Fprintf(p.w, "record %s: %s turn %d ended %s\n", termtext.String(p.name), termtext.String(p.who[id]), d.Turn, termtext.String(d.Reason.Kind))
		}
	}
	return nil
}
