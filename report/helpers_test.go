package report_test

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/report"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// builder writes a session log in memory, with dense seqs as a runtime
// would, and counts the messages a request would carry.
type builder struct {
	log        *session.Log
	turn, step int
	messages   int
}

func newLog(h session.Header) *builder {
	h.CreatedAt = 1_700_000_000_000
	return &builder{log: &session.Log{Header: h}}
}

func (b *builder) event(typ string, v any) *builder {
	GinkgoHelper()
	e, err := session.NewEvent(typ, v)
	Expect(err).NotTo(HaveOccurred())
	e.Seq = int64(len(b.log.Events))
	e.Time = 1_700_000_000_000 + e.Seq
	b.log.Events = append(b.log.Events, e)
	return b
}

// seed copies the parent's first n events, as a fork backend does, and
// stamps seedLength.
func (b *builder) seed(parent *builder, n int) *builder {
	b.log.Events = slices.Clone(parent.log.Events[:n])
	b.log.Header.SeedLength = n
	b.messages = 0
	for _, e := range b.log.Events {
		switch e.Type {
		case session.TypeUserMessage, session.TypeAssistantMessage, session.TypeToolResult:
			b.messages++
		}
	}
	return b
}

func (b *builder) turnStart(turn int, trigger string) *builder {
	b.turn, b.step = turn, 0
	return b.event(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: trigger})
}

func (b *builder) user(text string) *builder {
	b.messages++
	return b.event(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(text)}})
}

func (b *builder) turnEnd() *builder {
	return b.event(session.TypeTurnEnd, session.TurnEndData{Turn: b.turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
}

// modelCall is the start of a step: the request, the usage and the finish
// of one model call, then the assistant message.
func (b *builder) modelCall(finish string, parts ...session.Part) *builder {
	b.step++
	u := &session.Usage{InputTokens: 40 + 25*b.messages, OutputTokens: 12}
	b.event(session.TypeStepStart, session.StepData{Turn: b.turn, Step: b.step})
	b.event(session.TypeRequestHeader, session.RequestHeaderData{Turn: b.turn, Step: b.step, Attempt: 1,
		Provider: "playbook", Model: "playbook", SystemDigest: "5b30ab123c3e2ec8", ToolCount: 3, MessageCount: b.messages})
	b.event(session.TypeAssistantChunk, &session.ChunkData{Turn: b.turn, Step: b.step, Attempt: 1,
		Chunk: session.Chunk{Type: session.ChunkUsage, Usage: u}})
	b.event(session.TypeAssistantChunk, &session.ChunkData{Turn: b.turn, Step: b.step, Attempt: 1, Chunk: session.Finish(finish)})
	b.messages++
	return b.event(session.TypeAssistantMessage, session.AssistantMessageData{Turn: b.turn, Step: b.step,
		Message: session.Message{Role: session.RoleAssistant, Content: parts}, Usage: u})
}

// answer is a step in which the model replies with text.
func (b *builder) answer(text string) *builder {
	return b.modelCall(session.FinishStop, session.TextPart(text)).
		event(session.TypeStepEnd, session.StepData{Turn: b.turn, Step: b.step})
}

// tool is a step in which the model calls one tool and gets its result.
func (b *builder) tool(id, name, args, result string) *builder {
	b.modelCall(session.FinishToolCalls, session.Part{Type: session.PartToolCall, ID: id, Name: name, Arguments: args})
	b.event(session.TypeToolCall, session.ToolCallData{Turn: b.turn, Step: b.step, CallID: id, Name: name, Arguments: args})
	b.messages++
	b.event(session.TypeToolResult, session.ToolResultData{Turn: b.turn, Step: b.step, Message: session.Message{
		Role: session.RoleTool,
		Content: []session.Part{{Type: session.PartToolResult, ToolCallID: id,
			Content: []session.Part{session.TextPart(result)}}},
	}})
	return b.event(session.TypeStepEnd, session.StepData{Turn: b.turn, Step: b.step})
}

// variant changes the agent tree of spawnThenFork, as a regression would.
type variant struct {
	insertStep bool   // the root reads a file before it forks
	answer     string // the root's final answer; "" is the recorded one
	seedLength int    // the fork's seedLength; 0 is the completed prefix
	noFork     bool   // the root never forks
	userText   string // the root's first prompt; "" is the recorded one
}

// spawnThenFork is the tree of fixtures/mixed/spawn-then-fork: the root
// answers turn 1, then in turn 2 spawns a child, forks a child that
// inherits turn 1, and answers.
func spawnThenFork(v variant) []*session.Log {
	GinkgoHelper()
	first := "The secret word is SAFFRON. Reply with the single word OK."
	if v.userText != "" {
		first = v.userText
	}
	root := newLog(session.Header{ID: "root", Cwd: "{{cwd}}", AgentPreset: "default"})
	root.turnStart(1, "user").user(first).answer("OK").turnEnd()
	prefix := session.CompletedPrefix(root.log.Events)
	root.turnStart(2, "user").
		user("First spawn a fresh child that replies ALPHA; then fork a child to recall the secret word; then reply DONE with both answers.").
		tool("call_alpha", "subagent_spawn", `{"description":"Say ALPHA","prompt":"Reply with exactly the word ALPHA."}`, "ALPHA")
	if v.insertStep {
		root.tool("call_notes", "read_file", `{"path":"notes.md"}`, "# Notes\nThe secret word is SAFFRON.")
	}
	logs := []*session.Log{root.log}
	spawn := newLog(session.Header{ID: "root/call_alpha", ParentSession: "root", ParentCallID: "call_alpha",
		Mode: session.ModeSpawn, Origin: session.OriginSubagent, DelegationDepth: 1, AgentPreset: "default"})
	spawn.turnStart(1, "subagent").user("Reply with exactly the word ALPHA.").answer("ALPHA").turnEnd()
	logs = append(logs, spawn.log)
	answer := "DONE: ALPHA, SAFFRON"
	if !v.noFork {
		root.tool("call_recall", "subagent_fork", `{"description":"Recall the secret word","prompt":"What is the secret word? Reply with that word only."}`, "SAFFRON")
		fork := newLog(session.Header{ID: "root/call_recall", ParentSession: "root", ParentCallID: "call_recall",
			Mode: session.ModeFork, Origin: session.OriginSubagent, DelegationDepth: 1, AgentPreset: "default"})
		fork.seed(root, prefix).turnStart(2, "subagent").
			user("What is the secret word? Reply with that word only.").answer("SAFFRON").turnEnd()
		if v.seedLength != 0 {
			fork.log.Header.SeedLength = v.seedLength
		}
		logs = append(logs, fork.log)
	} else {
		answer = "DONE: ALPHA"
	}
	if v.answer != "" {
		answer = v.answer
	}
	root.answer(answer).turnEnd()
	return logs
}

// failing is a failing scenario: the replay reads a file before it forks.
func failing() report.Scenario {
	GinkgoHelper()
	recorded, replayed := spawnThenFork(variant{}), spawnThenFork(variant{insertStep: true})
	golden, err := transcript.Render(recorded)
	Expect(err).NotTo(HaveOccurred())
	replay, err := transcript.Render(replayed)
	Expect(err).NotTo(HaveOccurred())
	return report.Scenario{
		Name: "mixed/spawn-then-fork", Dir: "fixtures/mixed/spawn-then-fork", Status: report.StatusFail,
		Recorded: recorded, Replayed: replayed, GoldenTranscript: golden, ReplayTranscript: replay,
		Problems: []string{
			"request drift: root (root session), model call 4 (turn 2 step 3): the conversation changed (4 messages recorded, 6 now)",
			"fakellm: session root: asked for call 6, recorded 5",
		},
		FixCommand: "agentsnap record fixtures/mixed/spawn-then-fork",
	}
}

// passing is a passing scenario of the same tree.
func passing() report.Scenario {
	logs := spawnThenFork(variant{})
	return report.Scenario{Name: "mixed/spawn-then-fork-ok", Dir: "fixtures/mixed/ok", Status: report.StatusPass,
		Recorded: logs, Replayed: logs}
}
