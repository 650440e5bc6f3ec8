package session_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
)

// treeLog is a log of a session in a tree: id, its parent and the call that
// created it, its creation time, and the events of one turn that calls
// callIDs.
func treeLog(id, parent, parentCall string, createdAt int64, callIDs ...string) *session.Log {
	h := session.Header{ID: id, CreatedAt: createdAt, ParentSession: parent, ParentCallID: parentCall}
	if parent != "" {
		h.Origin, h.Mode = session.OriginSubagent, session.ModeSpawn
	}
	return &session.Log{Header: h, Events: turnEvents(0, 1, callIDs...)}
}

func ids(logs []*session.Log) []string {
	var out []string
	for _, l := range logs {
		out = append(out, l.Header.ID)
	}
	return out
}

var _ = Describe("LineageOrder", func() {
	It("puts the root first, then children depth first in the order of the parent's calls", func() {
		logs := []*session.Log{
			treeLog("b", "root", "call_b", 10),
			treeLog("a1", "a", "call_a1", 30),
			treeLog("root", "", "", 1, "call_a", "call_b"),
			treeLog("a", "root", "call_a", 20, "call_a1"),
		}
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "a", "a1", "b"}), "call order wins over creation time")
	})

	It("orders dsh-style children without parentCallId by createdAt, then id, after the known calls", func() {
		logs := []*session.Log{
			treeLog("late", "root", "", 300),
			treeLog("z-early", "root", "", 100),
			treeLog("a-early", "root", "", 100),
			treeLog("called", "root", "call_x", 999),
			treeLog("root", "", "", 1, "call_x"),
		}
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "called", "a-early", "z-early", "late"}))
	})

	It("matches calls in the child's own events, not in the seed it inherited", func() {
		root := treeLog("root", "", "", 1, "call_old", "call_new")
		seed := turnEvents(0, 1, "call_seeded")
		fork := &session.Log{
			Header: session.Header{ID: "fork", ParentSession: "root", ParentCallID: "call_new", Mode: session.ModeFork, SeedLength: len(seed)},
			Events: append(seed, turnEvents(len(seed), 2, "call_own")...),
		}
		logs := []*session.Log{
			treeLog("via-seed", "fork", "call_seeded", 1),
			treeLog("via-own", "fork", "call_own", 2),
			fork, root,
		}
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "fork", "via-own", "via-seed"}))
	})

	It("breaks a tie between children of one call by createdAt", func() {
		logs := []*session.Log{
			treeLog("second", "root", "call_x", 20),
			treeLog("first", "root", "call_x", 10),
			treeLog("root", "", "", 1, "call_x"),
		}
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "first", "second"}))
	})

	DescribeTable("refuses sets of logs that are not one tree",
		func(logs []*session.Log, message string) {
			_, err := session.LineageOrder(logs)
			Expect(err).To(MatchError(session.ErrLineage))
			Expect(err).To(MatchError("logs do not form one session tree: " + message))
		},
		Entry("two roots", []*session.Log{treeLog("r1", "", "", 1), treeLog("r2", "", "", 2)},
			"found 2 root sessions (without parentSession): r1, r2; want 1"),
		Entry("no root", []*session.Log{treeLog("a", "b", "", 1), treeLog("b", "a", "", 2)},
			"found 0 root sessions (without parentSession), want 1"),
		Entry("a missing parent", []*session.Log{treeLog("root", "", "", 1), treeLog("x", "root", "", 2), treeLog("orphan", "gone", "", 3), treeLog("orphan2", "gone2", "", 4)},
			"session orphan names parent gone, which is not among the logs"),
		Entry("a duplicate id", []*session.Log{treeLog("root", "", "", 1), treeLog("root", "", "", 2)},
			"session root appears twice"),
		Entry("a cycle beside the root", []*session.Log{treeLog("root", "", "", 1), treeLog("a", "b", "", 1), treeLog("b", "a", "", 2)},
			"2 of 3 sessions are not reachable from the root (a parent cycle?)"),
	)
})

var _ = Describe("FolderLogs and ReadFolder", func() {
	var dir string

	writeTree := func(names ...string) {
		for i, name := range names {
			id := fmt.Sprintf("s%d", i)
			content := lines(fmt.Sprintf(`{"type":"session","version":0,"id":%q,"createdAt":%d,"delegationDepth":0}`, id, i), turnStart0)
			writeLog(dir, name, content)
		}
	}

	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("lists session.jsonl, then session.<n>.jsonl by n, then other logs by name", func() {
		writeTree("session.10.jsonl", "notes.jsonl", "session.2.jsonl", "session.jsonl", "session.1.jsonl", "a.jsonl", "session.x.jsonl")
		Expect(os.WriteFile(filepath.Join(dir, "readme.txt"), nil, 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, ".session.jsonl.tmp-1.jsonl"), nil, 0o644)).To(Succeed())
		Expect(os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o755)).To(Succeed())

		paths, err := session.FolderLogs(dir)
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, p := range paths {
			Expect(filepath.Dir(p)).To(Equal(dir))
			names = append(names, filepath.Base(p))
		}
		Expect(names).To(Equal([]string{"session.jsonl", "session.1.jsonl", "session.2.jsonl", "session.10.jsonl", "a.jsonl", "notes.jsonl", "session.x.jsonl"}))
	})

	It("reads the logs in that order", func() {
		writeTree("session.2.jsonl", "session.jsonl", "session.1.jsonl")
		logs, err := session.ReadFolder(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(logs)).To(Equal([]string{"s1", "s2", "s0"}))
		Expect(logs[0].Path).To(Equal(filepath.Join(dir, "session.jsonl")))
		Expect(fixture.RootLog).To(Equal("session.jsonl"))
		Expect(fixture.ChildLog(3)).To(Equal("session.3.jsonl"))
	})

	It("fails on a folder without logs, saying which", func() {
		_, err := session.ReadFolder(dir)
		Expect(err).To(MatchError(fmt.Sprintf("session: %s holds no *.jsonl session logs", dir)))
	})

	It("fails on a missing folder", func() {
		_, err := session.FolderLogs(filepath.Join(dir, "missing"))
		Expect(errors.Is(err, os.ErrNotExist)).To(BeTrue())
	})

	It("fails on the first bad log with its path and line, reading nothing else", func() {
		writeTree("session.jsonl")
		bad := writeLog(dir, "session.1.jsonl", lines(rootHeader, userMsg1))
		before := stateOf(bad)
		_, err := session.ReadFolder(dir)
		Expect(err).To(MatchError(HavePrefix(bad + ":2: seq is not dense")))
		Expect(stateOf(bad)).To(Equal(before))
	})
})
