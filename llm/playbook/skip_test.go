package playbook_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
)

var _ = Describe("Driver.Skip", func() {
	It("counts a call answered elsewhere, so the session's next call gets the turn after it and Unused counts it", func() {
		d := driverFor(map[string][]*playbook.Turn{
			"root":   {{Text: "one"}, {ToolCalls: []playbook.ToolCall{spawnCall("call_a")}}, {Text: "three"}},
			"call_a": {{Text: "alpha"}},
		})
		d.Skip(request(rootRef, 1, 1))
		s, err := d.Stream(context.Background(), request(rootRef, 2, 1))
		Expect(err).NotTo(HaveOccurred())
		var a llm.Assembler
		for c := range s {
			a.Add(c)
		}
		m := a.Message()
		Expect(m.ToolCalls()).To(ConsistOf(HaveField("ID", "call_a")), "the second turn: the spawn")
		d.Skip(request(childRef("s-a", "call_a"), 1, 1))
		Expect(d.Unused()).To(MatchError(ContainSubstring("sessions.root used 2 of 3 turns")))
		Expect(d.Unused()).NotTo(MatchError(ContainSubstring("call_a")))
		Expect(answer(d, request(rootRef, 3, 1))).To(Equal("three"))
		Expect(d.Unused()).To(Succeed())
	})
})
