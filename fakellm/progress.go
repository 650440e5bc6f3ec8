package fakellm

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// What the virtual clock knows of the replay's progress. A timeout may fire
// only when the replay can make no progress without it: some call waits
// for its context to end (a recorded hang or abort), every call in flight
// does, and no recorded session still has something to do that the
// recording did before those waits ended. A session has something to do
// when its next recorded call is due, or when it answered its last call
// of a turn the recording ended otherwise than aborted and has not stored
// that turn/end yet (with a watched store).
//
// A call is due when what it followed in the recording has happened
// without any wait ending: the session's previous call has been answered,
// and the children that call created have made all their calls; a
// child's first call is due once its parent's creating call has been
// answered. A call after a wait — the next of its session, a parent's call
// after a child that hangs — is not due: it comes once the wait ends. Calls
// of a root turn before the root's current one (the agent skipped them)
// hold nothing, nor do sessions whose creating call is unknown (dsh logs,
// authored scripts without positions) or that failed a call.

// flight is one claimed call whose stream has not ended.
type flight struct {
	r       *replay
	index   int // the entry's index in r's script
	ctx     context.Context
	waiting bool // its chunks are out and it waits for ctx to end
	landed  bool
}

// land marks f's stream ended and lets the clock look again.
func (d *Driver) land(f *flight) {
	d.mu.Lock()
	if f.landed {
		d.mu.Unlock()
		return
	}
	f.landed = true
	r := f.r
	if i := slices.Index(r.flights, f); i >= 0 {
		r.flights = slices.Delete(r.flights, i, i+1)
	}
	d.mu.Unlock()
	d.changed()
}

// stalled reports whether the replay can make no progress without time
// passing. The caller holds d.mu.
func (d *Driver) stalled() bool {
	waiting := false
	for _, r := range d.order {
		for _, f := range r.flights {
			if !f.waiting || f.ctx.Err() != nil {
				return false // streaming, or about to end
			}
			waiting = true
		}
	}
	if !waiting {
		return false
	}
	for _, r := range d.order {
		if d.due(r) || d.finishing(r) {
			return false
		}
	}
	return true
}

// due reports whether r's next recorded call is due: see above.
func (d *Driver) due(r *replay) bool {
	i := r.cursor
	if len(r.flights) > 0 || r.diverged || i >= len(r.script.Entries) {
		return false
	}
	if rt := r.rootTurnOf(i); rt <= 0 || rt < d.rootTurn {
		return false
	}
	if i == 0 {
		return r.parent == nil || r.createdBy >= 0 && r.parent.answered(r.createdBy)
	}
	for _, c := range r.children {
		if c.createdBy == i-1 && !c.settled() {
			return false
		}
	}
	return true
}

// finishing reports whether r answered the last call of a turn that the
// recording ended otherwise than aborted, and has not stored its turn/end.
func (d *Driver) finishing(r *replay) bool {
	i := r.cursor
	if !d.watched || len(r.flights) > 0 || r.diverged || i == 0 || i < len(r.script.Entries) || r.live == "" {
		return false
	}
	if rt := r.rootTurnOf(i - 1); rt <= 0 || rt < d.rootTurn {
		return false
	}
	if r.turnEnds == nil {
		r.turnEnds = r.script.turnEnds
		if r.turnEnds == nil && r.log != nil {
			r.turnEnds = turnEnds(r.log)
		}
	}
	kind, ok := r.turnEnds[r.script.Entries[i-1].Turn]
	return ok && kind != session.TurnAborted && !d.ended[r.live]
}

// answered reports whether r's call i has been claimed and its stream ended.
func (r *replay) answered(i int) bool {
	if i >= r.cursor {
		return false
	}
	for _, f := range r.flights {
		if f.index == i {
			return false
		}
	}
	return true
}

// settled reports whether every recorded call of r has been answered.
func (r *replay) settled() bool { return r.cursor == len(r.script.Entries) && len(r.flights) == 0 }

// rootTurnOf is the root turn entry i of r belongs to: its own turn for
// the root, its creating call's root turn for a child; 0 when unknown.
func (r *replay) rootTurnOf(i int) int {
	if r.parent == nil {
		return r.script.Entries[i].Turn
	}
	return r.rootTurn
}

// place sets, once the tree is named, each child's creating call and root
// turn. d.order has parents before children.
func (d *Driver) place() {
	for _, r := range d.order {
		r.createdBy = -1
		if r.parent == nil || r.created == nil {
			continue
		}
		entries := r.parent.script.Entries
		i := r.created.entry
		// The step's tool calls come from its last attempt, which the
		// child follows.
		if at := entries[i]; at.Turn != 0 || at.Step != 0 {
			for i+1 < len(entries) && entries[i+1].Turn == at.Turn && entries[i+1].Step == at.Step {
				i++
			}
		}
		r.createdBy = i
		r.rootTurn = r.parent.rootTurnOf(i)
	}
}

// turnEnds returns how each turn of l's own events ended, by turn.
func turnEnds(l *session.Log) map[int]string {
	out := map[int]string{}
	n := l.Header.SeedLength
	if n < 0 || n > len(l.Events) {
		return out
	}
	for i := n; i < len(l.Events); i++ {
		e := &l.Events[i]
		var d session.TurnEndData
		if e.Type == session.TypeTurnEnd && e.Decode(&d) == nil {
			out[d.Turn] = d.Reason.Kind
		}
	}
	return out
}

// Watch returns store as the runtime should write through it in a replay:
// the virtual clock then also waits, before a timeout fires, for each
// session that ended its turn before the timeout in the recording to
// store that turn/end — a runtime may look at its context between its
// last answer and the end of its turn. Only drivers built by [New] know
// how each recorded turn ended; for others Watch changes nothing.
func (d *Driver) Watch(store persistence.Store) persistence.Store {
	d.mu.Lock()
	d.watched = true
	d.mu.Unlock()
	return &watchedStore{Store: store, d: d}
}

type watchedStore struct {
	persistence.Store
	d *Driver
}

func (w *watchedStore) Append(ctx context.Context, id string, events []session.Event) error {
	err := w.Store.Append(ctx, id, events)
	if err != nil || len(events) == 0 {
		return err
	}
	ended := lastOfTurn(events).Type == session.TypeTurnEnd
	w.d.mu.Lock()
	w.d.ended[id] = ended
	w.d.mu.Unlock()
	if ended {
		w.d.changed()
	}
	return nil
}

// lastOfTurn returns the last event of events that is not a record of a
// recorded tool, an MCP request or a token count, which a journal may
// write after a turn/end (or the last event, when all are).
func lastOfTurn(events []session.Event) *session.Event {
	for i := len(events) - 1; i > 0; i-- {
		if t := events[i].Type; t != session.TypeMCPCall && t != session.TypeCountTokens && t != session.TypeToolRecorded {
			return &events[i]
		}
	}
	return &events[0]
}

// Waiting describes what the replay waits for now, one line each, in
// lineage order: every call in flight (waiting for its context to end, and
// whether a pending timeout would end it; or still streaming), every
// recorded call that is due but was not made, every session that has not
// stored the end of a turn it finished, the pending timeouts and the calls
// that could not start. A harness shows it when a replay does not end
// before its deadline.
func (d *Driver) Waiting() []string {
	out, failed, first := d.waiting()
	if failed > 0 {
		// Said outside d.mu: the failure's message ends with the advice,
		// made as it is read (Driver.advised).
		out = append(out, fmt.Sprintf("%d model %s could not start; the first: %v", failed, english.Plural(failed, "call"), first))
	}
	return out
}

// waiting is Waiting's lines but the last, under d.mu, and the calls that
// could not start: how many, and the first's error.
func (d *Driver) waiting() (out []string, failed int, first error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.order {
		for _, f := range r.flights {
			e := &r.script.Entries[f.index]
			at := fmt.Sprintf("%s, call %d (%s)", r.describe(), r.callNumber(f.index), e.where())
			switch {
			case !f.waiting:
				out = append(out, at+": its answer is still streaming (a stream the runtime stopped reading holds the replay)")
				continue
			case f.ctx.Err() != nil:
				continue // its wait is over: it is ending
			}
			out = append(out, fmt.Sprintf("%s: %s, waiting for its context to end; %s", at, e.waitKind(), d.endedBy(f.ctx)))
		}
		switch {
		case d.due(r):
			e := &r.script.Entries[r.cursor]
			out = append(out, fmt.Sprintf("%s: its recorded call %d (%s) was never made", r.describe(), r.callNumber(r.cursor), e.where()))
		case d.finishing(r):
			out = append(out, fmt.Sprintf("%s: answered its last recorded call and never stored the end of its turn", r.describe()))
		}
	}
	if c := d.clock; c != nil && len(c.pending) > 0 {
		ts := slices.Clone(c.pending)
		slices.SortFunc(ts, func(a, b *vtimer) int {
			if a.before(b) {
				return -1
			}
			return 1
		})
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = fmt.Sprintf("%v (due at %v of replay time)", t.d, t.at)
		}
		out = append(out, fmt.Sprintf("pending %s: %s", english.Plural(len(ts), "timeout"), strings.Join(parts, ", ")))
	}
	if len(d.failures) > 0 {
		return out, len(d.failures), d.failures[0].err
	}
	return out, 0, nil
}

// endedBy says what would end a waiting call's context.
func (d *Driver) endedBy(ctx context.Context) string {
	if c, ok := ctx.Value(timerKey{}).(*timerCtx); ok && c.timer != nil && c.timer.index >= 0 {
		return fmt.Sprintf("the timeout of %v that ends it is pending, held until the calls recorded before it are answered", c.timer.d)
	}
	return "no pending timeout ends it, so only a cancel of the runtime's own would"
}

// waitKind names an entry that waits for its context.
func (e *Entry) waitKind() string {
	if e.Kind == KindHang {
		return "a hang"
	}
	return "a call recorded as aborted"
}

// Waits reports whether replaying e waits for the call's context to end:
// a hang, or a call recorded with an aborted finish (its context ended
// while it streamed, so its replay ends when the replayed call's context
// does).
func (e *Entry) Waits() bool {
	if e.Kind == KindHang {
		return true
	}
	n := len(e.Chunks)
	return e.Kind == KindChunks && n > 0 && e.Chunks[n-1].IsFinish() && e.Chunks[n-1].Reason != nil && e.Chunks[n-1].Reason.Kind == session.FinishAborted
}
