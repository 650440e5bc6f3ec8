package journal_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

// failsOnce is a store whose next Append, once armed, fails and stores
// nothing, as a full disk would.
type failsOnce struct {
	persistence.Store
	armed atomic.Bool
}

var errFull = errors.New("disk full")

func (s *failsOnce) Append(ctx context.Context, id string, events []session.Event) error {
	if s.armed.CompareAndSwap(true, false) {
		return errFull
	}
	return s.Store.Append(ctx, id, events)
}

// A journal keeps only what it has yet to store: once a Flush succeeds, the
// events are the store's, and what needs them reads them back.
var _ = Describe("a journal's stored events", func() {
	var store *memory.Store
	BeforeEach(func() {
		store = memory.New()
		DeferCleanup(store.Close)
	})

	It("are released by every flush that stores them, and Events gives back the whole log", func() {
		j := newRoot(store)
		j.StartTurn(journal.TriggerUser, journal.UserText("one"))
		j.StartStep()
		c, err := j.BeginCall(ctx, "prov", &llm.Request{Model: "m"})
		Expect(err).NotTo(HaveOccurred())
		Expect(journal.Unstored(j)).To(BeEmpty(), "BeginCall flushed")
		for _, ch := range answer("a streamed answer") {
			c.Chunk(ch)
		}
		c.End()
		Expect(len(journal.Unstored(j))).To(BeNumerically(">", 3), "the chunks wait for the next flush")
		Expect(j.EndTurn(ctx, completed)).To(Succeed())
		Expect(journal.Unstored(j)).To(BeEmpty())
		for i := range 5 {
			turn(j, fmt.Sprintf("turn %d", i+2), "call_a", "call_b")
			Expect(journal.Unstored(j)).To(BeEmpty(), "after turn %d", i+2)
		}

		stored, err := store.Load(ctx, j.ID())
		Expect(err).NotTo(HaveOccurred())
		events := logOf(j)
		Expect(events).To(Equal(stored.Events))
		Expect(count(events, session.TypeTurnEnd)).To(Equal(6))
		for i, e := range events {
			Expect(e.Seq).To(Equal(int64(i)), "seqs stay dense from 0")
		}

		// Events not yet flushed follow the stored ones.
		Expect(j.Emit("x/note", map[string]int{"n": 1})).To(Succeed())
		more := logOf(j)
		Expect(more[:len(events)]).To(Equal(events))
		Expect(more).To(HaveLen(len(events) + 1))
		Expect(more[len(events)].Type).To(Equal("x/note"))
		Expect(more[len(events)].Seq).To(Equal(int64(len(events))))
	})

	It("still give a fork child its parent's completed turns, read back from the store", func() {
		parent := newRoot(store)
		turn(parent, "one", "call_a")
		turn(parent, "two")
		delegating(parent, "three", "call_f")
		Expect(journal.Unstored(parent)).To(BeEmpty(), "the running turn is stored past its completed turns")
		child := expectFork(store, parent, "call_f", epoch)
		Expect(child.Turn()).To(Equal(2))
		Expect(journal.Unstored(child)).To(BeEmpty(), "the seed is the store's")

		// The child's own events continue its seed; a fork of it inherits both.
		turn(child, "sub")
		Expect(journal.Unstored(child)).To(BeEmpty())
		delegating(child, "sub two", "call_g")
		grandchild := expectFork(store, child, "call_g", epoch)
		Expect(grandchild.Turn()).To(Equal(3))
	})

	It("keep what a failed flush did not store, and a fork child gets it from memory after the stored part", func() {
		failing := &failsOnce{Store: store}
		parent := newRoot(failing)
		twin := newRoot(memory.New()) // the same calls, every flush stored

		for _, j := range []*journal.Journal{parent, twin} {
			turn(j, "one", "call_a")
			j.StartTurn(journal.TriggerUser, journal.UserText("two"))
			j.StartStep()
			call(j, answer("done: two"))
		}
		failing.armed.Store(true)
		Expect(parent.EndTurn(ctx, completed)).To(MatchError(ContainSubstring("disk full")))
		Expect(twin.EndTurn(ctx, completed)).To(Succeed())
		unstored := journal.Unstored(parent)
		Expect(len(unstored)).To(BeNumerically(">", 3), "the second turn's answer and end are not stored")
		Expect(unstored[len(unstored)-1].Type).To(Equal(session.TypeTurnEnd))

		// A third turn begins, unflushed: it is past the completed turns.
		for _, j := range []*journal.Journal{parent, twin} {
			j.StartTurn(journal.TriggerUser, journal.UserText("three"))
		}
		want := logOf(twin)
		want = want[:session.CompletedPrefix(want)]
		Expect(logOf(parent)).To(Equal(logOf(twin)), "Events: stored, then unstored")

		child, err := parent.Child(ctx, "call_f", session.ModeFork)
		Expect(err).NotTo(HaveOccurred())
		Expect(child.Header().SeedLength).To(Equal(len(want)))
		Expect(logOf(child)).To(Equal(want))
		Expect(child.Messages()).To(Equal(journal.Conversation(want)))
		Expect(child.Turn()).To(Equal(2))
		stored, err := store.Load(ctx, child.ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Events).To(Equal(want))

		// The next flush stores what failed, at the seqs it was given.
		Expect(parent.Flush(ctx)).To(Succeed())
		Expect(journal.Unstored(parent)).To(BeEmpty())
		Expect(twin.Flush(ctx)).To(Succeed())
		got, err := store.Load(ctx, parent.ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(session.Encode(&session.Header{}, got.Events)).To(Equal(session.Encode(&session.Header{}, logOf(twin))))
	})

	It("never writes again into the events and payloads it handed to the store", func() {
		keeper := &keepsBatches{Store: store}
		j := newRoot(keeper)
		long := strings.Repeat("a long answer streamed in many chunks, ", 40)
		for i := range 12 { // blocks of events and of chunk payloads fill and are left
			turn(j, fmt.Sprintf("turn %d", i+1), "call_a")
			j.StartTurn(journal.TriggerUser, journal.UserText("more"))
			j.StartStep()
			call(j, answer(long))
			Expect(j.EndTurn(ctx, completed)).To(Succeed())
		}
		Expect(keeper.batches).To(HaveLen(len(keeper.bytes)))
		Expect(len(keeper.batches)).To(BeNumerically(">", 50))
		for i, batch := range keeper.batches {
			Expect(session.Encode(&session.Header{}, batch)).To(Equal(keeper.bytes[i]), "batch %d changed after it was stored", i)
		}
	})

	It("refuses a fork whose store gives back fewer events than were appended to it, saying so", func() {
		forgets := &forgetful{Store: store}
		parent := newRoot(forgets)
		turn(parent, "one")
		delegating(parent, "two", "call_f")
		forgets.now.Store(true)
		_, err := parent.Child(ctx, "call_f", session.ModeFork)
		Expect(err).To(MatchError(MatchRegexp(`^journal: fork a child of session root: the store gives back 0 events, but \d+ were appended to it; a store must keep every event appended to it$`)))
		_, err = parent.Events(ctx)
		Expect(err).To(MatchError(ContainSubstring("journal: events of session root: the store gives back 0 events")))
	})

	It("give fork children made while the parent writes a completed prefix of its log each", func() {
		parent := newRoot(store)
		turn(parent, "one")
		const forkers, forks = 3, 20
		done := make(chan struct{})
		var children [forkers][]*journal.Journal
		var wg sync.WaitGroup
		for f := range forkers {
			wg.Go(func() {
				defer GinkgoRecover()
				for i := range forks {
					c, err := parent.Child(ctx, fmt.Sprintf("call_%d_%d", f, i), session.ModeFork)
					Expect(err).NotTo(HaveOccurred())
					children[f] = append(children[f], c)
					_, err = parent.Events(ctx)
					Expect(err).NotTo(HaveOccurred())
					select {
					case <-done:
						return
					default:
					}
				}
			})
		}
		for i := range 20 {
			turn(parent, fmt.Sprintf("turn %d", i+2), "call_x")
		}
		close(done)
		wg.Wait()

		final := logOf(parent)
		for f := range forkers {
			Expect(children[f]).NotTo(BeEmpty())
			for _, c := range children[f] {
				seed := logOf(c)
				Expect(seed).NotTo(BeEmpty(), "%s: turn one was completed before any fork", c.ID())
				Expect(c.Header().SeedLength).To(Equal(len(seed)))
				Expect(seed[len(seed)-1].Type).To(Equal(session.TypeTurnEnd), "%s ends at a turn/end", c.ID())
				Expect(seed).To(Equal(final[:len(seed)]), "%s inherits a prefix of its parent's log", c.ID())
				Expect(c.Messages()).To(Equal(journal.Conversation(seed)), c.ID())
				Expect(c.Turn()).To(Equal(journal.LastTurn(seed)), c.ID())
			}
		}
	})
})

// forgetful is a store that, once now is set, gives back no event of a
// session.
type forgetful struct {
	persistence.Store
	now atomic.Bool
}

func (s *forgetful) Load(ctx context.Context, id string) (*session.Log, error) {
	l, err := s.Store.Load(ctx, id)
	if err != nil || !s.now.Load() {
		return l, err
	}
	l.Events = nil
	return l, nil
}

// keepsBatches is a store that keeps every batch appended to it as given
// (the slice, not a copy) and the bytes it encoded to then.
type keepsBatches struct {
	persistence.Store
	batches [][]session.Event
	bytes   [][]byte
}

func (s *keepsBatches) Append(ctx context.Context, id string, events []session.Event) error {
	s.batches = append(s.batches, events)
	s.bytes = append(s.bytes, session.Encode(&session.Header{}, events))
	return s.Store.Append(ctx, id, events)
}

// countingStore counts the Appends that reach its store.
type countingStore struct {
	persistence.Store
	appends atomic.Int64
}

func (s *countingStore) Append(ctx context.Context, id string, events []session.Event) error {
	s.appends.Add(1)
	return s.Store.Append(ctx, id, events)
}

var _ = Describe("a journal that flushes after answers", func() {
	// session runs two turns of a root — one of a delegating step and a
	// text step, the other of a text step — with a fork child made in the
	// first turn's second step, and returns the logs it stored and how
	// many Appends stored them.
	run := func(after bool) (map[string]string, int64) {
		GinkgoHelper()
		mem := memory.New()
		DeferCleanup(mem.Close)
		store := &countingStore{Store: mem}
		cfg := config(store)
		cfg.FlushAfterAnswers = after
		j, err := journal.NewRoot(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		step := func(j *journal.Journal, chunks []llm.Chunk) session.Message {
			GinkgoHelper()
			j.StartStep()
			c, err := j.BeginCall(ctx, "prov", &llm.Request{Model: "m"})
			Expect(err).NotTo(HaveOccurred())
			if after {
				Expect(journal.Unstored(j)).NotTo(BeEmpty(), "the call waits for its answer's flush")
			}
			for _, ch := range chunks {
				c.Chunk(ch)
			}
			msg, _ := c.End()
			return msg
		}
		j.StartTurn(journal.TriggerUser, journal.UserText("one"))
		Expect(j.EndTurn(ctx, completed)).To(Succeed()) // a completed turn for the fork to inherit
		j.StartTurn(journal.TriggerUser, journal.UserText("two"))
		msg := step(j, delegation("call_1"))
		Expect(j.ToolCalls(ctx, msg.ToolCalls())).To(Succeed())
		Expect(journal.Unstored(j)).To(BeEmpty(), "an answer's tool calls flush the call")
		child, err := j.Child(ctx, "call_1", session.ModeFork)
		Expect(err).NotTo(HaveOccurred())
		child.StartTurn(journal.TriggerSubagent, journal.UserText("go on"))
		step(child, answer("done"))
		Expect(child.EndTurn(ctx, completed)).To(Succeed())
		j.ToolResult("call_1", "subagent_fork", "done", false)
		Expect(j.EndStep(ctx)).To(Succeed())
		step(j, answer("both done"))
		Expect(j.EndTurn(ctx, completed)).To(Succeed())
		Expect(journal.Unstored(j)).To(BeEmpty())
		logs := map[string]string{}
		for _, id := range []string{"root", "root/call_1"} {
			l, err := mem.Load(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			logs[id] = string(session.Encode(&l.Header, l.Events))
		}
		return logs, store.appends.Load()
	}

	It("stores the same logs as one that flushes at every phase, a call once, after its answer", func() {
		every, phases := run(false)
		once, answers := run(true)
		Expect(once).To(Equal(every))
		Expect(once["root/call_1"]).To(ContainSubstring(`"seedLength"`), "the fork child inherits the completed turn")
		// Per phase: the first turn's end; BeginCall and ToolCalls; the
		// child's BeginCall and turn end; EndStep; BeginCall and turn end.
		Expect(phases).To(BeEquivalentTo(8))
		// After answers: the first turn's end; ToolCalls; the child's turn
		// end; the last turn's end.
		Expect(answers).To(BeEquivalentTo(4))
	})
})
