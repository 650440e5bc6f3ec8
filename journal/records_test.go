package journal_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("tool records whose calls got no tool/result", func() {
	It("are written at the step's end in call id order, whatever order the tools ran in", func() {
		j := newRoot(memory.New())
		j.StartTurn(journal.TriggerUser, journal.UserText("look many things up"))
		var ids []string
		for i := range 12 {
			ids = append(ids, fmt.Sprintf("call_%02d", i))
		}
		calls := lookups(j, ids...)
		for i := len(calls) - 1; i >= 0; i-- { // run last to first, none answered
			_, err := j.Tool(ctx, calls[i], func(context.Context) session.ToolOutput { return session.ToolOutput{Text: calls[i].ID} })
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(j.EndStep(ctx)).To(Succeed())
		var got []string
		for _, d := range recordsOf(logOf(j)) {
			got = append(got, d.CallID)
		}
		Expect(got).To(Equal(ids))
	})
})
