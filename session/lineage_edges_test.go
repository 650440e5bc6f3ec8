package session_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/session"
)

// lineageTree is repeatedTree with the ids every agentsnap runtime gives
// (LineageIDs): root calls call_0 in turn 1, then call_0 and call_1 in
// turn 2, one child each, all at the same createdAt.
func lineageTree() []*session.Log {
	events := turnEvents(0, 1, "call_0")
	events = append(events, turnEvents(len(events), 2, "call_0", "call_1")...)
	return []*session.Log{
		{Header: session.Header{ID: "root"}, Events: events},
		treeLog("root/call_0", "root", "call_0", 0),
		treeLog("root/call_0#2", "root", "call_0", 0),
		treeLog("root/call_1", "root", "call_1", 0),
	}
}

var _ = Describe("LineageOrder of a reused call id's children not listed in creation order", func() {
	It("gives root/call_0 the first call and root/call_0#2 the second, as their ids say", func() {
		logs := lineageTree()
		// As a JSONL store read back lists them: by file name, and
		// "root%2Fcall_0%232.jsonl" comes before "root%2Fcall_0.jsonl".
		ordered, err := session.LineageOrder([]*session.Log{logs[0], logs[2], logs[1], logs[3]})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "root/call_0", "root/call_0#2", "root/call_1"}))
		Expect(session.LineageKeys(ordered)).To(Equal(map[string]string{
			"root": "root", "root/call_0": "root/call_0", "root/call_0#2": "root/call_0#2", "root/call_1": "root/call_1",
		}))
	})

	It("orders them by their ids beside a child that names no call (a dsh child)", func() {
		logs := lineageTree()
		logs[1], logs[2] = logs[2], logs[1]
		logs = append(logs, treeLog("root/dsh", "root", "", 0))
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "root/call_0", "root/call_0#2", "root/call_1", "root/dsh"}),
			"the sibling without an id of ChildID's form says nothing about call_0's children")
	})

	It("orders them right when read back from a JSONL store", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		store, err := jsonl.Open(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		for _, l := range lineageTree() {
			Expect(store.Create(ctx, l.Header, nil)).To(Succeed())
			Expect(store.Append(ctx, l.Header.ID, l.Events)).To(Succeed())
		}
		Expect(store.Close()).To(Succeed())

		store, err = jsonl.Open(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		defer store.Close()
		back, err := persistence.LoadAll(context.Background(), store)
		Expect(err).NotTo(HaveOccurred())
		ordered, err := session.LineageOrder(back)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "root/call_0", "root/call_0#2", "root/call_1"}))
	})

	It("keeps the order given for ids of another scheme", func() {
		logs := repeatedTree()
		ordered, err := session.LineageOrder([]*session.Log{logs[3], logs[2], logs[0], logs[4], logs[1]})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "b", "b1", "a", "c"}))
	})
})

var _ = Describe("LineageOrder of several trees", func() {
	// A store that check --store filled holds every scenario's tree; a
	// caller handed all of them must see which roots it got.
	It("names the first roots and how many more", func() {
		var logs []*session.Log
		for _, id := range []string{"fork/a/root", "fork/b/root", "spawn/c/root", "spawn/d/root", "spawn/e/root"} {
			logs = append(logs, treeLog(id, "", "", 0))
		}
		_, err := session.LineageOrder(logs)
		Expect(err).To(MatchError(session.ErrLineage))
		Expect(err).To(MatchError("logs do not form one session tree: found 5 root sessions (without parentSession): fork/a/root, fork/b/root, spawn/c/root and 2 more; want 1"))
	})
})

var _ = Describe("LineageOrder of a reused call id's children whose ids only look like ChildID's", func() {
	// Two children of call_0 (called in turn 1, then again in turn 2), at
	// the same createdAt, listed second-created first. Only ids ChildID
	// writes ("root/call_0", then "#2", "#3", ...) say which call made
	// which child; one that does not (ChildID never writes "#1", nor a
	// number with a leading 0 or a sign) says nothing, and the family keeps the
	// order given, as for ids of another scheme.
	DescribeTable("keeps the order given",
		func(first, second string) {
			events := turnEvents(0, 1, "call_0")
			events = append(events, turnEvents(len(events), 2, "call_0")...)
			root := &session.Log{Header: session.Header{ID: "root"}, Events: events}
			ordered, err := session.LineageOrder([]*session.Log{root, treeLog(first, "root", "call_0", 0), treeLog(second, "root", "call_0", 0)})
			Expect(err).NotTo(HaveOccurred())
			Expect(ids(ordered)).To(Equal([]string{"root", first, second}))
		},
		Entry("#1, which ChildID never writes (its first child has no #)", "root/call_0#2", "root/call_0#1"),
		Entry("#02, a number with a leading 0", "root/call_0#02", "root/call_0"),
		Entry("#0", "root/call_0#2", "root/call_0#0"),
		Entry("# alone", "root/call_0#2", "root/call_0#"),
		Entry("#x, no number", "root/call_0#2", "root/call_0#x"),
		Entry("#+3, a number with a sign (strconv.Atoi reads it)", "root/call_0#+3", "root/call_0"),
	)

	It("orders them by their ids when both are ChildID's (the premise of the table above)", func() {
		events := turnEvents(0, 1, "call_0")
		events = append(events, turnEvents(len(events), 2, "call_0")...)
		root := &session.Log{Header: session.Header{ID: "root"}, Events: events}
		ordered, err := session.LineageOrder([]*session.Log{root, treeLog("root/call_0#2", "root", "call_0", 0), treeLog("root/call_0", "root", "call_0", 0)})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "root/call_0", "root/call_0#2"}))
	})
})

var _ = Describe("ChildNumber", func() {
	DescribeTable("reads back the n ChildID wrote, and nothing else",
		func(id string, want int) {
			Expect(session.ChildNumber(id, "root/call_1", "call_0")).To(Equal(want))
		},
		Entry("the first child", "root/call_1/call_0", 1),
		Entry("a later one", "root/call_1/call_0#12", 12),
		Entry("#1, which ChildID never writes", "root/call_1/call_0#1", 0),
		Entry("a leading 0", "root/call_1/call_0#02", 0),
		Entry("a sign", "root/call_1/call_0#+2", 0),
		Entry("another call whose id starts alike", "root/call_1/call_01", 0),
		Entry("another parent", "root/call_2/call_0", 0),
		Entry("an id of another runtime", "live-7", 0),
	)

	It("is 0 for a child that names no call (a dsh log)", func() {
		Expect(session.ChildNumber("root/", "root", "")).To(BeZero())
	})
})
