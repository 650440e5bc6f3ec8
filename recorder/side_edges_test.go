package recorder_test

import (
	"context"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/recorder"
)

var _ = Describe("recording into a side store an earlier run filled (Options.Store, --store)", func() {
	It("refuses before the agent runs, naming a session it holds and what to do", func() {
		dir := scaffold("spawn/filled-store")
		before := tree(dir)
		side := memory.New()
		Expect(side.Create(context.Background(), storetest.RootHeader("root"), nil)).To(Succeed())
		var ran atomic.Int64
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
			ran.Add(1)
			return agent.Reference.Run(ctx, env)
		})
		opts.Store = func(context.Context) (persistence.Store, error) { return side, nil }
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).To(MatchError("recorder: the side store (Options.Store, record's --store): it already holds 1 session (such as root), an earlier run's: the recording creates its sessions there; give it an empty one (a new path) or delete the old; nothing ran and the fixture is unchanged"))
		Expect(ran.Load()).To(BeZero(), "the agent ran")
		Expect(tree(dir)).To(Equal(before))
	})
})
