package loop_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a spawn child", func() {
	It("starts with an empty log and carries its lineage in its header", func() {
		d := newScripted().
			calls("root", spawn("call_1", "Count the files.")).
			say("root/call_1", "There are 3 files.").
			say("root", "The child says 3.")
		r := newRig(d)
		s, _, err := r.rt.Run(ctx, "Delegate the count.")
		Expect(err).NotTo(HaveOccurred())

		child := r.log("root/call_1")
		Expect(child.Header).To(Equal(session.Header{
			ID: "root/call_1", CreatedAt: epoch.UnixMilli(), ParentSession: "root",
			Origin: "subagent", DelegationDepth: 1, ParentCallID: "call_1", Mode: session.ModeSpawn,
		}))
		Expect(child.Header.SeedLength).To(BeZero())
		Expect(compact(child.Events)).To(Equal(turnOf(oneStep)))
		Expect(child.Events[0].Seq).To(BeZero())
		start := decode[session.TurnStartData](child.Events[0])
		Expect(start).To(Equal(session.TurnStartData{Turn: 1, Trigger: "subagent"}))
		prompt := decode[session.Message](child.Events[1])
		Expect(prompt.Text()).To(Equal("Count the files."))
		Expect(d.requestsOf("root/call_1")[0].Messages).To(HaveLen(1), "a spawn child sees only its prompt")

		root := r.log(s.ID())
		Expect(compact(root.Events)).To(Equal(turnOf(toolStep(1), oneStep)))
		res := decode[session.ToolResultData](eventsOf(root, session.TypeToolResult)[0])
		Expect(res.Message.Content[0].ToolCallID).To(Equal("call_1"))
		Expect(res.Message.Content[0].Content[0].Text).To(Equal("There are 3 files."))
		Expect(res.Message.Content[0].IsError).To(BeFalse())
	})
})

var _ = Describe("a fork child", func() {
	forkScenario := func() (*rig, *session.Log, *session.Log) {
		d := newScripted().
			say("root", "OK").
			calls("root", fork("call_f", "What is the codeword?")).
			say("root/call_f", "MARMALADE").
			say("root", "PARENT_DONE")
		r := newRig(d)
		s, _, err := r.rt.Run(ctx, "The codeword is MARMALADE. Reply OK.", "Fork and ask for the codeword.")
		Expect(err).NotTo(HaveOccurred())
		return r, r.log(s.ID()), r.log("root/call_f")
	}

	It("starts with its parent's completed turns and stamps seedLength at their end", func() {
		_, root, child := forkScenario()
		turn1 := session.CompletedPrefix(root.Events[:len(turnOf(oneStep))+7]) // through turn 1's turn/end
		Expect(root.Events[turn1-1].Type).To(Equal(session.TypeTurnEnd))
		Expect(child.Header.SeedLength).To(Equal(turn1))
		Expect(child.Header.Mode).To(Equal(session.ModeFork))
		Expect(child.Header.ParentCallID).To(Equal("call_f"))
		Expect(child.Header.DelegationDepth).To(Equal(1))
		Expect(session.Encode(&session.Header{}, child.Seed())).To(Equal(session.Encode(&session.Header{}, root.Events[:turn1])),
			"the seed is the parent's prefix, byte for byte")
		own := child.Own()
		Expect(own[0].Seq).To(Equal(int64(turn1)))
		Expect(compact(own)).To(Equal(turnOf(oneStep)))
		Expect(decode[session.TurnStartData](own[0]).Turn).To(Equal(2), "the child's own turn follows the inherited one")
	})

	It("holds the parent's model answer only in the inherited prefix", func() {
		_, _, child := forkScenario()
		texts := func(evs []session.Event) []string {
			var out []string
			for _, e := range evs {
				if e.Type == session.TypeAssistantChunk {
					d, _ := session.DecodeChunkData(e.Data)
					if d.Chunk.Type == session.ChunkTextDelta {
						out = append(out, d.Chunk.Text)
					}
				}
			}
			return out
		}
		Expect(strings.Join(texts(child.Seed()), "")).To(Equal("OK"))
		Expect(strings.Join(texts(child.Own()), "")).To(Equal("MARMALADE"))
	})

	It("sends the model the inherited conversation and then its prompt", func() {
		r, _, _ := forkScenario()
		req := r.driver.requestsOf("root/call_f")[0]
		var got []string
		for _, m := range req.Messages {
			got = append(got, m.Role+": "+m.Text())
		}
		Expect(got).To(Equal([]string{"user: The codeword is MARMALADE. Reply OK.", "assistant: OK", "user: What is the codeword?"}))
		Expect(req.Session).To(Equal(llm.SessionRef{ID: "root/call_f", ParentID: "root", ParentCallID: "call_f", Mode: session.ModeFork, Depth: 1}))
		Expect(req.Turn).To(Equal(2))
	})

	It("inherits only completed turns when it forks mid-turn after a tool call", func() {
		look := &loop.FuncTool{Name: "look", Description: "look", Parameters: `{"type":"object"}`,
			Fn: func(_ ctxT, _ rawT) (string, error) { return "a lamp", nil }}
		d := newScripted().
			say("root", "noted").
			calls("root", call("call_l", "look", `{}`)).
			calls("root", fork("call_f", "What did you see?")).
			say("root/call_f", "a lamp").
			say("root", "done")
		r := newRig(d, func(c *loop.Config) { c.Tools = loop.NewRegistry(look, loop.ForkTool()) })
		s, _, err := r.rt.Run(ctx, "remember", "look, then fork")
		Expect(err).NotTo(HaveOccurred())
		root, child := r.log(s.ID()), r.log("root/call_f")
		Expect(compact(child.Seed())).To(Equal(turnOf(oneStep)), "turn 2's look call is not inherited")
		Expect(child.Header.SeedLength).To(Equal(len(turnOf(oneStep)) + len(eventsOf(&session.Log{Events: child.Seed()}, session.TypeAssistantChunk))))
		Expect(root.Events[child.Header.SeedLength-1].Type).To(Equal(session.TypeTurnEnd))
	})

	It("keeps the results of tool calls in the prefix", func() {
		look := &loop.FuncTool{Name: "look", Description: "look", Parameters: `{"type":"object"}`,
			Fn: func(_ ctxT, _ rawT) (string, error) { return "a lamp", nil }}
		d := newScripted().
			calls("root", call("call_l", "look", `{}`)).
			say("root", "I saw a lamp").
			calls("root", fork("call_f", "What did you see?")).
			say("root/call_f", "a lamp").
			say("root", "done")
		r := newRig(d, func(c *loop.Config) { c.Tools = loop.NewRegistry(look, loop.ForkTool()) })
		_, _, err := r.rt.Run(ctx, "look", "fork")
		Expect(err).NotTo(HaveOccurred())
		seed := r.log("root/call_f").Seed()
		Expect(compact(seed)).To(Equal(turnOf(toolStep(1), oneStep)))
		res := decode[session.ToolResultData](eventsOf(&session.Log{Events: seed}, session.TypeToolResult)[0])
		Expect(res.Message.Content[0].ToolCallID).To(Equal("call_l"))
	})

	It("inherits nothing when it forks on the parent's first turn", func() {
		d := newScripted().
			calls("root", fork("call_f", "hi")).
			say("root/call_f", "hello").
			say("root", "done")
		r := newRig(d)
		_, _, err := r.rt.Run(ctx, "fork now")
		Expect(err).NotTo(HaveOccurred())
		child := r.log("root/call_f")
		Expect(child.Header.SeedLength).To(BeZero())
		Expect(child.Header.Mode).To(Equal(session.ModeFork))
		Expect(child.Events[0].Type).To(Equal(session.TypeTurnStart))
		Expect(string(session.AppendHeader(nil, &child.Header))).NotTo(ContainSubstring("seedLength"))
	})
})

var _ = Describe("several subagent calls in one step", func() {
	eight := func() (*scripted, []session.Part) {
		d := newScripted()
		var calls []session.Part
		for i := range 8 {
			id := fmt.Sprintf("call_%d", i)
			if i%2 == 0 {
				calls = append(calls, spawn(id, "spawned "+id))
			} else {
				calls = append(calls, fork(id, "forked "+id))
			}
			d.say("root/"+id, "answer "+id)
		}
		d.say("root", "first turn done")
		d.calls("root", calls...)
		d.say("root", "all done")
		return d, calls
	}

	It("run concurrently and return their results in call order", func() {
		d, calls := eight()
		// Every child waits until all eight are in their model call: this
		// only finishes if they run at the same time.
		var arrived sync.WaitGroup
		arrived.Add(8)
		d.before = func(req *llm.Request) {
			if !req.Session.IsRoot() {
				arrived.Done()
				arrived.Wait()
			}
		}
		r := newRig(d)
		s, _, err := r.rt.Run(ctx, "warm up", "fan out")
		Expect(err).NotTo(HaveOccurred())
		results := eventsOf(r.log(s.ID()), session.TypeToolResult)
		Expect(results).To(HaveLen(8))
		for i, e := range results {
			res := decode[session.ToolResultData](e)
			Expect(res.Message.Content[0].ToolCallID).To(Equal(calls[i].ID))
			Expect(res.Message.Content[0].Content[0].Text).To(Equal("answer " + calls[i].ID))
		}
		headers, err := r.store.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(headers).To(HaveLen(9))
		for i := 1; i < 8; i += 2 {
			Expect(r.log("root/" + calls[i].ID).Header.SeedLength).To(BeNumerically(">", 0))
		}
	})

	It("run one at a time with Serial", func() {
		d, _ := eight()
		var inFlight, peak atomic.Int32
		var mu sync.Mutex
		var order []string
		d.before = func(req *llm.Request) {
			if req.Session.IsRoot() {
				return
			}
			n := inFlight.Add(1)
			if n > peak.Load() {
				peak.Store(n)
			}
			mu.Lock()
			order = append(order, req.Session.ParentCallID)
			mu.Unlock()
			inFlight.Add(-1)
		}
		r := newRig(d, func(c *loop.Config) { c.Serial = true })
		_, _, err := r.rt.Run(ctx, "warm up", "fan out")
		Expect(err).NotTo(HaveOccurred())
		Expect(peak.Load()).To(Equal(int32(1)))
		Expect(slices.IsSorted(order)).To(BeTrue(), "serial children run in call order: %v", order)
	})
})

var _ = Describe("the delegation depth limit", func() {
	It("gives the model a clear error result instead of a grandchild", func() {
		d := newScripted().
			calls("root", spawn("c1", "go deeper")).
			calls("root/c1", spawn("c2", "deeper still")).
			say("root/c1", "could not").
			say("root", "done")
		r := newRig(d, func(c *loop.Config) { c.MaxDepth = 1 })
		_, results, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(results[0].Errors).To(BeEmpty(), "hitting the limit is not a child failure")
		child := r.log("root/c1")
		res := decode[session.ToolResultData](eventsOf(child, session.TypeToolResult)[0])
		Expect(res.Message.Content[0].IsError).To(BeTrue())
		Expect(res.Message.Content[0].Content[0].Text).To(ContainSubstring("delegation depth limit reached: this session is at depth 1 and subagents may go 1 deep"))
		headers, _ := r.store.List(ctx)
		Expect(headers).To(HaveLen(2))
	})

	It("reports a failed child in the parent's turn result and tool result", func() {
		d := newScripted().calls("root", spawn("c1", "fail")).say("root", "done")
		r := newRig(d)
		_, results, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(results[0].Errors).To(HaveLen(1))
		Expect(results[0].Errors[0]).To(MatchError(ContainSubstring("no answer left for session root/c1")))
	})
})

var _ = Describe("resume", func() {
	It("gives a session back its persisted seedLength and createdAt", func() {
		d := newScripted().
			say("root", "OK").
			calls("root", fork("call_f", "q")).
			say("root/call_f", "a").
			say("root", "done").
			say("root/call_f", "second answer")
		r := newRig(d)
		_, _, err := r.rt.Run(ctx, "one", "two")
		Expect(err).NotTo(HaveOccurred())
		before := r.log("root/call_f").Header

		later := newRig(d, func(c *loop.Config) { c.Store = r.store; c.Clock = loop.FixedClock(epoch.Add(3600e9)) })
		s, err := later.rt.Resume(ctx, "root/call_f")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Header()).To(Equal(before))
		res, err := s.Turn(ctx, "and again?")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Turn).To(Equal(3))
		after := r.log("root/call_f")
		Expect(after.Header.SeedLength).To(Equal(before.SeedLength))
		Expect(after.Header.CreatedAt).To(Equal(before.CreatedAt))
		Expect(len(after.Events)).To(BeNumerically(">", before.SeedLength))
	})

	It("refuses a log that ends inside a turn", func() {
		r := newRig(newScripted())
		h := session.Header{ID: "cut", CreatedAt: 1}
		Expect(r.store.Create(ctx, h, nil)).To(Succeed())
		start, _ := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 1})
		Expect(r.store.Append(ctx, "cut", []session.Event{start})).To(Succeed())
		_, err := r.rt.Resume(ctx, "cut")
		Expect(err).To(MatchError(ContainSubstring("the log ends inside turn 1")))
	})
})
