package judge_test

import (
	"context"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A store kept for inspection (Options.Store) is easily handed to the next
// run as well; that replay cannot create its sessions there, and must not
// read as a broken recording ("recording not consumed ... re-record").
var _ = Describe("a replay through a store an earlier run filled", func() {
	DescribeTable("is refused before it runs, naming the store's sessions and what to do",
		func(kind string) {
			fx, err := fixture.Load(filepath.Join("..", "fixtures", "parallel", "fan-out"))
			Expect(err).NotTo(HaveOccurred())
			spec := kind + ":" + filepath.Join(GinkgoT().TempDir(), "replays")
			opts := judge.Options{Runtime: agent.Reference, Store: func() (persistence.Store, error) {
				return open.Store(context.Background(), spec)
			}}
			o, err := judge.Replay(context.Background(), fx, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(o.Passed()).To(BeTrue(), o.Report())

			_, err = judge.Replay(context.Background(), fx, opts)
			Expect(err).To(MatchError("judge: parallel/fan-out: the store of Options.Store: it already holds 5 sessions (such as root), an earlier run's: a replay writes its sessions there and judges every session it holds, so give each replay an empty store (a new path, such as one under t.TempDir()) or delete the old"))
		},
		Entry("SQLite", "sqlite"),
		Entry("JSONL", "jsonl"),
	)
})

var _ = Describe("a replay through a store that does not open", func() {
	It("names the store, says what to do and that nothing was replayed", func() {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "parallel", "fan-out"))
		Expect(err).NotTo(HaveOccurred())
		gone := filepath.Join(GinkgoT().TempDir(), "gone")
		opts := judge.Options{Runtime: agent.Reference, Store: func() (persistence.Store, error) {
			return open.Store(context.Background(), "sqlite:"+filepath.Join(gone, "replays.db"))
		}}
		_, err = judge.Replay(context.Background(), fx, opts)
		Expect(err).To(MatchError(ContainSubstring("judge: parallel/fan-out: the store of Options.Store does not open: ")))
		Expect(err).To(MatchError(ContainSubstring("the folder " + gone + " does not exist")))
		Expect(err).To(MatchError(HaveSuffix("; create the folder it names, or give a path in a folder that exists; nothing was replayed")))
		Expect(gone).NotTo(BeAnExistingFile())
	})
})
