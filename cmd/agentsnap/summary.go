package main

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// turnSummary is one line of inspect's per-turn table.
type turnSummary struct {
	turn      int
	inherited bool
	steps     int
	calls     int // model calls (finish chunks)
	tools     []string
	end       string
	text      string
}

func (t turnSummary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "turn %-3d steps %-3d model calls %-3d", t.turn, t.steps, t.calls)
	if len(t.tools) > 0 {
		fmt.Fprintf(&b, " tools %s", strings.Join(t.tools, ","))
	}
	fmt.Fprintf(&b, "  ended %s", orDash(t.end))
	if t.text != "" {
		fmt.Fprintf(&b, "  %q", abbreviate(t.text, 60))
	}
	if t.inherited {
		b.WriteString("  [inherited]")
	}
	return b.String()
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// summarizeTurns walks a log once and summarises each turn.
func summarizeTurns(l *session.Log) []turnSummary {
	var out []turnSummary
	var cur *turnSummary
	for i := range l.Events {
		e := &l.Events[i]
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
		case session.TypeAssistantChunk:
			if cur != nil {
				if d, err := session.DecodeChunkData(e.Data); err == nil && d.Chunk.IsFinish() {
					cur.calls++
				}
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
