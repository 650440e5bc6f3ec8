package fakellm

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/internal/wait"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

var (
	_ llm.ToolReplay  = (*Driver)(nil)
	_ llm.CountReplay = (*Driver)(nil)
)

// recordedTools is a session's replay state for its recorded tools, MCP
// requests and token counts (the script's Tools, MCP and Counts), under
// Driver.mu.
type recordedTools struct {
	toolAsked  map[string]int // per call id: calls made
	toolUsed   []bool         // per record of Script.Tools: served
	mcpKeys    []string       // per record of Script.MCP: its Key
	mcpAsked   map[string]int // per key: requests made
	mcpUsed    []bool
	counts     int            // token count requests made
	countAsked map[string]int // per digest: requests made
	countUsed  []bool         // per record of Script.Counts: served
}

func (r *replay) tools() *recordedTools {
	if r.rec == nil {
		t := &recordedTools{toolAsked: map[string]int{}, mcpAsked: map[string]int{},
			toolUsed: make([]bool, len(r.script.Tools)), mcpUsed: make([]bool, len(r.script.MCP)),
			mcpKeys: make([]string, len(r.script.MCP)), countAsked: map[string]int{}, countUsed: make([]bool, len(r.script.Counts))}
		for i := range r.script.MCP {
			t.mcpKeys[i] = r.script.MCP[i].Key()
		}
		r.rec = t
	}
	return r.rec
}

// bindTool binds the session of a recorded tool's or MCP request's call,
// keeping a failure to bind for Check. The caller holds d.mu.
func (d *Driver) bindTool(ref llm.SessionRef, turn, step int) (*replay, error) {
	req := &llm.Request{Session: ref, Turn: turn, Step: step}
	r, err := d.bind(req)
	if err != nil {
		d.toolFailures = append(d.toolFailures, d.unboundFailure(req, err))
	}
	return r, err
}

// ReplayTool implements [llm.ToolReplay]: it returns the result the
// recording stored for the live session's call — the n-th call with an id
// gets the n-th tool/recorded event of that id among the recorded
// session's own events (Script.Tools) — without running the tool. A call
// the recording has no result for fails with [ErrUnrecordedTool], one
// recorded with another tool name or other arguments with [ErrToolDrift];
// both are kept for [Driver.Check].
//
// Under a schedule the result comes back after the wait the schedule
// plans for the call (see [Schedule]), so the tools of one answer that run
// at once finish in the orders a schedule search varies, as a live tool's
// would: an agent that keeps their results in completion order fails the
// search instead of one run in many.
func (d *Driver) ReplayTool(ctx context.Context, ref llm.SessionRef, call session.ToolRecordedData) (session.ToolOutput, error) {
	out, lag, err := d.replayTool(ref, call)
	if err == nil && lag > 0 {
		// A cancelled wait still hands back the recorded result: the tool
		// had answered when it was recorded.
		_ = wait.Sleep(ctx, lag)
	}
	return out, err
}

// replayTool is ReplayTool's lookup, under d.mu, and the wait the schedule
// plans before its result.
func (d *Driver) replayTool(ref llm.SessionRef, call session.ToolRecordedData) (session.ToolOutput, time.Duration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.bindTool(ref, call.Turn, call.Step)
	if err != nil {
		return session.ToolOutput{}, 0, err
	}
	t := r.tools()
	n := t.toolAsked[call.CallID]
	var lag time.Duration
	if s := d.opts.schedule; s != nil {
		lag = s.plan.Plan(r.lineage+" tool "+call.CallID, n+1, 0).Total()
	}
	t.toolAsked[call.CallID]++
	at := -1
	for i := range r.script.Tools {
		if r.script.Tools[i].CallID == call.CallID {
			if n == 0 {
				at = i
				break
			}
			n--
		}
	}
	if at < 0 {
		err := d.advised(fmt.Errorf("fakellm: %w: %s: tool %s, call %s (turn %d step %d): the recording holds no result for it (recorded tool calls of this session: %s) — it was recorded before %s was a recorded tool, or the agent calls it where the recording did not; ",
			ErrUnrecordedTool, r.describe(), call.Name, call.CallID, call.Turn, call.Step, toolList(r.script.Tools), call.Name))
		d.toolFailures = append(d.toolFailures, failure{order: r.index, sub: call.CallID, err: err})
		return session.ToolOutput{}, 0, err
	}
	t.toolUsed[at] = true
	rec := &r.script.Tools[at]
	if rec.Name != call.Name || rec.Arguments != call.Arguments {
		err := d.advised(fmt.Errorf("fakellm: %w: %s: call %s (turn %d step %d): tool %s was called with %s, the recording's %s with %s — the agent calls the tool otherwise than it did while recording; ",
			ErrToolDrift, r.describe(), call.CallID, call.Turn, call.Step, call.Name, abbrev(call.Arguments), rec.Name, abbrev(rec.Arguments)))
		d.toolFailures = append(d.toolFailures, failure{order: r.index, sub: call.CallID, err: err})
		return session.ToolOutput{}, 0, err
	}
	return rec.Result, lag, nil
}

// ReplayMCP implements [llm.ToolReplay]: it answers the live session's
// MCP request with the recorded one of the same server, method and params
// (session.MCPCallData.Key) — the n-th such request gets the n-th record
// among the recorded session's own events (Script.MCP) — with no server.
// A request the recording lacks fails with [ErrUnrecordedTool], kept for
// [Driver.Check].
func (d *Driver) ReplayMCP(_ context.Context, ref llm.SessionRef, call session.MCPCallData) (session.MCPCallData, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.bindTool(ref, call.Turn, call.Step)
	if err != nil {
		return session.MCPCallData{}, err
	}
	t := r.tools()
	key := call.Key()
	n := t.mcpAsked[key]
	t.mcpAsked[key]++
	for i, k := range t.mcpKeys {
		if k != key {
			continue
		}
		if n > 0 {
			n--
			continue
		}
		t.mcpUsed[i] = true
		return r.script.MCP[i], nil
	}
	err = d.advised(fmt.Errorf("fakellm: %w: %s: MCP request %s to server %q with params %s: the recording holds no answer to it (recorded MCP requests of this session: %s) — the agent asks what it did not ask while recording; ",
		ErrUnrecordedTool, r.describe(), call.Method, call.Server, abbrev(call.Asked()), mcpList(r.script.MCP)))
	d.toolFailures = append(d.toolFailures, failure{order: r.index, sub: key, err: err})
	return session.MCPCallData{}, err
}

// ReplayCount implements [llm.CountReplay]: it answers the live session's
// token count request with the recorded count of the same request
// (session.CountTokensData.Digest) — the n-th request of a digest gets the
// n-th record of that digest among the recorded session's own events
// (Script.Counts) — with no model. A request no such record is left for
// (the agent counts another conversation, system prompt, tool set, model
// or settings than it did while recording) fails with [ErrCountDrift],
// kept for [Driver.Check].
func (d *Driver) ReplayCount(_ context.Context, ref llm.SessionRef, call session.CountTokensData) (session.CountTokensData, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.bindTool(ref, call.Turn, call.Step)
	if err != nil {
		return session.CountTokensData{}, err
	}
	t := r.tools()
	t.counts++
	n := t.countAsked[call.Digest]
	t.countAsked[call.Digest]++
	next := -1 // the first record not yet served: what the request most likely replaces
	for i := range r.script.Counts {
		if next < 0 && !t.countUsed[i] {
			next = i
		}
		if r.script.Counts[i].Digest != call.Digest {
			continue
		}
		if n > 0 {
			n--
			continue
		}
		t.countUsed[i] = true
		return r.script.Counts[i], nil
	}
	recorded := fmt.Sprintf("the recording holds no count of this session left to serve (%d recorded, all served)", len(r.script.Counts))
	if next >= 0 {
		rec := &r.script.Counts[next]
		recorded = fmt.Sprintf("the recording's next count of this session is of another request (turn %d step %d%s, digest %s, %s)", rec.Turn, rec.Step, modelOf(rec.Model), short(rec.Digest), rec.Answer())
	}
	at := "before its first turn"
	if call.Turn > 0 {
		at = fmt.Sprintf("with its log at turn %d step %d", call.Turn, call.Step)
	}
	err = d.advised(fmt.Errorf("fakellm: %w: %s: token count request %d of the session (%s%s, %s) counts a request with digest %s, and %s — the agent counts another conversation, system prompt, tool set, model or settings than it did while recording; ",
		ErrCountDrift, r.describe(), t.counts, call.API, modelOf(call.Model), at, short(call.Digest), recorded))
	d.toolFailures = append(d.toolFailures, failure{order: r.index, sub: "count/" + call.Digest, err: err})
	return session.CountTokensData{}, err
}

// modelOf names a count's model in a message: ", model M", or "" when
// the count names none.
func modelOf(model string) string {
	if model == "" {
		return ""
	}
	return ", model " + model
}

// short is a digest as messages name it.
func short(digest string) string { return digest[:min(12, len(digest))] }

// unserved lists the recorded tool results, MCP answers and token counts
// of a bound session that the replay never asked for.
func (r *replay) unserved() []string {
	var out []string
	t := r.tools()
	for i, used := range t.toolUsed {
		if !used {
			rec := &r.script.Tools[i]
			out = append(out, fmt.Sprintf("%s: live session %s never asked for the recorded result of tool %s, call %s (turn %d step %d) — the runtime ran the tool itself (hand the Env's ToolReplay on to journal.Config.ToolReplay) or no longer calls it; an agent under agentsnap serve asks for it with POST /agentsnap/tool (recordedTool in Node), and a call serve refused there (400, its message names why) is not served",
				r.describe(), r.live, rec.Name, rec.CallID, rec.Turn, rec.Step))
		}
	}
	for i, used := range t.mcpUsed {
		if !used {
			rec := &r.script.MCP[i]
			out = append(out, fmt.Sprintf("%s: live session %s never made the recorded MCP request %s to server %q with params %s (turn %d step %d)",
				r.describe(), r.live, rec.Method, rec.Server, abbrev(rec.Asked()), rec.Turn, rec.Step))
		}
	}
	for i, used := range t.countUsed {
		if !used {
			rec := &r.script.Counts[i]
			out = append(out, fmt.Sprintf("%s: live session %s never asked for the recorded token count of turn %d step %d (%s%s, digest %s, %s) — the agent no longer counts that request, or counts another one (a token count drift names it)",
				r.describe(), r.live, rec.Turn, rec.Step, rec.API, modelOf(rec.Model), short(rec.Digest), rec.Answer()))
		}
	}
	return out
}

func toolList(recs []session.ToolRecordedData) string {
	if len(recs) == 0 {
		return "none"
	}
	parts := make([]string, len(recs))
	for i := range recs {
		parts[i] = recs[i].Name + " " + recs[i].CallID
	}
	return strings.Join(parts, ", ")
}

func mcpList(recs []session.MCPCallData) string {
	if len(recs) == 0 {
		return "none"
	}
	parts := make([]string, len(recs))
	for i := range recs {
		parts[i] = fmt.Sprintf("%s %s %s", recs[i].Server, recs[i].Method, abbrev(recs[i].Asked()))
	}
	return strings.Join(parts, "; ")
}

// abbrev cuts s for a message.
func abbrev(s string) string {
	const n = 120
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
