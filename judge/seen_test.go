package judge_test

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A replay judged from what start-up kept (agentsnap serve's) digests each
// session's events as the runtime writes them, so its verdict digests none
// of them again: what it took as they were written must be what the logs
// loaded for the verdict give, however they were written.
var _ = Describe("a replay's store seen as it is written", func() {
	ctx := context.Background()
	// write creates each log of logs in store, its seed with it, and
	// appends its own events n at a time, each batch scribbled over once
	// appended: a writer may reuse what it appended.
	write := func(store persistence.Store, logs []*session.Log, n int) {
		GinkgoHelper()
		for _, l := range logs {
			seed := l.Seed()
			Expect(store.Create(ctx, l.Header, slices.Clone(seed))).To(Succeed())
			for own := l.Own(); len(own) > 0; own = own[min(n, len(own)):] {
				batch := cloneEvents(own[:min(n, len(own))])
				Expect(store.Append(ctx, l.Header.ID, batch)).To(Succeed())
				for i := range batch {
					for j := range batch[i].Data {
						batch[i].Data[j] = 'x'
					}
				}
			}
		}
	}
	// verdictOf is what the verdict of store's logs takes from what seen
	// saw: every loaded log's digest is the one of its events.
	verdictOf := func(seen persistence.Store) []*session.Log {
		GinkgoHelper()
		logs, err := persistence.LoadAll(ctx, seen)
		Expect(err).NotTo(HaveOccurred())
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		for _, l := range ordered {
			Expect(judge.SeenDigestMatches(seen, l)).To(BeTrue(), "the digest of %s", l.Header.ID)
		}
		Expect(judge.SeenWhole(seen, ordered)).To(Equal(len(ordered)), "every session seen whole")
		return ordered
	}

	It("digests every fixture's sessions as the logs loaded whole, written in batches of any size", func() {
		dirs, err := filepath.Glob(filepath.Join("..", "fixtures", "*", "*"))
		Expect(err).NotTo(HaveOccurred())
		Expect(len(dirs)).To(BeNumerically(">=", 10))
		for _, dir := range dirs {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			for _, n := range []int{1, 3, 1 << 20} {
				seen := judge.SeenStore(memory.New())
				write(seen, fx.Logs, n)
				ordered := verdictOf(seen)
				Expect(ordered).To(HaveLen(len(fx.Logs)), dir)
			}
		}
	})

	// The store closes a turn left open when it loads a log it did not
	// write (persistence.Closers): those events are taken when the verdict
	// loads the log, and the session's digest goes on from what was
	// written, not from them, when it is written to again.
	It("takes the events Load closes a session's unfinished turn with, and goes on from what was written when it is appended to after a look", func() {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "fork", "codeword"))
		Expect(err).NotTo(HaveOccurred())
		child := fx.Logs[1]
		Expect(child.Header.SeedLength).To(BeNumerically(">", 0))
		own := child.Own()
		Expect(own[len(own)-1].Type).To(Equal(session.TypeTurnEnd))
		cut := *child
		cut.Events = child.Events[:len(child.Events)-3] // its turn never completed

		seen := judge.SeenStore(closing{memory.New()})
		write(seen, []*session.Log{fx.Logs[0], &cut}, 4)
		By("a look at the session never completed: its turn closed on Load")
		loaded, err := seen.Load(ctx, child.Header.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(loaded.Events)).To(BeNumerically(">", len(cut.Events)), "Load closed its turn")
		Expect(judge.SeenDigestMatches(seen, loaded)).To(BeTrue())

		By("the session appended to after that look, then judged")
		rest := cloneEvents(child.Events[len(cut.Events):])
		Expect(seen.Append(ctx, child.Header.ID, rest)).To(Succeed())
		Expect(verdictOf(seen)[1].Events).To(HaveLen(len(child.Events)))

		By("a verdict on the session never completed")
		seen = judge.SeenStore(closing{memory.New()})
		write(seen, []*session.Log{fx.Logs[0], &cut}, 4)
		ordered := verdictOf(seen)
		Expect(len(ordered[1].Events)).To(BeNumerically(">", len(cut.Events)), "Load closed its turn")
	})

	// A log that loads with fewer events than were written (a store that
	// lost some) is digested from what loads.
	It("digests a log that loads shorter than it was written from what loads", func() {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "fork", "codeword"))
		Expect(err).NotTo(HaveOccurred())
		seen := judge.SeenStore(forgetting{memory.New()})
		write(seen, fx.Logs, 5)
		ordered, err := session.LineageOrder(fx.Logs)
		Expect(err).NotTo(HaveOccurred())
		for i := range ordered {
			l, err := seen.Load(ctx, ordered[i].Header.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Events).To(HaveLen(len(ordered[i].Events) - 1))
			Expect(judge.SeenDigestMatches(seen, l)).To(BeTrue())
			ordered[i] = l
		}
		Expect(judge.SeenWhole(seen, ordered)).To(BeZero())
	})
})

// closing is a store that closes a log's unfinished turn when it loads
// it, as a store does for a log it did not write.
type closing struct{ persistence.Store }

func (c closing) Load(ctx context.Context, id string) (*session.Log, error) {
	l, err := c.Store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	l.Events = append(l.Events, persistence.Closers(l.Events)...)
	return l, nil
}

// forgetting is a store that loads every log without its last event.
type forgetting struct{ persistence.Store }

func (f forgetting) Load(ctx context.Context, id string) (*session.Log, error) {
	l, err := f.Store.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	l.Events = l.Events[:len(l.Events)-1]
	return l, nil
}

func cloneEvents(events []session.Event) []session.Event {
	out := slices.Clone(events)
	for i := range out {
		out[i].Data = slices.Clone(out[i].Data)
	}
	return out
}
