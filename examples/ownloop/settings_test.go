package ownloop_test

import (
	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/ownloop"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func parse(agent string) (*scenario.Scenario, error) {
	return scenario.Parse([]byte(`{"prompts": ["hi"], "agent": `+agent+`}`), "scenario.json")
}

var _ = Describe("ownloop's settings (scenario.json agent member)", func() {
	It("names itself, so a fixture it recorded is replayed with it only", func() {
		Expect(agentsnap.NameOf(ownloop.Runtime{})).To(Equal("ownloop"))
	})

	It("reads its own format, with the default depth limit", func() {
		sc, err := parse(`{"persona": "P", "tools": ["convert", "subagent_fork"]}`)
		Expect(err).NotTo(HaveOccurred())
		set, warnings, err := ownloop.ParseSettings(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(warnings).To(BeEmpty())
		Expect(*set).To(Equal(ownloop.Settings{Persona: "P", Tools: []string{"convert", "subagent_fork"}, MaxDepth: ownloop.DefaultMaxDepth}))
	})

	It("falls back on scenario.json's shared maxDepth, and warns when agent.maxDepth overrides it", func() {
		sc, err := scenario.Parse([]byte(`{"prompts": ["hi"], "maxDepth": 3, "agent": {"tools": ["subagent_fork"]}}`), "scenario.json")
		Expect(err).NotTo(HaveOccurred())
		set, warnings, err := ownloop.ParseSettings(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(warnings).To(BeEmpty())
		Expect(set.MaxDepth).To(Equal(3))

		sc.Agent = []byte(`{"maxDepth": 1}`)
		set, warnings, err = ownloop.ParseSettings(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(set.MaxDepth).To(Equal(1))
		Expect(warnings).To(ConsistOf("scenario.json: maxDepth 3 is ignored: agent.maxDepth 1 is ownloop's depth limit"))
	})

	DescribeTable("warns about a setting it does not know, naming the closest one",
		func(agent, want string) {
			sc, err := parse(agent)
			Expect(err).NotTo(HaveOccurred())
			warnings, err := ownloop.Runtime{}.Validate(sc)
			Expect(err).NotTo(HaveOccurred())
			Expect(warnings).To(ConsistOf(ContainSubstring(want)))
		},
		Entry("a misspelling", `{"persona": "P", "maxDeph": 3}`, `agent.maxDeph is not an ownloop setting and is ignored (its settings: persona, tools, maxDepth); did you mean "maxDepth"?`),
		Entry("the reference runtime's setting", `{"system": "S"}`, `agent.system is not an ownloop setting`),
	)

	DescribeTable("refuses tools it does not have, every problem at once",
		func(agent string, want ...string) {
			sc, err := parse(agent)
			Expect(err).NotTo(HaveOccurred())
			_, err = ownloop.Runtime{}.Validate(sc)
			Expect(err).To(MatchError(scenario.ErrInvalid))
			for _, w := range want {
				Expect(err.Error()).To(ContainSubstring(w))
			}
		},
		Entry("an unknown tool, with the closest name", `{"tools": ["convert", "wordcont", "lookup"]}`,
			`agent.tools[1]: unknown tool "wordcont"; ownloop's tools: convert, wordcount, subagent_spawn, subagent_fork (did you mean "wordcount"?)`,
			`agent.tools[2]: unknown tool "lookup"`),
		Entry("a tool listed twice", `{"tools": ["convert", "convert"]}`, `agent.tools[1]: "convert" is already agent.tools[0]`),
		Entry("a negative depth", `{"maxDepth": -1}`, `agent.maxDepth is -1`),
	)
})
