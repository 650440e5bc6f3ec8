package playbook_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("what a playbook says is what it plays", func() {
	It("streams every authored usage count, cache and reasoning tokens included", func() {
		cache, reasoning := 4, 3
		d := driverFor(map[string][]*playbook.Turn{"root": {{Text: "OK",
			Usage: &playbook.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: &cache, ReasoningTokens: &reasoning}}}})
		s, err := d.Stream(context.Background(), request(rootRef, 1, 1))
		Expect(err).NotTo(HaveOccurred())
		var a llm.Assembler
		for c := range s {
			a.Add(c)
		}
		Expect(a.Usage()).To(Equal(&session.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: &cache, ReasoningTokens: &reasoning}))
	})

	It("accepts member names in any case, as encoding/json reads them", func() {
		pb, err := playbook.Parse([]byte(`{"Sessions":{"root":[{"Text":"hi","TOOLCALLS":[{"ID":"c1","Name":"add"}]}],"c1":[{"text":"x"}]}}`), "pb.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(pb.Sessions["root"][0].Text).To(Equal("hi"))
		Expect(pb.Sessions["root"][0].ToolCalls[0].ID).To(Equal("c1"))
	})

	It("reports calls without ids as lacking them, not as sharing an id", func() {
		_, err := playbook.Parse([]byte(`{"sessions":{"root":[{"toolCalls":[{"name":"add"},{"name":"add"}]}]}}`), "pb.json")
		Expect(err).To(MatchError(
			"playbook: pb.json: invalid playbook: sessions.root[0].toolCalls[0]: id and name are required; sessions.root[0].toolCalls[1]: id and name are required"))
	})
})
