package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gstruct"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
)

// reference is the Config of agentsnap's reference runtime.
func reference() conformance.Config {
	return conformance.Config{
		New:   func() agentsnap.Runtime { return agent.Reference },
		Agent: json.RawMessage(`{"preset":"default","system":"You are a test agent.","tools":["subagent_spawn","subagent_fork","add"]}`),
		Tool:  conformance.ToolCall{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`)},
		Dir:   GinkgoT().TempDir(),
	}
}

// only skips every scenario but names.
func only(cfg conformance.Config, names ...string) conformance.Config {
	cfg.Skip = slices.DeleteFunc(conformance.Scenarios(), func(s string) bool { return slices.Contains(names, s) })
	return cfg
}

func rules(vs []conformance.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}

var _ = Describe("the conformance kit", func() {
	It("passes agentsnap's reference runtime on every scenario", func(ctx SpecContext) {
		res, err := conformance.Check(ctx, reference())
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Violations).To(BeEmpty(), func() string { return res.Err().Error() })
		Expect(res.Passed).To(Equal(conformance.Scenarios()))
		Expect(res.Skipped).To(BeEmpty())
		Expect(res.Err()).To(Succeed())
	})

	DescribeTable("names each broken rule, with a specific fix",
		func(ctx SpecContext, rule string, scenarios []string, breakIt func(*conformance.Config), problem, fix string) {
			cfg := only(reference(), scenarios...)
			breakIt(&cfg)
			res, err := conformance.Check(ctx, cfg)
			Expect(err).NotTo(HaveOccurred())
			Expect(rules(res.Violations)).To(ContainElement(rule), "violations: %v", res.Violations)
			Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
				"Scenario": BeElementOf(scenarios),
				"Rule":     Equal(rule),
				"Problem":  ContainSubstring(problem),
				"Fix":      ContainSubstring(fix),
			})), "violations: %v", res.Violations)
			Expect(res.Passed).NotTo(ContainElement(BeElementOf(scenarios)))
		},
		Entry("seq-dense: seqs restart at 0 in every append", "seq-dense", []string{"spawn"},
			newRuntime(broken(mutation{events: func(_ *created, evs []session.Event) {
				for i := range evs {
					evs[i].Seq = int64(i)
				}
			}})), "the store refused events", "no gap or repeat"),
		Entry("header-root: the root at delegationDepth 1", "header-root", []string{"spawn"},
			newRuntime(broken(mutation{header: func(h *session.Header) {
				if !isChild(h) {
					h.DelegationDepth = 1
				}
			}})), "delegationDepth 1", "journal.NewRoot"),
		Entry("header-child: children at delegationDepth 0", "header-child", []string{"spawn"},
			newRuntime(broken(mutation{header: func(h *session.Header) {
				if isChild(h) {
					h.DelegationDepth = 0
				}
			}})), "delegationDepth is 0; its parent root is at depth 0, so it must be 1", "plus one"),
		Entry("header-child: a parentCallId no call has", "header-child", []string{"spawn"},
			newRuntime(broken(mutation{header: func(h *session.Header) {
				if isChild(h) {
					h.ParentCallID = "call_1"
				}
			}})), `parentCallId "call_1" is no tool/call of its parent root (its calls: call_spawn)`, "the parent's tool/call"),
		Entry("header-child: mode spawn for a fork child", "header-child", []string{"fork-later-turn"},
			newRuntime(broken(mutation{header: func(h *session.Header) {
				if h.Mode == session.ModeFork {
					h.Mode = session.ModeSpawn
				}
			}})), `mode is "spawn", but it was created by subagent_fork`, `"fork" for one of subagent_fork`),
		Entry("header-child: no origin", "header-child", []string{"spawn"},
			newRuntime(broken(mutation{header: func(h *session.Header) { h.Origin = "" }})),
			`origin is ""`, `origin to "subagent"`),
		Entry("seed-stamped: seedLength 0 for a fork child", "seed-stamped", []string{"fork-later-turn"},
			newRuntime(broken(mutation{header: func(h *session.Header) { h.SeedLength = 0 }})),
			"seedLength is 0, but its parent root had completed 1 turn(s) in 12 events", "session.CompletedPrefix"),
		Entry("seed-stamped: the running turn inherited", "seed-stamped", []string{"fork-after-tool-call"},
			newRuntime(broken(mutation{header: func(h *session.Header) {
				if h.Mode == session.ModeFork {
					h.SeedLength -= 2
				}
			}})), "seedLength is 22", "session.CompletedPrefix"),
		Entry("seed-stamped: the seed dropped, seedLength kept", "seed-stamped", []string{"fork-later-turn"},
			newRuntime(broken(mutation{seed: func([]session.Event) []session.Event { return nil }})),
			"seedLength past the end of the seed", "session.CompletedPrefix"),
		Entry("seed-verbatim: the inherited prompt rewritten", "seed-verbatim", []string{"fork-later-turn"},
			newRuntime(broken(mutation{seed: func(seed []session.Event) []session.Event {
				for i := range seed {
					if seed[i].Type == session.TypeUserMessage {
						seed[i].Data = encode(session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("something else")}})
					}
				}
				return seed
			}})), "inherited event 1 is seq 1 user/message", "verbatim"),
		Entry("turn-numbering: a fork child's turns restart at 1", "turn-numbering", []string{"fork-later-turn"},
			newRuntime(broken(mutation{events: func(c *created, evs []session.Event) {
				if c.header.Mode != session.ModeFork {
					return
				}
				for i := range evs {
					setInt(&evs[i], "turn", func(n int) int { return n - c.inherited })
				}
			}})), "is numbered 1; it must continue after the 1 inherited turn(s): turn 2", "journal.LastTurn"),
		Entry("turn-shape: turn/start without a trigger", "turn-shape", []string{"spawn"},
			newRuntime(broken(mutation{events: each(session.TypeTurnStart, func(e *session.Event) {
				e.Data = encode(session.TurnStartData{Turn: decodeTo[session.TurnStartData](e).Turn})
			})})), "has no trigger", "turn/start {turn, trigger}"),
		Entry("turn-shape: no user/message", "turn-shape", []string{"spawn"},
			newRuntime(broken(mutation{drop: ofType(session.TypeUserMessage)})),
			"not by the user/message that starts the turn", "user/message"),
		Entry("step-numbering: steps counted from 2", "step-numbering", []string{"spawn"},
			newRuntime(broken(mutation{events: func(_ *created, evs []session.Event) {
				for i := range evs {
					setInt(&evs[i], "step", func(n int) int { return n + 1 })
				}
			}})), "step/start at seq 2 says step 2; want 1", "journal.Journal.StartStep"),
		Entry("step-numbering: no step/end", "step-numbering", []string{"spawn"},
			newRuntime(broken(mutation{drop: ofType(session.TypeStepEnd)})), "has no step/end", "step/end"),
		Entry("request-header: dropped", "request-header", []string{"spawn"},
			newRuntime(broken(mutation{drop: ofType(session.TypeRequestHeader)})),
			"has no request/header before it", "llm.RequestHeader"),
		Entry("request-header: a message count off by one", "request-header", []string{"fork-later-turn"},
			newRuntime(broken(mutation{events: each(session.TypeRequestHeader, func(e *session.Event) {
				setInt(e, "messageCount", func(n int) int { return n + 1 })
			})})), "says messageCount 2", "inherited turns included"),
		Entry("request-header: a messagesDigest of other messages", "request-header", []string{"model-error"},
			newRuntime(broken(mutation{events: each(session.TypeRequestHeader, func(e *session.Event) {
				if d := decodeTo[session.RequestHeaderData](e); d.Turn == 2 {
					d.MessagesDigest = "0123456789abcdef"
					e.Data = encode(d)
				}
			})})), "says messageCount 2, messagesDigest 0123456789ab…", "llm.RequestHeader"),
		Entry("request-header: turn/step/attempt of another call", "request-header", []string{"spawn"},
			newRuntime(broken(mutation{events: each(session.TypeRequestHeader, func(e *session.Event) {
				setInt(e, "attempt", func(n int) int { return n + 1 })
			})})), "says turn 1 step 1 attempt 2, but the chunks of its call", "attempt"),
		Entry("one-finish: the finish chunk dropped", "one-finish", []string{"spawn"},
			newRuntime(broken(mutation{drop: func(e *session.Event) bool {
				d, err := session.DecodeChunkData(e.Data)
				return e.Type == session.TypeAssistantChunk && err == nil && d.Chunk.IsFinish()
			}})), "and no finish chunk", "exactly one finish"),
		Entry("assistant-message: dropped", "assistant-message", []string{"spawn"},
			newRuntime(broken(mutation{drop: ofType(session.TypeAssistantMessage)})),
			`finished "tool-calls", but no assistant/message follows its chunks`, "llm.Assembler"),
		Entry("tool-results-in-order: two results swapped", "tool-results-in-order", []string{"concurrent"},
			newRuntime(broken(mutation{events: func(_ *created, evs []session.Event) {
				var at []int
				for i := range evs {
					if evs[i].Type == session.TypeToolResult {
						at = append(at, i)
					}
				}
				if len(at) >= 2 {
					evs[at[0]].Data, evs[at[1]].Data = evs[at[1]].Data, evs[at[0]].Data
				}
			}})), "answer [call_recall call_count call_colour], but the tool calls were [call_count call_recall call_colour]", "whatever order the tools finished in"),
		Entry("tool-results-in-order: a tool/call left out", "tool-results-in-order", []string{"fork-after-tool-call"},
			newRuntime(broken(mutation{drop: ofType(session.TypeToolCall)})),
			"asks for tool calls [call_tool_1], but the step records tool/call events []", "one tool/call per tool-call part"),
		Entry("recorded-tool: the record written after its call's result", "recorded-tool", []string{"fork-after-tool-call"},
			func(c *conformance.Config) {
				// lookup, the reference runtime's recorded tool (it finds no fact: the kit says so too).
				c.Agent = json.RawMessage(`{"preset":"default","system":"You are a test agent.","tools":["subagent_spawn","subagent_fork","lookup"]}`)
				c.Tool = conformance.ToolCall{Name: "lookup", Arguments: json.RawMessage(`{"key":"release"}`)}
				newRuntime(broken(mutation{events: func(_ *created, evs []session.Event) {
					for i := 0; i+1 < len(evs); i++ {
						if evs[i].Type == session.TypeToolRecorded && evs[i+1].Type == session.TypeToolResult {
							evs[i].Type, evs[i+1].Type = evs[i+1].Type, evs[i].Type
							evs[i].Data, evs[i+1].Data = evs[i+1].Data, evs[i].Data
						}
					}
				}}))(c)
			}, `for call "call_tool_1" comes after that call's tool/result`, "before that call's tool/result"),
		Entry("error-turn: a failed model call ends the turn completed", "error-turn", []string{"model-error"},
			newRuntime(broken(mutation{events: endKind(session.TurnError, session.TurnCompleted)})),
			`turn 1 ended "completed", but its model call failed`, `reason kind "error"`),
		Entry("retry: a retried call's turn ends error", "retry", []string{"model-retry"},
			newRuntime(broken(mutation{events: endKind(session.TurnCompleted, session.TurnError)})),
			`turn 1 ended "error", but its first model call failed and maxAttempts 2 allows a retry, which answers: it must end "completed"`, "attempt one more"),
		Entry("records: a runtime that never retries, told why", "records", []string{"model-retry"},
			newRuntime(wrapped(func(env *agentsnap.Env) {
				sc := *env.Scenario
				sc.MaxAttempts = 1
				env.Scenario = &sc
			})), "sessions.root used 1 of 2 turns", "so the runtime must retry the step's call once"),
		Entry("attempt-numbering: a retry that reuses attempt 1", "attempt-numbering", []string{"model-retry"},
			newRuntime(broken(mutation{events: func(_ *created, evs []session.Event) {
				for i := range evs {
					if evs[i].Type == session.TypeRequestHeader || evs[i].Type == session.TypeAssistantChunk {
						setInt(&evs[i], "attempt", func(int) int { return 1 })
					}
				}
			}})), "request/header at seq 7 says attempt 1, but it is the step's model call 2", "count per step, not reuse 1"),
		Entry("hang-turn: a timed-out turn ends error", "hang-turn", []string{"hang-timeout"},
			newRuntime(broken(mutation{events: endKind(session.TurnAborted, session.TurnError)})),
			`turn 1 ended "error", but its model call hung until the turn's timeout (turnTimeout 200ms)`, `reason kind "aborted"`),
		Entry("replay-matches: another trigger in replay", "replay-matches", []string{"spawn"},
			newRuntime(broken(mutation{replayOnly: true, events: each(session.TypeTurnStart, func(e *session.Event) {
				d := decodeTo[session.TurnStartData](e)
				d.Trigger = "replay"
				e.Data = encode(d)
			})})), "the replay differs from the recording", "env.Recording"),
		Entry("golden-matches: another answer in replay", "golden-matches", []string{"spawn"},
			newRuntime(broken(mutation{replayOnly: true, events: each(session.TypeAssistantMessage, func(e *session.Event) {
				d := decodeTo[session.AssistantMessageData](e)
				d.Message.Content = append(d.Message.Content, session.TextPart(" (replayed)"))
				e.Data = encode(d)
			})})), "the transcript differs from", "env.Recording"),
		Entry("deterministic: times from a clock kept between runs", "deterministic", []string{"concurrent"},
			newRuntime(sharedClock()), "19 of 19 replays wrote other bytes than replay 1", "env.Clock"),
		Entry("records: Run returns an error after a good run", "records", []string{"spawn"},
			newRuntime(failing), "flushing telemetry: connection refused", "return nil when the run completes"),
		Entry("records: model calls without their session's lineage", "records", []string{"spawn"},
			newRuntime(wrapped(func(env *agentsnap.Env) { env.Driver = anonymousDriver{env.Driver} })),
			"recording failed", "llm.Request.Session"),
		Entry("records: the tool is not offered", "records", []string{"fork-after-tool-call"},
			func(cfg *conformance.Config) {
				cfg.Agent = json.RawMessage(`{"preset":"default","system":"You are a test agent.","tools":["subagent_spawn","subagent_fork"]}`)
			}, `unknown tool "add"`, "make Config.Agent offer"),
	)

	It("reports every violation, not only the first, and Run fails listing each with its fix", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		cfg.New = broken(mutation{
			header: func(h *session.Header) {
				if !isChild(h) {
					h.DelegationDepth = 1
				}
			},
			drop: ofType(session.TypeStepEnd),
		})
		cfg.Dir = "" // a temporary folder, kept for a look because rules are broken
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, res.Dir)
		Expect(rules(res.Violations)).To(ContainElements("header-root", "step-numbering"))
		Expect(filepath.Join(res.Dir, "spawn", "spawn", "session.jsonl")).To(BeARegularFile())
		Expect(res.Err()).To(MatchError(ContainSubstring("the recordings are kept in " + res.Dir)))

		tb := &fakeTB{ctx: ctx}
		cfg.Dir = GinkgoT().TempDir()
		conformance.Run(tb, cfg)
		Expect(tb.errors).To(HaveLen(1))
		Expect(tb.errors[0]).To(HavePrefix("conformance: 3 violation(s) of the session-log contract in 1 of 1 scenario(s) (fork-first-turn, "))
		for _, v := range res.Violations {
			Expect(tb.errors[0]).To(ContainSubstring(v.String()))
			Expect(tb.errors[0]).To(ContainSubstring("fix: " + v.Fix))
		}
	})

	It("takes a call cut short without a finish for a user's cancel when its turn ends aborted", func(ctx SpecContext) {
		// A runtime that records a cancelled call's chunks but no aborted
		// finish (journal.Call.Abandon): the turn's aborted end explains it.
		cfg := only(reference(), "hang-timeout")
		aborted := func(e *session.Event) bool {
			d, err := session.DecodeChunkData(e.Data)
			return e.Type == session.TypeAssistantChunk && err == nil && d.Chunk.IsFinish() && d.Chunk.Reason.Kind == session.FinishAborted
		}
		cfg.New = broken(mutation{drop: aborted})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Violations).To(BeEmpty(), func() string { return res.Err().Error() })
		Expect(res.Passed).To(Equal([]string{"hang-timeout"}))

		root, err := session.ReadFile(filepath.Join(cfg.Dir, "errors", "hang-timeout", fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		cut := 0
		for i := range root.Events {
			e := &root.Events[i]
			Expect(aborted(e)).To(BeFalse(), "the spec's premise: no aborted finish recorded (seq %d)", e.Seq)
			if d, err := session.DecodeChunkData(e.Data); e.Type == session.TypeAssistantChunk && err == nil && d.Turn == 1 {
				cut++
			}
		}
		Expect(cut).To(BeNumerically(">", 0), "the spec's premise: the hanging call streamed chunks before the cancel")
	})

	It("removes its temporary folder when every rule holds", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		cfg.Dir = ""
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Passed).To(Equal([]string{"spawn"}))
		Expect(res.Dir).To(BeEmpty())
	})

	It("reports skipped scenarios and runs none of them", func(ctx SpecContext) {
		cfg := reference()
		cfg.Skip = []string{"hang-timeout", "concurrent"}
		// A runtime that fails every hang would show up if it were run.
		cfg.New = newHangBreaker()
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Skipped).To(Equal([]string{"concurrent", "hang-timeout"}))
		Expect(res.Passed).To(HaveLen(len(conformance.Scenarios()) - 2))
		Expect(res.Violations).To(BeEmpty())

		tb := &fakeTB{ctx: ctx}
		conformance.Run(tb, cfg)
		Expect(tb.errors).To(BeEmpty())
		Expect(tb.logs).To(ConsistOf(
			"conformance: scenario concurrent skipped (Config.Skip): its rules were not checked",
			"conformance: scenario hang-timeout skipped (Config.Skip): its rules were not checked",
		))
	})

	DescribeTable("refuses a bad Config, saying what to give",
		func(breakIt func(*conformance.Config), want string) {
			cfg := reference()
			breakIt(&cfg)
			_, err := conformance.Check(context.Background(), cfg)
			Expect(err).To(MatchError(ContainSubstring(want)))
			tb := &fakeTB{ctx: context.Background()}
			conformance.Run(tb, cfg)
			Expect(tb.fatal).To(ContainSubstring(want))
		},
		Entry("no runtime", func(c *conformance.Config) { c.New = nil }, "Config.New is nil"),
		Entry("no agent", func(c *conformance.Config) { c.Agent = nil }, `Config.Agent is ""`),
		Entry("no tool", func(c *conformance.Config) { c.Tool = conformance.ToolCall{} }, "Config.Tool.Name is empty"),
		Entry("tool arguments not an object", func(c *conformance.Config) { c.Tool.Arguments = json.RawMessage(`[1]`) }, "Config.Tool.Arguments is [1]"),
		Entry("an unknown scenario skipped", func(c *conformance.Config) { c.Skip = []string{"fork-later"} }, `Config.Skip names "fork-later", which is no scenario`),
	)

	It("stops with an error, not a verdict, when its context ends", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := conformance.Check(ctx, reference())
		Expect(err).To(MatchError(context.Canceled))
		Expect(res).To(BeNil())
	})

	It("needs no tool when fork-after-tool-call is skipped, and passes custom delegation arguments", func(ctx SpecContext) {
		cfg := only(reference(), "fork-first-turn", "fork-after-tool-call")
		cfg.Skip = append(cfg.Skip, "fork-after-tool-call")
		cfg.Tool = conformance.ToolCall{}
		var asked []string
		cfg.DelegateArgs = func(description, prompt string) json.RawMessage {
			asked = append(asked, description)
			return json.RawMessage(fmt.Sprintf(`{"description":%q,"prompt":%q}`, description, strings.ToUpper(prompt)))
		}
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Passed).To(Equal([]string{"fork-first-turn"}))
		Expect(asked).To(ContainElement("Hello"))
	})
})

// newRuntime makes a table entry's Config change: the runtime under test.
func newRuntime(f func() agentsnap.Runtime) func(*conformance.Config) {
	return func(cfg *conformance.Config) { cfg.New = f }
}

// newHangBreaker breaks the hang-timeout scenario only.
func newHangBreaker() func() agentsnap.Runtime {
	return broken(mutation{events: endKind(session.TurnAborted, session.TurnError)})
}

// fakeTB records what Run reports.
type fakeTB struct {
	testing.TB
	ctx          context.Context
	logs, errors []string
	fatal        string
}

func (f *fakeTB) Helper()                  {}
func (f *fakeTB) Context() context.Context { return f.ctx }
func (f *fakeTB) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Error(args ...any) { f.errors = append(f.errors, fmt.Sprint(args...)) }
func (f *fakeTB) Fatal(args ...any) { f.fatal = fmt.Sprint(args...) }
