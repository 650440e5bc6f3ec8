package playbook_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a token count of a playbook recording", func() {
	It("is the input tokens the playbook reports for a call of the request, paced or not, and uses no turn", func() {
		d := driverFor(map[string][]*playbook.Turn{"root": {{Text: "one"}}})
		req := request(rootRef, 1, 1)
		req.System = "You count your tokens."
		n, err := llm.CountTokens(context.Background(), d, req)
		Expect(err).NotTo(HaveOccurred())
		paced, err := llm.CountTokens(context.Background(), llm.Paced(d, time.Millisecond), req)
		Expect(err).NotTo(HaveOccurred())
		Expect(paced).To(Equal(n))

		s, err := d.Stream(context.Background(), req)
		Expect(err).NotTo(HaveOccurred(), "the count used no turn")
		var usage *session.Usage
		for c := range s {
			if c.Usage != nil {
				usage = c.Usage
			}
		}
		Expect(usage).NotTo(BeNil())
		Expect(n).To(Equal(int64(usage.InputTokens)))
		Expect(d.Unused()).To(Succeed())
	})
})
