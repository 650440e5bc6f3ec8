package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

var (
	ctx       = context.Background()
	epoch     = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	completed = session.EndReason{Kind: session.TurnCompleted}
	tools     = []llm.ToolSpec{{Name: "subagent_fork", Description: "Fork.", Parameters: json.RawMessage(`{"type":"object"}`)}}
)

func config(store persistence.Store) journal.Config {
	return journal.Config{Store: store, Clock: func() time.Time { return epoch }, Cwd: "/w", Preset: "p"}
}

func newRoot(store persistence.Store) *journal.Journal {
	j, err := journal.NewRoot(ctx, config(store))
	Expect(err).NotTo(HaveOccurred())
	return j
}

// answer streams a text answer; delegation streams one fork call per id.
func answer(text string) []llm.Chunk {
	m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}
	return llm.StreamMessage(m, &session.Usage{InputTokens: 3, OutputTokens: 2}, "")
}

func delegation(callIDs ...string) []llm.Chunk {
	m := llm.Message{Role: session.RoleAssistant}
	for _, id := range callIDs {
		m.Content = append(m.Content, session.Part{Type: session.PartToolCall, ID: id, Name: "subagent_fork", Arguments: `{"prompt":"go on"}`})
	}
	return llm.StreamMessage(m, nil, "")
}

// call makes a model call of j's current step that streams chunks, after
// checking that its request/header digests what the call sends as
// llm.RequestHeader does from scratch — the journal keeps the digests as
// the conversation grows instead.
func call(j *journal.Journal, chunks []llm.Chunk) (session.Message, *session.FinishReason) {
	req := &llm.Request{Model: "m", System: "Be brief.", Tools: tools}
	c, err := j.BeginCall(ctx, "prov", req)
	Expect(err).NotTo(HaveOccurred())
	events := logOf(j)
	var h session.RequestHeaderData
	Expect(events[len(events)-1].Decode(&h)).To(Succeed())
	Expect(h).To(Equal(llm.RequestHeader("prov", req)), "request/header of %s turn %d step %d", j.ID(), req.Turn, req.Step)
	Expect(req.Messages).To(HaveLen(len(j.Messages())))
	for _, ch := range chunks {
		c.Chunk(ch)
	}
	return c.End()
}

// turn runs a completed turn: a step whose call delegates to callIDs (when
// any), their results in call order, then a step that answers.
func turn(j *journal.Journal, prompt string, callIDs ...string) {
	j.StartTurn(journal.TriggerUser, journal.UserText(prompt))
	if len(callIDs) > 0 {
		j.StartStep()
		msg, _ := call(j, delegation(callIDs...))
		Expect(j.ToolCalls(ctx, msg.ToolCalls())).To(Succeed())
		for _, c := range msg.ToolCalls() {
			j.ToolResult(c.ID, c.Name, "result of "+c.ID, false)
		}
		Expect(j.EndStep(ctx)).To(Succeed())
	}
	j.StartStep()
	call(j, answer("done: "+prompt))
	Expect(j.EndStep(ctx)).To(Succeed())
	Expect(j.EndTurn(ctx, completed)).To(Succeed())
}

// delegating starts a turn whose first step asks for callIDs, as a parent
// is when it creates the children.
func delegating(j *journal.Journal, prompt string, callIDs ...string) {
	j.StartTurn(journal.TriggerUser, journal.UserText(prompt))
	j.StartStep()
	msg, _ := call(j, delegation(callIDs...))
	Expect(j.ToolCalls(ctx, msg.ToolCalls())).To(Succeed())
}

// sameList expects two lists alike, an empty one however it is made.
func sameList[T any](got, want []T, what string) {
	Expect(got).To(HaveLen(len(want)), what)
	if len(want) > 0 {
		Expect(got).To(Equal(want), what)
	}
}

// expectFork creates parent's fork child for callID and checks it against
// what the parent's log says it inherits: the completed-turn prefix
// (session.CompletedPrefix), stamped as seedLength, stored as the child's
// seed, with the conversation those events hold. The parent's clock reads
// at.
func expectFork(store persistence.Store, parent *journal.Journal, callID string, at time.Time) *journal.Journal {
	events := logOf(parent)
	seed := events[:session.CompletedPrefix(events)]
	child, err := parent.Child(ctx, callID, session.ModeFork)
	Expect(err).NotTo(HaveOccurred())
	h := child.Header()
	Expect(h).To(Equal(session.Header{
		ID: parent.ID() + "/" + callID, CreatedAt: at.UnixMilli(), Cwd: "/w", ParentSession: parent.ID(),
		SeedLength: len(seed), Origin: session.OriginSubagent, DelegationDepth: parent.Header().DelegationDepth + 1,
		AgentPreset: "p", ParentCallID: callID, Mode: session.ModeFork,
	}))
	sameList(logOf(child), seed, "the child's log")
	sameList(child.Messages(), journal.Conversation(seed), "the child's conversation")
	Expect(child.Turn()).To(Equal(journal.LastTurn(seed)))
	stored, err := store.Load(ctx, child.ID())
	Expect(err).NotTo(HaveOccurred())
	Expect(stored.Header).To(Equal(h))
	sameList(stored.Events, seed, "the stored seed")
	return child
}

var _ = Describe("Journal.Child", func() {
	var store *memory.Store
	BeforeEach(func() {
		store = memory.New()
		DeferCleanup(store.Close)
	})

	It("gives a fork child its parent's completed turns and stamps seedLength from them, wherever the parent is", func() {
		parent := newRoot(store)
		delegating(parent, "one", "call_a")
		Expect(expectFork(store, parent, "call_a", epoch).Header().SeedLength).To(Equal(0), "nothing completed on the first turn")
		parent.ToolResult("call_a", "subagent_fork", "ok", false)
		Expect(parent.EndTurn(ctx, completed)).To(Succeed())

		turn(parent, "two", "call_b", "call_c")
		delegating(parent, "three", "call_d")
		child := expectFork(store, parent, "call_d", epoch)
		Expect(child.Header().SeedLength).To(BeNumerically(">", 20))
		Expect(child.Turn()).To(Equal(2))

		// The child's own turn continues the numbering and sends the
		// inherited conversation (call checks its request/header).
		Expect(child.StartTurn(journal.TriggerSubagent, journal.UserText("go on"))).To(Equal(3))
		child.StartStep()
		call(child, answer("forked"))
		Expect(child.EndTurn(ctx, completed)).To(Succeed())
		stored, err := store.Load(ctx, child.ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Events).To(Equal(logOf(child)))

		// Between turns, and a level down, the prefix is the whole log.
		parent.ToolResult("call_d", "subagent_fork", "ok", false)
		Expect(parent.EndTurn(ctx, completed)).To(Succeed())
		expectFork(store, parent, "call_e", epoch)
		expectFork(store, child, "call_f", epoch)
	})

	It("starts a spawn child empty, with the lineage of the call that creates it", func() {
		parent := newRoot(store)
		turn(parent, "one")
		delegating(parent, "two", "call_s")
		child, err := parent.Child(ctx, "call_s", session.ModeSpawn)
		Expect(err).NotTo(HaveOccurred())
		Expect(child.Header()).To(Equal(session.Header{
			ID: "root/call_s", CreatedAt: epoch.UnixMilli(), Cwd: "/w", ParentSession: "root",
			Origin: session.OriginSubagent, DelegationDepth: 1, AgentPreset: "p", ParentCallID: "call_s", Mode: session.ModeSpawn,
		}))
		Expect(child.Ref()).To(Equal(llm.SessionRef{ID: "root/call_s", ParentID: "root", ParentCallID: "call_s", Mode: session.ModeSpawn, Depth: 1}))
		Expect(logOf(child)).To(BeEmpty())
		Expect(child.Messages()).To(BeEmpty())
		Expect(child.Turn()).To(Equal(0))
	})

	It("creates the children of one step from several goroutines at once", func() {
		parent := newRoot(store)
		turn(parent, "one", "call_x")
		ids := []string{"call_0", "call_1", "call_2", "call_3", "call_4", "call_5"}
		delegating(parent, "two", ids...)
		events := logOf(parent)
		seed := events[:session.CompletedPrefix(events)]
		children := make([]*journal.Journal, len(ids))
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Go(func() {
				defer GinkgoRecover()
				mode := session.ModeFork
				if i%2 == 1 {
					mode = session.ModeSpawn
				}
				c, err := parent.Child(ctx, id, mode)
				Expect(err).NotTo(HaveOccurred())
				children[i] = c
			})
		}
		wg.Wait()
		for i, c := range children {
			Expect(c.ID()).To(Equal("root/" + ids[i]))
			if i%2 == 0 {
				Expect(c.Header().SeedLength).To(Equal(len(seed)))
				Expect(logOf(c)).To(Equal(seed))
			} else {
				Expect(logOf(c)).To(BeEmpty())
			}
		}
	})

	It("names the child of a call id reused in a later step apart", func() {
		parent := newRoot(store)
		turn(parent, "one", "call_0")
		first, err := parent.Child(ctx, "call_0", session.ModeSpawn)
		Expect(err).NotTo(HaveOccurred())
		delegating(parent, "two", "call_0")
		second, err := parent.Child(ctx, "call_0", session.ModeSpawn)
		Expect(err).NotTo(HaveOccurred())
		Expect([]string{first.ID(), second.ID()}).To(Equal([]string{"root/call_0", "root/call_0#2"}))
	})

	DescribeTable("refuses a child it cannot name or create",
		func(callID string, mode session.Mode, message string) {
			_, err := newRoot(store).Child(ctx, callID, mode)
			Expect(err).To(MatchError(ContainSubstring(message)))
		},
		Entry("no call id", "", session.ModeSpawn, "journal: session root: a child needs the id of the tool call that creates it"),
		Entry("another mode", "call_1", session.Mode("clone"), `journal: session root: child mode "clone"; want "spawn" or "fork"`),
	)
})

var _ = Describe("Journal.Resume", func() {
	var store *memory.Store
	BeforeEach(func() {
		store = memory.New()
		DeferCleanup(store.Close)
	})

	It("continues a stored fork child with its header as stored and its conversation rebuilt", func() {
		parent := newRoot(store)
		turn(parent, "one", "call_a")
		delegating(parent, "two", "call_f")
		child := expectFork(store, parent, "call_f", epoch)
		turn(child, "sub", "call_g")

		later := config(store)
		later.Clock = func() time.Time { return epoch.Add(time.Hour) }
		r, err := journal.Resume(ctx, later, child.ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Header()).To(Equal(child.Header()), "seedLength and createdAt as stored")
		Expect(logOf(r)).To(Equal(logOf(child)))
		Expect(r.Messages()).To(Equal(child.Messages()))
		Expect(r.Turn()).To(Equal(child.Turn()))

		// Its next turn follows the last; a fork from it inherits its
		// completed turns, not the one under way.
		delegating(r, "more", "call_h")
		Expect(r.Turn()).To(Equal(child.Turn() + 1))
		expectFork(store, r, "call_h", epoch.Add(time.Hour))
	})

	It("refuses a log that ends inside a turn, saying how to get one that does not", func() {
		j := newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("one"))
		Expect(j.Flush(ctx)).To(Succeed())
		_, err := journal.Resume(ctx, config(store), j.ID())
		Expect(err).To(MatchError("journal: resume root: the log ends inside turn 1 (no turn/end); load it through a store that repairs interrupted turns"))
	})
})

// chunksOf returns the chunks of the assistant/chunk events of events.
func chunksOf(events []session.Event) []llm.Chunk {
	var out []llm.Chunk
	for _, e := range events {
		if e.Type == session.TypeAssistantChunk {
			d, err := session.DecodeChunkData(e.Data)
			Expect(err).NotTo(HaveOccurred())
			out = append(out, d.Chunk)
		}
	}
	return out
}

func count(events []session.Event, typ string) int {
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

var _ = Describe("a model call", func() {
	var (
		store *memory.Store
		j     *journal.Journal
		c     *journal.Call
	)
	BeforeEach(func() {
		store = memory.New()
		DeferCleanup(store.Close)
		j = newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("hi"))
		j.StartStep()
		var err error
		c, err = j.BeginCall(ctx, "prov", &llm.Request{Model: "m"})
		Expect(err).NotTo(HaveOccurred())
	})

	It("records exactly one finish: chunks after it are dropped", func() {
		given := answer("Hello.")
		for _, ch := range given {
			c.Chunk(ch)
		}
		c.Chunk(llm.Chunk{Type: session.ChunkTextDelta, Text: "late"})
		c.Chunk(session.ErrorFinish("LATE", "after the finish"))
		msg, finish := c.End()
		Expect(finish.Kind).To(Equal(session.FinishStop))
		Expect(msg.Text()).To(Equal("Hello."))
		Expect(chunksOf(logOf(j))).To(Equal(given))
		Expect(count(logOf(j), session.TypeAssistantMessage)).To(Equal(1))
		Expect(j.Messages()).To(HaveLen(2))
	})

	It("records its answer once, however often End is called", func() {
		for _, ch := range answer("Hello.") {
			c.Chunk(ch)
		}
		first, _ := c.End()
		again, finish := c.End()
		Expect(again).To(Equal(first))
		Expect(finish.Kind).To(Equal(session.FinishStop))
		Expect(count(logOf(j), session.TypeAssistantMessage)).To(Equal(1))
		Expect(j.Messages()).To(HaveLen(2))
	})

	It("closes a stream that gave no finish with an error finish, and keeps its answer out of the conversation", func() {
		given := answer("Hel")
		given = given[:len(given)-1]
		for _, ch := range given {
			c.Chunk(ch)
		}
		_, finish := c.End()
		Expect(finish.Kind).To(Equal(session.FinishError))
		Expect(finish.Failure.Code).To(Equal(llm.CodeNoFinish))
		Expect(chunksOf(logOf(j))).To(Equal(append(given, session.ErrorFinish(llm.CodeNoFinish, "the model stream ended without a finish chunk"))))
		Expect(count(logOf(j), session.TypeAssistantMessage)).To(Equal(0))
		Expect(j.Messages()).To(HaveLen(1))
	})

	It("records no finish for an abandoned call, which ends aborted", func() {
		given := answer("Hello there.")[:2]
		for _, ch := range given {
			c.Chunk(ch)
		}
		c.Abandon()
		c.Chunk(session.Finish(session.FinishStop))
		_, finish := c.End()
		Expect(finish.Kind).To(Equal(session.FinishAborted))
		Expect(chunksOf(logOf(j))).To(Equal(given))
		Expect(count(logOf(j), session.TypeAssistantMessage)).To(Equal(0))
		Expect(j.EndTurn(ctx, session.EndReason{Kind: session.TurnAborted})).To(Succeed())
	})

	It("stores a long stream as written, whatever blocks the journal keeps it in", func() {
		given := []llm.Chunk{{Type: session.ChunkBlockStart, BlockType: session.BlockText}}
		var text strings.Builder
		for i := range 3000 {
			piece := fmt.Sprintf("word%d ", i)
			text.WriteString(piece)
			given = append(given, llm.Chunk{Type: session.ChunkTextDelta, Text: piece})
		}
		given = append(given, llm.Chunk{Type: session.ChunkBlockEnd, Block: &session.Block{Type: session.BlockText, Text: text.String()}},
			session.Finish(session.FinishStop))
		for _, ch := range given {
			c.Chunk(ch)
		}
		msg, _ := c.End()
		Expect(msg.Text()).To(Equal(text.String()))
		Expect(j.EndStep(ctx)).To(Succeed())
		Expect(j.EndTurn(ctx, completed)).To(Succeed())

		stored, err := store.Load(ctx, j.ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Events).To(Equal(logOf(j)))
		Expect(chunksOf(stored.Events)).To(Equal(given))
		for i, e := range stored.Events {
			Expect(e.Seq).To(Equal(int64(i)))
		}
	})
})

// logOf returns j's log so far (Journal.Events).
func logOf(j *journal.Journal) []session.Event {
	GinkgoHelper()
	events, err := j.Events(ctx)
	Expect(err).NotTo(HaveOccurred())
	return events
}
