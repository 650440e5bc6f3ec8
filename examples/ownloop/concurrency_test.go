package ownloop_test

import (
	"context"
	"iter"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/ownloop"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// barrier holds the first model call of every helper in release until all
// of them have made theirs, so it serves them only if they run at the same
// time; then it answers them one by one in release order, each once the
// one before has been answered.
type barrier struct {
	inner   llm.Driver
	release []string // creating call ids, in the order they are answered

	mu      sync.Mutex
	arrived []string
	all     chan struct{}
	done    map[string]chan struct{}
}

func newBarrier(inner llm.Driver, release ...string) *barrier {
	b := &barrier{inner: inner, release: release, all: make(chan struct{}), done: map[string]chan struct{}{}}
	for _, id := range release {
		b.done[id] = make(chan struct{})
	}
	return b
}

func (b *barrier) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	id := req.Session.ParentCallID
	if req.Session.Depth != 1 || req.Turn != 1 || req.Step != 1 || b.done[id] == nil {
		return b.inner.Stream(ctx, req)
	}
	b.mu.Lock()
	b.arrived = append(b.arrived, id)
	if len(b.arrived) == len(b.release) {
		close(b.all)
	}
	b.mu.Unlock()
	wait := []chan struct{}{b.all}
	if i := slices.Index(b.release, id); i > 0 {
		wait = append(wait, b.done[b.release[i-1]])
	}
	for _, ch := range wait {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer close(b.done[id])
	return b.inner.Stream(ctx, req)
}

// rootResults returns the root's tool results as "call id: text".
func rootResults(logs []*session.Log) []string {
	var out []string
	for _, l := range logs {
		if l.Header.ParentSession != "" {
			continue
		}
		for _, e := range l.Events {
			var d session.ToolResultData
			if e.Type == session.TypeToolResult && e.Decode(&d) == nil {
				p := d.Message.Content[0]
				out = append(out, p.ToolCallID+": "+p.Content[0].Text)
			}
		}
	}
	return out
}

var _ = Describe("the delegations of one step", func() {
	It("run concurrently, and their results are recorded in call order whatever order they finish in", func() {
		dir := filepath.Join(root, "spawn", "two-helpers")
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		pb, err := playbook.Load(filepath.Join(dir, fixture.PlaybookFile))
		Expect(err).NotTo(HaveOccurred())
		// The helper of the second call is answered first.
		b := newBarrier(playbook.NewDriver(pb, "playbook.json"), "call_words", "call_price")
		store := memory.New()
		DeferCleanup(store.Close)
		env := &agentsnap.Env{
			Scenario: sc, Dir: dir, Driver: b, Store: store,
			Provider: "playbook", Model: "playbook",
			Clock: func() time.Time { return agentsnap.Epoch },
			Logf:  GinkgoT().Logf,
		}
		// A serial loop would hold the first helper at the barrier until
		// this deadline, and its model call would fail to start.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		Expect(ownloop.Runtime{}.Run(ctx, env)).To(Succeed())
		Expect(b.arrived).To(ConsistOf("call_price", "call_words"))

		logs, err := persistence.LoadAll(context.Background(), store)
		Expect(err).NotTo(HaveOccurred())
		Expect(rootResults(logs)).To(Equal([]string{"call_price: 120.00 EUR = 132.00 USD", "call_words: 5 words"}))
	})
})
