package conformance_test

import (
	"encoding/json"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gstruct"

	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/session"
)

// Each rule broken in every direction a runtime can break it: a count too
// high as well as too low, a member missing as well as wrong, an event
// added as well as left out. Every entry must be named by its rule, with
// the problem it states and that rule's fix.
var _ = Describe("the conformance kit, a rule broken in every direction", func() {
	DescribeTable("names the rule",
		func(ctx SpecContext, rule, scenario string, m mutation, problem, fix string) {
			cfg := only(reference(), scenario)
			cfg.New = broken(m)
			res, err := conformance.Check(ctx, cfg)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
				"Scenario": Equal(scenario),
				"Rule":     Equal(rule),
				"Problem":  ContainSubstring(problem),
				"Fix":      ContainSubstring(fix),
			})), "violations: %v", res.Violations)
			Expect(res.Passed).To(BeEmpty())
		},

		// seed-stamped: too high as well as too low (conformance_test.go).
		Entry("seed-stamped: seedLength one past the seed handed over", "seed-stamped", "fork-later-turn",
			mutation{header: func(h *session.Header) {
				if h.Mode == session.ModeFork {
					h.SeedLength++
				}
			}}, "seedLength past the end of the seed", "session.CompletedPrefix"),
		Entry("seed-stamped: the running turn handed over too, closed with a turn/end", "seed-stamped", "fork-after-tool-call",
			mutation{seedFrom: withRunningTurn, restamp: true},
			"seedLength is 57, but its parent root had completed 1 turn(s) in 24 events (through the turn/end at seq 23) when it called subagent_fork (call call_fork at seq 55): it must be 24", "session.CompletedPrefix"),
		Entry("seed-stamped: a fork in the first turn handed the running turn", "seed-stamped", "fork-first-turn",
			mutation{seedFrom: withRunningTurn, restamp: true},
			"seedLength is 18, but its parent root had completed no turn when it called subagent_fork (call call_fork at seq 16), so it inherits nothing: it must be 0", "session.CompletedPrefix"),
		Entry("seed-stamped: a spawn child handed its parent's completed turns", "seed-stamped", "concurrent",
			mutation{seedFrom: spawnInherits, restamp: true},
			"a spawn child (call call_count) inherits nothing: it must be 0", "a spawn child gets no seed"),

		// seed-verbatim: any inherited event, the last one too.
		Entry("seed-verbatim: the last inherited event rewritten", "seed-verbatim", "fork-later-turn",
			mutation{seed: inherited(func(seed []session.Event) {
				last := &seed[len(seed)-1]
				d := decodeTo[session.TurnEndData](last)
				d.Reason.Message = "copied"
				last.Data = encode(d)
			})}, "inherited event 11 is seq 11 turn/end", "verbatim"),
		Entry("seed-verbatim: the first inherited event rewritten", "seed-verbatim", "fork-later-turn",
			mutation{seed: inherited(func(seed []session.Event) {
				seed[0].Data = encode(session.TurnStartData{Turn: 1, Trigger: "copied"})
			})}, "inherited event 0 is seq 0 turn/start", "verbatim"),
		Entry("seed-verbatim: inherited events re-encoded with their members in another order", "seed-verbatim", "fork-after-tool-call",
			mutation{seed: func(seed []session.Event) []session.Event {
				for i := range seed {
					var m map[string]any
					_ = json.Unmarshal(seed[i].Data, &m)
					seed[i].Data, _ = json.Marshal(m) // sorted member names
				}
				return seed
			}}, "inherited event 0 is seq 0 turn/start", "instead of rebuilding or re-encoding them"),
		Entry("seed-verbatim: an inherited event of another type", "seed-verbatim", "fork-later-turn",
			mutation{seed: inherited(func(seed []session.Event) { seed[3].Type = "x/request" })}, "inherited event 3 is seq 3 x/request", "same type, seq and data bytes"),

		// header-child: every member missing.
		Entry("header-child: no mode", "header-child", "spawn",
			mutation{header: func(h *session.Header) { h.Mode = "" }},
			`mode is "", but it was created by subagent_spawn (call call_spawn at seq`, `set mode to "spawn"`),
		Entry("header-child: a fork child without mode", "header-child", "fork-later-turn",
			mutation{header: func(h *session.Header) { h.Mode = "" }},
			`mode is "", but it was created by subagent_fork`, `"fork" for one of subagent_fork`),
		Entry("header-child: no parentCallId", "header-child", "spawn",
			mutation{header: func(h *session.Header) { h.ParentCallID = "" }},
			`parentCallId "" is no tool/call of its parent root (its calls: call_spawn)`, "the parent's tool/call"),
		Entry("header-child: no parentSession", "header-child", "spawn",
			mutation{header: func(h *session.Header) {
				if isChild(h) {
					h.ParentSession = ""
				}
			}}, "session root/call_spawn has no parentSession, but it is not the root (root was created first): its header has parentCallId \"call_spawn\", mode \"spawn\", origin \"subagent\", delegationDepth 1", "set parentSession"),
		Entry("header-child: a parentSession that names no session", "header-child", "spawn",
			mutation{header: func(h *session.Header) {
				if isChild(h) {
					h.ParentSession = "nobody"
				}
			}}, `session root/call_spawn: parentSession "nobody" names no other recorded session`, "set parentSession"),
		Entry("header-child: delegationDepth one too many", "header-child", "fork-of-fork",
			mutation{header: func(h *session.Header) {
				if h.DelegationDepth == 2 {
					h.DelegationDepth = 3
				}
			}}, "delegationDepth is 3; its parent root/call_child is at depth 1, so it must be 2", "plus one"),
		Entry("header-child: another origin", "header-child", "spawn",
			mutation{header: func(h *session.Header) {
				if isChild(h) {
					h.Origin = "user"
				}
			}}, `origin is "user"`, `origin to "subagent"`),

		// header-root: every child member present.
		Entry("header-root: a mode", "header-root", "spawn",
			mutation{header: func(h *session.Header) {
				if !isChild(h) {
					h.Mode = session.ModeSpawn
				}
			}}, `the root session's header has mode "spawn"`, "journal.NewRoot"),
		Entry("header-root: a parentCallId", "header-root", "spawn",
			mutation{header: func(h *session.Header) {
				if !isChild(h) {
					h.ParentCallID = "call_0"
				}
			}}, `the root session's header has parentCallId "call_0"`, "journal.NewRoot"),
		Entry("header-root: an origin", "header-root", "spawn",
			mutation{header: func(h *session.Header) {
				if !isChild(h) {
					h.Origin = session.OriginSubagent
				}
			}}, `the root session's header has origin "subagent"`, "journal.NewRoot"),

		// turn-numbering: every number a turn carries.
		Entry("turn-numbering: a turn/end naming the next turn", "turn-numbering", "spawn",
			mutation{events: each(session.TypeTurnEnd, func(e *session.Event) { setInt(e, "turn", func(n int) int { return n + 1 }) })},
			"session.jsonl (root): turn/end at seq 33 says turn 2; it ends turn 1", "journal.Journal.StartTurn"),
		Entry("turn-numbering: a turn/end naming the turn before", "turn-numbering", "fork-later-turn",
			mutation{events: each(session.TypeTurnEnd, func(e *session.Event) {
				setInt(e, "turn", func(n int) int { return n - 1 })
			})}, "says turn 1; it ends turn 2", "journal.Journal.StartTurn"),
		Entry("turn-numbering: a spawn child's turns from 2", "turn-numbering", "spawn",
			mutation{events: func(c *created, evs []session.Event) {
				if c.header.Mode == session.ModeSpawn {
					for i := range evs {
						setInt(&evs[i], "turn", func(n int) int { return n + 1 })
					}
				}
			}}, "turn/start at seq 0 says turn 2; want 1", "number turns from 1"),
		Entry("turn-numbering: a fork child's turn one past the next", "turn-numbering", "fork-later-turn",
			mutation{events: func(c *created, evs []session.Event) {
				if c.header.Mode == session.ModeFork {
					for i := range evs {
						setInt(&evs[i], "turn", func(n int) int { return n + 1 })
					}
				}
			}}, "turn/start at seq 12 says turn 3; want 2", "continue after the last inherited turn"),
		Entry("turn-numbering: the root's second turn numbered 3", "turn-numbering", "model-error",
			mutation{events: func(c *created, evs []session.Event) {
				for i := range evs {
					setInt(&evs[i], "turn", func(n int) int { return n + n/2 })
				}
			}}, "says turn 3; want 2 (turns are numbered consecutively)", "journal.Journal.StartTurn"),
		Entry("turn-numbering: a step/start of another turn", "turn-numbering", "spawn",
			mutation{events: each(session.TypeStepStart, func(e *session.Event) { setInt(e, "turn", func(n int) int { return n + 1 }) })},
			"step/start at seq 2 says turn 2 inside turn 1", "journal.Journal.StartTurn"),
		Entry("turn-numbering: a tool/call of another turn", "turn-numbering", "spawn",
			mutation{events: each(session.TypeToolCall, func(e *session.Event) { setInt(e, "turn", func(n int) int { return n + 1 }) })},
			"tool/call at seq", "journal.Journal.StartTurn"),

		// assistant-message: after a failed finish as well as missing.
		Entry("assistant-message: an assistant/message after an error finish", "assistant-message", "model-error",
			mutation{insert: messageAfter(session.FinishError)},
			`finished "error", yet the assistant/message at seq`, "after a call that finished error or aborted, write none"),
		Entry("assistant-message: an assistant/message after an aborted finish", "assistant-message", "hang-timeout",
			mutation{insert: messageAfter(session.FinishAborted)},
			`finished "aborted", yet the assistant/message at seq`, "after a call that finished error or aborted, write none"),
		Entry("assistant-message: two assistant/messages for one call", "assistant-message", "spawn",
			mutation{insert: func(_ *created, evs []session.Event) []session.Event {
				return repeatEach(evs, ofType(session.TypeAssistantMessage))
			}}, "assistant/message at seq", "right after its chunks"),

		// one-finish: chunks after the finish as well as none.
		Entry("one-finish: a text chunk after the finish", "one-finish", "spawn",
			mutation{insert: chunkAfterFinish(func(d session.ChunkData) session.ChunkData {
				d.Chunk = session.Chunk{Type: session.ChunkTextDelta, Text: "!"}
				return d
			})}, "has 1 finish chunk(s) and 1 chunk(s) after its first finish", "record no chunk after it"),
		Entry("one-finish: a second finish", "one-finish", "spawn",
			mutation{insert: chunkAfterFinish(func(d session.ChunkData) session.ChunkData { return d })},
			"has 2 finish chunk(s) and 1 chunk(s) after its first finish", "exactly one finish chunk"),

		// turn-shape: a replaced history in its place only.
		Entry("turn-shape: a history/replace inside a step", "turn-shape", "spawn",
			mutation{insert: after(session.TypeRequestHeader, historyReplace)},
			"history/replace at seq 4 inside the step; it comes before the step/start of the call whose request sends it", "ReplaceHistory"),
		Entry("turn-shape: a history/replace followed by no step/start", "turn-shape", "spawn",
			mutation{insert: after(session.TypeStepEnd, historyReplace)},
			"is followed by turn/end, not by the step/start of the call that sends it", "ReplaceHistory"),
		Entry("turn-shape: a user/message after the turn's steps began", "turn-shape", "spawn",
			mutation{insert: after(session.TypeStepEnd, func(e *session.Event) session.Event {
				return session.Event{Type: session.TypeUserMessage, Data: encode(session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("late")}})}
			})}, "after the turn's steps began; a turn's user messages come right after its turn/start", "the user/message(s) that start it"),
	)
})

// inherited rewrites every seed that is not empty with f.
func inherited(f func(seed []session.Event)) func([]session.Event) []session.Event {
	return func(seed []session.Event) []session.Event {
		if len(seed) > 0 {
			f(seed)
		}
		return seed
	}
}

// withRunningTurn hands a fork child every event its parent stored — the
// running turn up to the fork's tool/call — closed with a turn/end, as if
// the running turn had completed.
func withRunningTurn(h *session.Header, parent, seed []session.Event) []session.Event {
	if h.Mode != session.ModeFork {
		return seed
	}
	out := slices.Clone(parent)
	last := out[len(out)-1]
	t, _, _ := session.TurnStep(&last)
	return append(out, session.Event{Type: session.TypeTurnEnd, Seq: int64(len(out)), Time: last.Time,
		Data: encode(session.TurnEndData{Turn: t, Reason: session.EndReason{Kind: session.TurnCompleted}})})
}

// spawnInherits hands a spawn child what a fork child gets: its parent's
// completed turns.
func spawnInherits(h *session.Header, parent, seed []session.Event) []session.Event {
	if h.Mode != session.ModeSpawn {
		return seed
	}
	return slices.Clone(parent[:session.CompletedPrefix(parent)])
}

// messageAfter writes an assistant/message after every finish of kind.
func messageAfter(kind string) func(*created, []session.Event) []session.Event {
	return func(_ *created, evs []session.Event) []session.Event {
		var out []session.Event
		for _, e := range evs {
			out = append(out, e)
			d, err := session.DecodeChunkData(e.Data)
			if e.Type != session.TypeAssistantChunk || err != nil || !d.Chunk.IsFinish() || d.Chunk.Reason.Kind != kind {
				continue
			}
			out = append(out, session.Event{Type: session.TypeAssistantMessage, Time: e.Time, Data: encode(session.AssistantMessageData{
				Turn: d.Turn, Step: d.Step, Message: session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("Hel")}},
			})})
		}
		return out
	}
}

// chunkAfterFinish writes, after the first finish chunk of the session,
// the chunk f makes of it.
func chunkAfterFinish(f func(session.ChunkData) session.ChunkData) func(*created, []session.Event) []session.Event {
	done := map[*created]bool{}
	return func(c *created, evs []session.Event) []session.Event {
		var out []session.Event
		for _, e := range evs {
			out = append(out, e)
			d, err := session.DecodeChunkData(e.Data)
			if done[c] || e.Type != session.TypeAssistantChunk || err != nil || !d.Chunk.IsFinish() {
				continue
			}
			done[c] = true
			extra := f(d)
			out = append(out, session.Event{Type: session.TypeAssistantChunk, Time: e.Time, Data: encode(&extra)})
		}
		return out
	}
}

// repeatEach writes every event that match picks twice.
func repeatEach(evs []session.Event, match func(*session.Event) bool) []session.Event {
	var out []session.Event
	for _, e := range evs {
		out = append(out, e)
		if match(&e) {
			out = append(out, e)
		}
	}
	return out
}

// after adds the event make returns after every event of type typ.
func after(typ string, make func(e *session.Event) session.Event) func(*created, []session.Event) []session.Event {
	return func(_ *created, evs []session.Event) []session.Event {
		var out []session.Event
		for i := range evs {
			out = append(out, evs[i])
			if evs[i].Type == typ {
				out = append(out, make(&evs[i]))
			}
		}
		return out
	}
}

// historyReplace is a history/replace of e's turn that keeps everything.
func historyReplace(e *session.Event) session.Event {
	turn, _, _ := session.TurnStep(e)
	return session.Event{Type: session.TypeHistoryReplace, Data: encode(session.HistoryReplaceData{Turn: turn, Keep: 0, Messages: []session.Message{}})}
}
