package journal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Tool runs one call of a recorded tool: a tool whose answer may change
// from run to run (the clock, a ticket count, an HTTP API) or that must
// not run in CI. call names it: ID (the model's tool call id), Name, and
// Arguments as passed to the tool.
//
// While recording (Config.ToolReplay nil, or one that answers
// llm.ErrRunTool: an only-changed recording's session recorded anew) Tool
// calls run and returns its output; in a replay it returns the output recorded for this session's
// call with the same ID — the n-th call with an ID gets the n-th record
// of the session's own events, never one its fork seed inherited — and
// does not call run. A call never recorded, or recorded with another name
// or other arguments (drift), is an error naming the session and the
// call; the output is then that error as an error result, which the
// runtime may hand the model and go on (the replay's check reports the
// error anyway) or stop.
//
// Either way the output is recorded as a tool/recorded event, written by
// the ToolResult of the same call id, right before its tool/result (or,
// with no such ToolResult, by the step's EndStep). Tool may be called from
// the goroutines that run the step's tools while the session's goroutine
// waits for them; the events are written by the session's goroutine in the
// order of its ToolResult calls, so the log's bytes do not depend on which
// tool finished first.
func (j *Journal) Tool(ctx context.Context, call session.Part, run func(context.Context) session.ToolOutput) (session.ToolOutput, error) {
	out, _, err := j.tool(ctx, call, run)
	return out, err
}

// Replayed asks Config.ToolReplay for the recorded output of call as Tool
// does, for an agent that runs its tools elsewhere (package wire's
// Handler.ToolReplayed): served is true when it serves one — recorded,
// and returned with its error, as by Tool — and false when the tool is to
// run (no ToolReplay, or one that answers llm.ErrRunTool). Nothing is
// recorded then: Tool of the same call, once the tool ran, records its
// output without asking Config.ToolReplay again — within the call's step:
// a call whose output no Tool recorded by the step's end (EndStep,
// EndTurn) was abandoned, and a later call with its id is asked again.
func (j *Journal) Replayed(ctx context.Context, call session.Part) (out session.ToolOutput, served bool, err error) {
	return j.tool(ctx, call, nil)
}

// tool is Tool, and with run nil Replayed.
func (j *Journal) tool(ctx context.Context, call session.Part, run func(context.Context) session.ToolOutput) (session.ToolOutput, bool, error) {
	if call.ID == "" {
		return session.ToolOutput{}, false, fmt.Errorf("journal: session %s: Tool(%s) has no call id; pass the tool call the model made (its ID names the recorded result)", j.header.ID, call.Name)
	}
	// The session's goroutine waits for its tools: turn and step hold.
	d := session.ToolRecordedData{Turn: j.turn, Step: j.step, CallID: call.ID, Name: call.Name, Arguments: call.Arguments}
	j.mu.Lock()
	toRun := j.toRun[call.ID]
	j.mu.Unlock()
	var err error
	served := false
	if r := j.cfg.ToolReplay; r != nil && !toRun {
		d.Result, err = r.ReplayTool(ctx, j.Ref(), d)
		served = !errors.Is(err, llm.ErrRunTool)
	}
	switch {
	case !served && run == nil:
		j.mu.Lock()
		defer j.mu.Unlock()
		if j.toRun == nil {
			j.toRun = map[string]bool{}
		}
		j.toRun[call.ID] = true
		return session.ToolOutput{}, false, nil
	case !served:
		d.Result, err = run(ctx), nil
	case err != nil:
		d.Result = session.ToolOutput{Text: err.Error(), IsError: true}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.toRun, call.ID)
	if j.toolRecords == nil {
		j.toolRecords = map[string]session.ToolRecordedData{}
	}
	if _, dup := j.toolRecords[call.ID]; dup {
		return d.Result, true, fmt.Errorf("journal: session %s: Tool called twice for call %s (%s) before its ToolResult; call ids of one step are distinct", j.header.ID, call.ID, call.Name)
	}
	j.toolRecords[call.ID] = d
	return d.Result, true, err
}

// forgetToRun forgets the calls Replayed named to run, at the end of
// their step: one whose output no Tool recorded by then was abandoned —
// its context ended, or the agent failed before its result — and a later
// call with its id (ids numbered per answer) is another call, which asks
// Config.ToolReplay again rather than run because this one was to.
func (j *Journal) forgetToRun() {
	j.mu.Lock()
	clear(j.toRun)
	j.mu.Unlock()
}

// RecordMCP keeps one MCP request the session made and its answer, to be
// written as an mcp/call event (package wire's MCP support calls it). It
// is safe to call from any goroutine. The events are written by the
// session's goroutine before its next step/start, tool/result, step/end or
// turn/end — or by its next Flush outside a turn — in the order of their
// Key, so the log's bytes do not depend on which request finished first.
func (j *Journal) RecordMCP(d session.MCPCallData) {
	j.mu.Lock()
	j.mcpRecords = append(j.mcpRecords, d)
	j.mu.Unlock()
}

// RecordCount keeps one token count the session asked its model API for
// (package wire calls it), to be written as a count/tokens event where
// RecordMCP's are, after them, in the order of their Digest: the log's
// bytes do not depend on which of a session's requests finished first.
// It is safe to call from any goroutine.
func (j *Journal) RecordCount(d session.CountTokensData) {
	j.mu.Lock()
	j.counts = append(j.counts, d)
	j.mu.Unlock()
}

// writeRecords writes the pending mcp/call events, then the count/tokens
// events, then the tool/recorded event of callID ("" for none); all
// pending tool records too.
func (j *Journal) writeRecords(callID string, all bool) {
	j.mu.Lock()
	mcp := j.mcpRecords
	j.mcpRecords = nil
	counts := j.counts
	j.counts = nil
	var tools []session.ToolRecordedData
	if d, ok := j.toolRecords[callID]; ok && callID != "" {
		tools = append(tools, d)
		delete(j.toolRecords, callID)
	}
	if all {
		for _, d := range j.toolRecords {
			tools = append(tools, d)
		}
		clear(j.toolRecords)
	}
	j.mu.Unlock()
	slices.SortStableFunc(mcp, func(a, b session.MCPCallData) int { return cmp.Compare(a.Key(), b.Key()) })
	for _, d := range mcp {
		d.Turn, d.Step = j.turn, j.step
		j.emit(session.TypeMCPCall, d)
	}
	slices.SortStableFunc(counts, func(a, b session.CountTokensData) int { return cmp.Compare(a.Digest, b.Digest) })
	for _, d := range counts {
		d.Turn, d.Step = j.turn, j.step
		j.emit(session.TypeCountTokens, d)
	}
	slices.SortFunc(tools, func(a, b session.ToolRecordedData) int { return cmp.Compare(a.CallID, b.CallID) })
	for _, d := range tools {
		d.Turn, d.Step = j.turn, j.step
		j.emit(session.TypeToolRecorded, d)
	}
}
