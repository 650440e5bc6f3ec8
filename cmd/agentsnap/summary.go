package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/internal/columns"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/termtext"
	"github.com/agentsnap/agentsnap/session"
)

// turnSummary is one line of inspect's per-turn table.
type turnSummary struct {
	turn      int
	inherited bool
	steps     int
	calls     int // model calls (session.ModelCalls)
	tools     []string
	end       string
	text      string
}

// turnTable lays out the turns of one session as aligned lines: the
// fixed columns first, numbers right-aligned and widths computed over all
// its turns, then the tools and the text, whose widths vary most.
func turnTable(turns []turnSummary) []string {
	var wTurn, wSteps, wCalls int
	for _, t := range turns {
		wTurn = max(wTurn, digits(t.turn))
		wSteps = max(wSteps, digits(t.steps))
		wCalls = max(wCalls, digits(t.calls))
	}
	rows := make([][]string, len(turns))
	for i, t := range turns {
		end := "ended " + t.end
		if t.end == "" {
			end = "not ended (no turn/end)"
		}
		r := []string{
			fmt.Sprintf("turn %*d", wTurn, t.turn),
			padLeft(english.Count(t.steps, "step"), wSteps-digits(t.steps)),
			padLeft(english.Count(t.calls, "model call"), wCalls-digits(t.calls)),
			end,
			"",
			"",
			"",
		}
		if t.inherited {
			r[4] = "[inherited]"
		}
		if len(t.tools) > 0 {
			r[5] = "tools " + strings.Join(t.tools, ",")
		}
		if t.text != "" {
			r[6] = fmt.Sprintf("%q", abbreviate(t.text, 60))
		}
		rows[i] = r
	}
	return columns.Align(rows)
}

func digits(n int) int { return len(strconv.Itoa(n)) }

func padLeft(s string, n int) string { return strings.Repeat(" ", max(n, 0)) + s }

// abbreviate returns s with its runs of white space as one space, cut to
// its first n runes (termtext.Cut).
func abbreviate(s string, n int) string {
	return termtext.Cut(strings.Join(strings.Fields(s), " "), n)
}

// summarizeTurns walks a log once and summarises each turn. A turn's model
// calls are those session.ModelCalls finds between its turn/start and the
// next: the inherited turns' in the seed, the rest in the session's own
// events, so the own turns add up to the session's calls.
func summarizeTurns(l *session.Log) []turnSummary {
	var out []turnSummary
	var cur *turnSummary
	opened := callStarts(l)
	for i := range l.Events {
		e := &l.Events[i]
		if opened[i] && cur != nil {
			cur.calls++
		}
		switch e.Type {
		case session.TypeTurnStart:
			var d session.TurnStartData
			_ = e.Decode(&d)
			out = append(out, turnSummary{turn: d.Turn, inherited: i < l.Header.SeedLength})
			cur = &out[len(out)-1]
		case session.TypeStepStart:
			if cur != nil {
				cur.steps++
			}
		case session.TypeToolCall:
			var d session.ToolCallData
			if cur != nil && e.Decode(&d) == nil {
				cur.tools = append(cur.tools, d.Name)
			}
		case session.TypeAssistantMessage:
			var d session.AssistantMessageData
			if cur != nil && e.Decode(&d) == nil {
				if t := d.Message.Text(); t != "" {
					cur.text = t
				}
			}
		case session.TypeTurnEnd:
			var d session.TurnEndData
			if cur != nil && e.Decode(&d) == nil {
				cur.end = d.Reason.Kind
			}
		}
	}
	return out
}

// callStarts marks the events of l that open a model call: the seed's
// calls (the parent's, shown on the inherited turns) and the session's own.
func callStarts(l *session.Log) map[int]bool {
	seed := l.Seed()
	opened := map[int]bool{}
	for _, c := range session.ModelCalls(seed) {
		opened[c.At] = true
	}
	for _, c := range l.ModelCalls() {
		opened[len(seed)+c.At] = true
	}
	return opened
}

// modelCalls counts the model calls of every session of logs, each its own
// (session.ModelCalls, counted without building them): the number
// inspect, check and report show.
func modelCalls(logs []*session.Log) int {
	n := 0
	for _, l := range logs {
		n += l.CountModelCalls()
	}
	return n
}
