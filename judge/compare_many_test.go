package judge_test

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// A tree of a root and n spawned children, each child's one event saying
// text(i).
func wideTree(n int, text func(i int) string) []*session.Log {
	root := &session.Log{Header: session.Header{ID: "root", AgentPreset: "default"}}
	logs := []*session.Log{root}
	for i := range n {
		call := fmt.Sprintf("call_%d", i)
		data, _ := json.Marshal(map[string]string{"note": text(i)})
		root.Events = append(root.Events, session.Event{Type: "x/delegate", Seq: int64(i), Data: json.RawMessage(fmt.Sprintf(`{"call":%q}`, call))})
		logs = append(logs, &session.Log{
			Header: session.Header{ID: "root/" + call, ParentSession: "root", ParentCallID: call, Mode: session.ModeSpawn, Origin: session.OriginSubagent, DelegationDepth: 1, AgentPreset: "default"},
			Events: []session.Event{{Type: "x/note", Seq: 0, Data: data}},
		})
	}
	return logs
}

// Trees of many sessions are compared on every processor: the differences
// are still each differing session's first, in the recording's order.
var _ = Describe("comparing trees of many sessions", func() {
	It("finds the difference of each session that differs, in lineage order, as for a few", func() {
		for _, n := range []int{5, 300} {
			golden := wideTree(n, func(i int) string { return "same" })
			replay := wideTree(n, func(i int) string {
				if i == 3 || i == n-1 {
					return fmt.Sprintf("changed %d", i)
				}
				return "same"
			})
			ds := judge.CompareLogs(golden, replay)
			Expect(ds).To(HaveLen(2), "n=%d", n)
			Expect(ds[0].Session).To(Equal("session 4"))
			Expect(ds[0].Replay).To(Equal(`"changed 3"`))
			Expect(ds[1].Session).To(Equal(fmt.Sprintf("session %d", n)))
			Expect(ds[1].Replay).To(Equal(fmt.Sprintf(`"changed %d"`, n-1)))
			Expect(ds[1].Lineage).To(Equal(fmt.Sprintf("spawn of root via call_%d", n-1)), "its parent named by its place, looked up among many")
			Expect(judge.CompareLogs(golden, golden)).To(BeEmpty())
		}
	})
})

// The verdict counts the model calls of a tree of many sessions on every
// processor: the count is still every session's, each once.
var _ = Describe("counting the model calls of trees of many sessions", func() {
	It("counts each session's calls once, as for a few", func() {
		for _, n := range []int{5, 63, 64, 300} {
			logs := wideTree(n, func(int) string { return "same" })
			want := 0
			for i, l := range logs {
				calls := i%3 + 1 // 1 to 3 a session, so a session counted twice or not at all shows
				for k := range calls {
					header, err := session.NewEvent(session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: k + 1, Provider: "p", Model: "m"})
					Expect(err).NotTo(HaveOccurred())
					header.Seq = int64(len(l.Events))
					l.Events = append(l.Events, header)
				}
				Expect(l.CountModelCalls()).To(Equal(calls))
				want += calls
			}
			Expect(judge.CountCalls(logs)).To(Equal(want), "%d sessions", n+1)
		}
	})
})
