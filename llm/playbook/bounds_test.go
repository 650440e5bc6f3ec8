package playbook_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/playbook"
)

var _ = Describe("an authored usage", func() {
	DescribeTable("is bounded, naming the field and the range",
		func(usage, want string) {
			_, err := playbook.Parse([]byte(`{"sessions":{"root":[{"text":"a","usage":`+usage+`}]}}`), "pb.json")
			Expect(err).To(MatchError(playbook.ErrInvalid))
			Expect(err).To(MatchError("playbook: pb.json: invalid playbook: " + want))
		},
		Entry("a negative count", `{"inputTokens":3,"outputTokens":-1}`, "sessions.root[0].usage.outputTokens: -1; a token count is 0 to 1000000000"),
		Entry("one too many", `{"inputTokens":1000000001,"outputTokens":1}`, "sessions.root[0].usage.inputTokens: 1000000001; a token count is 0 to 1000000000"),
		Entry("an optional count", `{"inputTokens":1,"outputTokens":1,"reasoningTokens":-2}`, "sessions.root[0].usage.reasoningTokens: -2; a token count is 0 to 1000000000"),
	)

	It("takes the largest count", func() {
		_, err := playbook.Parse([]byte(`{"sessions":{"root":[{"text":"a","usage":{"inputTokens":1000000000,"outputTokens":0,"cacheReadTokens":0}}]}}`), "pb.json")
		Expect(err).NotTo(HaveOccurred())
	})
})
