package fakellm

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/session"
)

// grouper turns a session's own events into script entries: the
// assistant/chunk events of one (turn, step, attempt), closed by a finish —
// or, for a call the user cancelled, by its turn's aborted turn/end.
type grouper struct {
	name   string
	header *session.Header
	opts   DeriveOptions
	script Script

	open    bool // a call has chunks but no finish yet: undecided until its turn/end
	key     callKey
	cur     Entry           // the open call; its chunks gather in buf
	buf     []session.Chunk // reused: each entry gets one exact-size copy
	closed  bool            // the last call was closed by its finish
	lastKey callKey
	check   callCheck           // the open call's chunks against the contract
	lastAsk int64               // 1 + the seq of the last request/header not yet a call's, or 0
	calls   session.CallCounter // numbers the calls as the log's readers do (Entry.Call)
	asked   int64               // the open call's (Script.asked)

	// locate names the event of seq, "file:line" where the line is known.
	locate func(seq int64) string

	// pool, when reserved, holds the chunks of every entry: buf is the
	// room after them, and an entry's Chunks a capped window of it, so a
	// script costs one allocation for its chunks instead of one per entry.
	pool []session.Chunk
}

// reserve makes room in the pool for the chunks of events, when they are
// all in memory to be counted.
func (g *grouper) reserve(events []session.Event) {
	n := 0
	for i := range events {
		if events[i].Type == session.TypeAssistantChunk {
			n++
		}
	}
	if n > 0 {
		g.pool = make([]session.Chunk, 0, n)
		g.buf = g.pool
	}
}

func newGrouper(name string, h *session.Header, opts DeriveOptions) *grouper {
	return &grouper{name: name, header: h, opts: opts, script: Script{Name: name, Header: *h}}
}

func (g *grouper) add(e *session.Event) error {
	if e.Type != session.TypeAssistantChunk {
		g.calls.Add(e, nil) // a chunk is counted once decoded
	}
	switch e.Type {
	case session.TypeAssistantChunk:
		return g.chunk(e)
	case session.TypeRequestHeader:
		g.lastAsk = e.Seq + 1
	case session.TypeTurnEnd:
		g.noteTurnEnd(e)
		if g.open {
			return g.turnEnd(e)
		}
	case session.TypeToolRecorded:
		var d session.ToolRecordedData
		if err := e.Decode(&d); err != nil {
			return fmt.Errorf("fakellm: derive %s: session %s: tool/recorded seq %d: %w", g.locate(e.Seq), g.header.ID, e.Seq, err)
		}
		if missing := missingToolMember(&d, e.Data); missing != "" {
			// Replayed as it is, it would serve an empty result, or read as
			// drift of a tool named "".
			return fmt.Errorf("fakellm: derive %s: session %s: tool/recorded seq %d has no %q (it needs callId, name, arguments and result: CONTRACT.md 6a) — %s", g.locate(e.Seq), g.header.ID, e.Seq, missing, g.opts.fix("re-record the scenario; a hand-edited log must keep to the contract too"))
		}
		g.script.Tools = append(g.script.Tools, d)
	case session.TypeMCPCall:
		var d session.MCPCallData
		if err := e.Decode(&d); err != nil {
			return fmt.Errorf("fakellm: derive %s: session %s: mcp/call seq %d: %w", g.locate(e.Seq), g.header.ID, e.Seq, err)
		}
		g.script.MCP = append(g.script.MCP, d)
	case session.TypeCountTokens:
		var d session.CountTokensData
		if err := e.Decode(&d); err != nil {
			return fmt.Errorf("fakellm: derive %s: session %s: count/tokens seq %d: %w", g.locate(e.Seq), g.header.ID, e.Seq, err)
		}
		if d.Digest == "" {
			// Replayed as it is, every count request would read as drift.
			return fmt.Errorf("fakellm: derive %s: session %s: count/tokens seq %d has no \"digest\" (it needs api, digest and inputTokens: CONTRACT.md 6a) — re-record the scenario; a hand-edited log must keep to the contract too", g.locate(e.Seq), g.header.ID, e.Seq)
		}
		g.script.Counts = append(g.script.Counts, d)
	}
	return nil // other events, known or not, say nothing about the calls
}

// missingToolMember names the first member a tool/recorded event, d
// decoded from data, lacks among those a replay serves it by — callId
// (journal never writes an empty one), name, arguments (the call's are
// compared with them: without, every call reads as drift), result — or "".
func missingToolMember(d *session.ToolRecordedData, data json.RawMessage) string {
	if d.CallID == "" {
		return "callId"
	}
	var has struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Result    json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(data, &has) // it decoded into d
	absent := func(m json.RawMessage) bool { return len(m) == 0 || string(m) == "null" }
	switch {
	case absent(has.Name):
		return "name"
	case absent(has.Arguments):
		return "arguments"
	case absent(has.Result):
		return "result"
	}
	return ""
}

func (g *grouper) chunk(e *session.Event) error {
	d, err := session.DecodeChunkData(e.Data)
	if err != nil {
		return fmt.Errorf("fakellm: derive %s: session %s: assistant/chunk seq %d: %w", g.locate(e.Seq), g.header.ID, e.Seq, err)
	}
	k := callKey{d.Turn, d.Step, d.Attempt}
	call := g.calls.Add(e, &d)
	if g.open && k != g.key {
		if err := g.incomplete(""); err != nil {
			return err
		}
	}
	if !g.open {
		// Logs without attempt numbers (dsh) retry under the same key: a
		// chunk after a finish starts the next attempt. With numbers, the
		// same key after its finish is a broken log.
		if g.closed && k == g.lastKey && k.attempt != 0 {
			return contractError(g.locate(e.Seq), g.header.ID, e.Seq, k, errors.New("a chunk after the call's finish (every model call ends with exactly one finish)"), &g.opts)
		}
		g.open, g.key = true, k
		g.cur = Entry{Kind: KindChunks, Turn: k.turn, Step: k.step, Attempt: k.attempt, Call: call}
		g.asked, g.lastAsk = g.lastAsk, 0
		g.check.reset()
	}
	g.buf = append(g.buf, d.Chunk)
	if err := g.check.add(&g.buf[len(g.buf)-1]); err != nil {
		return contractError(g.locate(e.Seq), g.header.ID, e.Seq, k, err, &g.opts)
	}
	if d.Chunk.IsFinish() {
		g.close()
	}
	return nil
}

// close ends the open call at its finish (or its turn's cancel).
func (g *grouper) close() {
	if n := len(g.buf); g.pool != nil && cap(g.buf) == cap(g.pool)-len(g.pool) {
		// buf is still the pool's room (growing past it would have
		// moved buf, with a larger cap): the entry keeps its window.
		g.cur.Chunks = g.buf[:n:n]
		g.pool = g.pool[:len(g.pool)+n]
		g.buf = g.pool[len(g.pool):]
	} else {
		g.cur.Chunks = slices.Clone(g.buf)
		g.buf = g.buf[:0]
	}
	entries := g.script.Entries
	if g.opts.Attempts == AttemptsActedOn && g.closed && len(entries) > 0 &&
		g.lastKey.turn == g.key.turn && g.lastKey.step == g.key.step {
		// A later attempt of the same step: only the last one is acted on.
		entries[len(entries)-1] = g.cur
		g.script.asked[len(entries)-1] = g.asked
	} else {
		g.script.Entries = append(entries, g.cur)
		g.script.asked = append(g.script.asked, g.asked)
	}
	g.open, g.closed, g.lastKey, g.cur = false, true, g.key, Entry{}
}

// turnEnd decides the open call at a turn/end. The user's cancel ends the
// call's own turn "aborted" and leaves the chunks streamed so far: a hang
// entry replays them and waits for the turn's context to be cancelled, as
// the recording was. Any other end — "interrupted" is what crash repair
// writes — leaves an incomplete call.
func (g *grouper) turnEnd(e *session.Event) error {
	var d session.TurnEndData
	if err := e.Decode(&d); err != nil {
		return g.incomplete(fmt.Sprintf(", and turn/end seq %d cannot be read (%v)", e.Seq, err))
	}
	if d.Turn != g.key.turn {
		return g.incomplete(fmt.Sprintf(", and the next turn/end (seq %d) ends turn %d, not its own", e.Seq, d.Turn))
	}
	if d.Reason.Kind != session.TurnAborted {
		return g.incomplete(fmt.Sprintf(", and its turn ended %q (turn/end seq %d), not %q by a cancel", d.Reason.Kind, e.Seq, session.TurnAborted))
	}
	g.cur.Kind = KindHang
	g.close()
	return nil
}

// incomplete handles the open call when it can no longer get its finish;
// why, if not empty, says what decided it (after "and no finish").
func (g *grouper) incomplete(why string) error {
	k := g.key
	if !g.opts.DropIncomplete {
		fix := " (a crash while recording?) — re-record the scenario, or derive with DropIncomplete (agentsnap derive --drop-incomplete) to drop it"
		if g.opts.advice != "" { // no crash: the runtime under test wrote it so moments before
			fix = " — " + g.opts.advice
		}
		return fmt.Errorf("fakellm: derive %s: %w: session %s, turn %d step %d%s: %d %s and no finish%s%s",
			g.name, ErrIncompleteCall, g.header.ID, k.turn, k.step, attemptSuffix(k.attempt), len(g.buf), english.Plural(len(g.buf), "chunk"), why,
			fix)
	}
	g.script.Dropped = append(g.script.Dropped, Dropped{Turn: k.turn, Step: k.step, Attempt: k.attempt, Chunks: len(g.buf)})
	g.open, g.cur, g.buf = false, Entry{}, g.buf[:0]
	return nil
}

// noteTurnEnd keeps how a turn ended (derivation sees the session's own
// events only, unless IgnoreSeed). A turn/end that cannot be read is an
// error only where it decides a call (turnEnd).
func (g *grouper) noteTurnEnd(e *session.Event) {
	var d session.TurnEndData
	if e.Decode(&d) != nil {
		return
	}
	if g.script.turnEnds == nil {
		g.script.turnEnds = map[int]string{}
	}
	g.script.turnEnds[d.Turn] = d.Reason.Kind
}

func (g *grouper) end() (*Script, error) {
	if g.open {
		if err := g.incomplete(""); err != nil {
			return nil, err
		}
	}
	s := g.script
	return &s, nil
}

func attemptSuffix(a int) string {
	if a == 0 {
		return ""
	}
	return fmt.Sprintf(" attempt %d", a)
}
