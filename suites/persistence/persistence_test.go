package persistence_test

import (
	"context"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// allScenarios is one entry per fixture, every category.
func allScenarios() []TableEntry {
	var out []TableEntry
	for _, c := range suitekit.Categories {
		for _, dir := range suitekit.Fixtures(c) {
			out = append(out, Entry(harness.Name(dir), Label(c), dir))
		}
	}
	return out
}

// encode returns the logs as one text, in lineage order.
func encode(logs []*session.Log) string {
	var s string
	for _, l := range logs {
		s += string(session.Encode(&l.Header, l.Events))
	}
	return s
}

// reload opens a store again and reads every session back in lineage order.
func reload(open func() (persistence.Store, error)) []*session.Log {
	store, err := open()
	Expect(err).NotTo(HaveOccurred())
	defer store.Close()
	headers, err := store.List(context.Background())
	Expect(err).NotTo(HaveOccurred())
	var logs []*session.Log
	for _, h := range headers {
		l, err := store.Load(context.Background(), h.ID)
		Expect(err).NotTo(HaveOccurred())
		logs = append(logs, l)
	}
	ordered, err := session.LineageOrder(logs)
	Expect(err).NotTo(HaveOccurred())
	return ordered
}

var _ = Describe("every scenario through every store", Label("persistence"), func() {
	DescribeTable("replays to identical logs in memory, JSONL files and SQLite, and reads back the same after reopening",
		func(dir string) {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			tmp := GinkgoT().TempDir()
			stores := map[string]func() (persistence.Store, error){
				"jsonl": func() (persistence.Store, error) {
					return jsonl.Open(context.Background(), filepath.Join(tmp, "logs"))
				},
				"sqlite": func() (persistence.Store, error) {
					return sqlite.Open(context.Background(), filepath.Join(tmp, "agentsnap.db"))
				},
			}
			inMemory, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
			Expect(err).NotTo(HaveOccurred())
			Expect(inMemory).To(harness.MatchRecording())
			want := encode(inMemory.Replayed)

			for _, name := range []string{"jsonl", "sqlite"} {
				open := stores[name]
				o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference, Store: open})
				Expect(err).NotTo(HaveOccurred(), name)
				Expect(o).To(harness.MatchRecording(), name)
				Expect(encode(o.Replayed)).To(Equal(want), "%s gives the same bytes as memory", name)

				back := reload(open)
				Expect(encode(back)).To(Equal(want), "%s reads back what it stored, seedLength and lineage included", name)
				for i, l := range back {
					Expect(l.Header.SeedLength).To(Equal(fx.Logs[i].Header.SeedLength))
				}
			}
		},
		allScenarios(),
	)
})
