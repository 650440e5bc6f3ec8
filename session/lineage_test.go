package session_test

import (
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("LineageIDs", func() {
	It("names roots in creation order and children by their lineage", func() {
		ids := session.NewLineageIDs("")
		Expect(ids.Root()).To(Equal("root"))
		Expect(ids.Root()).To(Equal("root-2"))
		Expect(ids.Child("root", "call_1")).To(Equal("root/call_1"))
		Expect(ids.Child("root/call_1", "call_1")).To(Equal("root/call_1/call_1"))
		Expect(ids.Child("root-2", "call_1")).To(Equal("root-2/call_1"))
	})

	It("numbers the children of a call id its parent reuses from the second on", func() {
		ids := session.NewLineageIDs("r")
		Expect([]string{ids.Child("r", "call_0"), ids.Child("r", "call_1"), ids.Child("r", "call_0"), ids.Child("r", "call_0")}).
			To(Equal([]string{"r/call_0", "r/call_1", "r/call_0#2", "r/call_0#3"}))
		Expect(session.ChildID("r", "call_0", 3)).To(Equal("r/call_0#3"))
	})

	It("gives siblings created at once the names a serial run gives them", func() {
		ids := session.NewLineageIDs("")
		got := make([]string, 8)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() { got[i] = ids.Child("root", fmt.Sprintf("call_%d", i)) })
		}
		wg.Wait()
		for i, id := range got {
			Expect(id).To(Equal(fmt.Sprintf("root/call_%d", i)))
		}
	})
})

// repeatedTree is a root that calls call_0 in turn 1, then call_0 again and
// call_1 in turn 2, with one child per call, all created at the same time
// (a replay's fixed clock) and listed in creation order; the second child
// of call_0 has a child of its own.
func repeatedTree() []*session.Log {
	events := turnEvents(0, 1, "call_0")
	events = append(events, turnEvents(len(events), 2, "call_0", "call_1")...)
	root := &session.Log{Header: session.Header{ID: "root"}, Events: events}
	return []*session.Log{
		root,
		treeLog("a", "root", "call_0", 0),
		treeLog("b", "root", "call_0", 0, "call_0"),
		treeLog("c", "root", "call_1", 0),
		treeLog("b1", "b", "call_0", 0),
	}
}

var _ = Describe("LineageOrder with a repeated call id", func() {
	It("places each child of a reused id at that id's occurrence, in creation order", func() {
		logs := repeatedTree()
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "a", "b", "b1", "c"}))

		// createdAt ties: the first child of call_0 listed takes its first call.
		ordered, err = session.LineageOrder([]*session.Log{logs[3], logs[2], logs[0], logs[4], logs[1]})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "b", "b1", "a", "c"}))
	})

	It("lets createdAt say which child came first", func() {
		logs := repeatedTree()
		logs[1].Header.CreatedAt, logs[2].Header.CreatedAt = 20, 10
		ordered, err := session.LineageOrder(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ordered)).To(Equal([]string{"root", "b", "b1", "a", "c"}))
	})
})

var _ = Describe("LineageKeys", func() {
	It("names sessions by lineage, a reused call id's later children with #n, whatever their ids", func() {
		ordered, err := session.LineageOrder(repeatedTree())
		Expect(err).NotTo(HaveOccurred())
		Expect(session.LineageKeys(ordered)).To(Equal(map[string]string{
			"root": "root",
			"a":    "root/call_0",
			"b":    "root/call_0#2",
			"b1":   "root/call_0#2/call_0",
			"c":    "root/call_1",
		}))
	})

	It("gives a run that names its sessions with LineageIDs its own ids", func() {
		ordered, err := session.LineageOrder(repeatedTree())
		Expect(err).NotTo(HaveOccurred())
		keys := session.LineageKeys(ordered)
		ids := session.NewLineageIDs("")
		names := map[string]string{}
		for _, l := range ordered {
			if l.Header.ParentSession == "" {
				names[l.Header.ID] = ids.Root()
				continue
			}
			names[l.Header.ID] = ids.Child(names[l.Header.ParentSession], l.Header.ParentCallID)
		}
		Expect(keys).To(Equal(names))
	})

	It("numbers children without a parentCallId (dsh logs) among their parent's", func() {
		ordered, err := session.LineageOrder([]*session.Log{
			treeLog("root", "", "", 0),
			treeLog("a", "root", "", 1),
			treeLog("b", "root", "", 2),
			treeLog("c", "root", "call_x", 3),
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(session.LineageKeys(ordered)).To(Equal(map[string]string{
			"root": "root", "a": "root/#1", "b": "root/#2", "c": "root/call_x",
		}))
	})
})
