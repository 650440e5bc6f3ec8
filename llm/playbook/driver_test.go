package playbook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/session"
)

var rootRef = llm.SessionRef{ID: "s-root"}

func childRef(id, callID string) llm.SessionRef {
	return llm.SessionRef{ID: id, ParentID: "s-root", ParentCallID: callID, Mode: session.ModeSpawn, Depth: 1}
}

func request(ref llm.SessionRef, turn, step int) *llm.Request {
	return &llm.Request{Session: ref, Turn: turn, Step: step, Attempt: 1,
		Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("go")}}}}
}

func collect(s iter.Seq[llm.Chunk]) []llm.Chunk {
	var out []llm.Chunk
	for c := range s {
		out = append(out, c)
	}
	return out
}

// answer streams the call and assembles the answer's text.
func answer(d *playbook.Driver, req *llm.Request) string {
	GinkgoHelper()
	s, err := d.Stream(context.Background(), req)
	Expect(err).NotTo(HaveOccurred())
	var a llm.Assembler
	for c := range s {
		a.Add(c)
	}
	m := a.Message()
	return m.Text()
}

func driverFor(sessions map[string][]*playbook.Turn) *playbook.Driver {
	GinkgoHelper()
	pb := &playbook.Playbook{Sessions: sessions}
	Expect(pb.Validate()).To(Succeed())
	return playbook.NewDriver(pb, "pb.json")
}

func spawnCall(id string) playbook.ToolCall {
	return playbook.ToolCall{ID: id, Name: "subagent_spawn", Arguments: json.RawMessage(`{"prompt":"p"}`)}
}

var _ = Describe("Key", func() {
	DescribeTable("keys a session by its lineage",
		func(ref llm.SessionRef, want string) { Expect(playbook.Key(ref)).To(Equal(want)) },
		Entry("the root is root", rootRef, "root"),
		Entry("a child is its creating call's id", childRef("s-1", "call_a"), "call_a"),
		Entry("a grandchild too", llm.SessionRef{ID: "s-2", ParentID: "s-1", ParentCallID: "call_b", Mode: session.ModeFork, Depth: 2}, "call_b"),
	)
})

var _ = Describe("Driver", func() {
	It("serves the root's turns in order and each child's from its call id", func() {
		d := driverFor(map[string][]*playbook.Turn{
			"root":   {{ToolCalls: []playbook.ToolCall{spawnCall("call_a"), spawnCall("call_b")}}, {Text: "root done"}},
			"call_a": {{Text: "from a"}},
			"call_b": {{Text: "from b"}},
		})
		Expect(answer(d, request(rootRef, 1, 1))).To(Equal(""))
		Expect(answer(d, request(childRef("s-2", "call_b"), 1, 1))).To(Equal("from b"))
		Expect(answer(d, request(childRef("s-1", "call_a"), 1, 1))).To(Equal("from a"))
		Expect(answer(d, request(rootRef, 1, 2))).To(Equal("root done"))
		Expect(d.Unused()).To(Succeed())
	})

	It("streams a turn as a live model would: reasoning, text and compact tool calls, usage, finish", func() {
		d := driverFor(map[string][]*playbook.Turn{
			"root": {{
				Reasoning: "think",
				Text:      "Delegating.",
				ToolCalls: []playbook.ToolCall{{ID: "c1", Name: "add", Arguments: json.RawMessage(`{ "a": 1,  "b": 2 }`)}, {ID: "c2", Name: "now"}},
				Usage:     &playbook.Usage{InputTokens: 30, OutputTokens: 7},
			}},
			"c1": {{Text: "unused child"}},
		})
		s, err := d.Stream(context.Background(), request(rootRef, 1, 1))
		Expect(err).NotTo(HaveOccurred())
		var a llm.Assembler
		chunks := collect(s)
		for _, c := range chunks {
			a.Add(c)
		}
		Expect(a.Message().Content).To(Equal([]session.Part{
			{Type: session.PartReasoning, Text: "think"},
			session.TextPart("Delegating."),
			{Type: session.PartToolCall, ID: "c1", Name: "add", Arguments: `{"a":1,"b":2}`},
			{Type: session.PartToolCall, ID: "c2", Name: "now", Arguments: `{}`},
		}))
		Expect(a.Usage()).To(Equal(&session.Usage{InputTokens: 30, OutputTokens: 7}))
		Expect(chunks[len(chunks)-1]).To(Equal(session.Finish(session.FinishToolCalls)))
	})

	It("uses an authored finish", func() {
		d := driverFor(map[string][]*playbook.Turn{"root": {{Text: "cut", Finish: session.FinishMaxTokens}}})
		s, err := d.Stream(context.Background(), request(rootRef, 1, 1))
		Expect(err).NotTo(HaveOccurred())
		chunks := collect(s)
		Expect(chunks[len(chunks)-1]).To(Equal(session.Finish(session.FinishMaxTokens)))
	})

	It("serves concurrent children from their own keys", func() {
		const children = 8
		sessions := map[string][]*playbook.Turn{"root": {{Text: "root"}}}
		var calls []playbook.ToolCall
		for i := range children {
			key := fmt.Sprintf("call_%d", i)
			calls = append(calls, spawnCall(key))
			sessions[key] = []*playbook.Turn{{Text: key + " step 1"}, {Text: key + " step 2"}}
		}
		sessions["root"] = []*playbook.Turn{{ToolCalls: calls}}
		d := driverFor(sessions)
		Expect(answer(d, request(rootRef, 1, 1))).To(Equal(""))

		got := make([][]string, children)
		var wg sync.WaitGroup
		for i := range children {
			wg.Go(func() {
				defer GinkgoRecover()
				ref := childRef(fmt.Sprintf("s-%d", i), fmt.Sprintf("call_%d", i))
				for step := 1; step <= 2; step++ {
					got[i] = append(got[i], answer(d, request(ref, 1, step)))
				}
			})
		}
		wg.Wait()
		for i := range children {
			key := fmt.Sprintf("call_%d", i)
			Expect(got[i]).To(Equal([]string{key + " step 1", key + " step 2"}))
		}
		Expect(d.Unused()).To(Succeed())
	})

	It("fails a call past the session's last turn with ErrExhausted, naming the key and the counts", func() {
		d := driverFor(map[string][]*playbook.Turn{"root": {{Text: "only one"}}})
		answer(d, request(rootRef, 1, 1))
		_, err := d.Stream(context.Background(), request(rootRef, 1, 2))
		Expect(err).To(MatchError(playbook.ErrExhausted))
		Expect(err).To(MatchError("playbook: pb.json: turns exhausted: sessions.root asked for model turn 2 (turn 1 step 2), " +
			"the playbook has 1; add a turn to sessions.root"))

		_, err = d.Stream(context.Background(), request(rootRef, 2, 1))
		Expect(err).To(MatchError(ContainSubstring("asked for model turn 2 (turn 2 step 1)")), "a refused call consumes nothing")
	})

	It("fails a session the playbook has no entry for with ErrNoSession", func() {
		d := driverFor(map[string][]*playbook.Turn{"root": {{Text: "x"}}})
		_, err := d.Stream(context.Background(), request(childRef("s-7", "call_zz"), 1, 1))
		Expect(err).To(MatchError(playbook.ErrNoSession))
		Expect(err).To(MatchError("playbook: pb.json: no turns for this session: session s-7 (created by call call_zz) has no entry; " +
			"add sessions.call_zz to the playbook"))
	})

	It("names the root when an unvalidated playbook has no root entry", func() {
		d := playbook.NewDriver(&playbook.Playbook{}, "pb.json")
		_, err := d.Stream(context.Background(), request(rootRef, 1, 1))
		Expect(err).To(MatchError(playbook.ErrNoSession))
		Expect(err).To(MatchError("playbook: pb.json: no turns for this session: the root session has no entry; add sessions.root to the playbook"))
	})

	It("lists the turns no call consumed, per session, with ErrUnused", func() {
		d := driverFor(map[string][]*playbook.Turn{
			"root":   {{ToolCalls: []playbook.ToolCall{spawnCall("call_a"), spawnCall("call_b")}}, {Text: "end"}},
			"call_a": {{Text: "a"}},
			"call_b": {{Text: "b1"}, {Text: "b2"}},
		})
		answer(d, request(rootRef, 1, 1))
		answer(d, request(childRef("s-2", "call_b"), 1, 1))
		err := d.Unused()
		Expect(err).To(MatchError(playbook.ErrUnused))
		Expect(err).To(MatchError("playbook: pb.json: turns left unused: " +
			"sessions.call_a used 0 of 1 turns; sessions.call_b used 1 of 2 turns; sessions.root used 1 of 2 turns; " +
			"the agent took another path than the playbook plans, or the playbook has turns too many"))
	})

	It("streams an error turn's text without closing it, then an error finish", func() {
		d := driverFor(map[string][]*playbook.Turn{"root": {{
			Text:  "partial answer",
			Error: &playbook.Error{Code: "SERVER", Message: "upstream reset"},
		}}})
		s, err := d.Stream(context.Background(), request(rootRef, 1, 1))
		Expect(err).NotTo(HaveOccurred())
		Expect(collect(s)).To(Equal([]llm.Chunk{
			{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockText},
			{Type: session.ChunkTextDelta, Index: 0, Text: "partial"},
			{Type: session.ChunkTextDelta, Index: 0, Text: " answer"},
			session.ErrorFinish("SERVER", "upstream reset"),
		}))
	})

	It("blocks a hang turn after its text until the context is cancelled, then finishes aborted", func() {
		d := driverFor(map[string][]*playbook.Turn{"root": {{Text: "wait", Hang: true}}})
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		watched := &doneWatch{Context: ctx, asked: make(chan struct{})}
		s, err := d.Stream(watched, request(rootRef, 1, 1))
		Expect(err).NotTo(HaveOccurred())

		var mu sync.Mutex
		var got []llm.Chunk
		finished := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(finished)
			for c := range s {
				mu.Lock()
				got = append(got, c)
				mu.Unlock()
			}
		}()
		// Once the stream asks for Done it waits on it; everything it
		// yielded before is in got.
		Eventually(watched.asked).Should(BeClosed())
		mu.Lock()
		Expect(got).To(Equal([]llm.Chunk{
			{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockText},
			{Type: session.ChunkTextDelta, Index: 0, Text: "wait"},
		}))
		mu.Unlock()
		Expect(finished).NotTo(BeClosed())

		cancel()
		Eventually(finished).Should(BeClosed())
		Expect(got).To(HaveLen(3))
		Expect(got[2]).To(Equal(session.Finish(session.FinishAborted)))
	})

	It("estimates usage deterministically from the request and the answer when none is authored", func() {
		turns := func() map[string][]*playbook.Turn {
			return map[string][]*playbook.Turn{"root": {{Text: "four"}, {Text: "four"}}}
		}
		usage := func(d *playbook.Driver, req *llm.Request) *session.Usage {
			s, err := d.Stream(context.Background(), req)
			Expect(err).NotTo(HaveOccurred())
			var a llm.Assembler
			for c := range s {
				a.Add(c)
			}
			return a.Usage()
		}
		short := request(rootRef, 1, 1)
		long := request(rootRef, 1, 1)
		long.System = "You are a careful assistant with a much longer system prompt."

		first, second := driverFor(turns()), driverFor(turns())
		u := usage(first, short)
		Expect(usage(second, short)).To(Equal(u), "same request, same answer, same estimate")
		// {"role":"user","content":[{"type":"text","text":"go"}]} is 55
		// bytes, the answer's message 62: 4 characters a token, plus one.
		Expect(u).To(Equal(&session.Usage{InputTokens: 14, OutputTokens: 16}))
		Expect(usage(first, long).InputTokens).To(Equal((55+len(long.System))/4+1), "the system prompt counts as input")
	})
})

// doneWatch is a context that reports when its Done channel is first asked
// for, so a spec knows a stream has started waiting on it.
type doneWatch struct {
	context.Context
	once  sync.Once
	asked chan struct{}
}

func (w *doneWatch) Done() <-chan struct{} {
	w.once.Do(func() { close(w.asked) })
	return w.Context.Done()
}
