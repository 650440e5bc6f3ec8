package scenario_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/scenario"
)

// run calls the named tool of the scenario's registry with arguments.
func run(sc *scenario.Scenario, name, args string) agent.Result {
	GinkgoHelper()
	r, err := sc.Registry()
	Expect(err).NotTo(HaveOccurred())
	t, ok := r.Get(name)
	Expect(ok).To(BeTrue(), "tool %s", name)
	return t.Run(context.Background(), &agent.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(args)})
}

var _ = Describe("the tool catalogue", func() {
	It("lists its tools sorted", func() {
		Expect(scenario.ToolNames()).To(Equal([]string{"add", "lookup", agent.ForkToolName, agent.SpawnToolName}))
	})

	It("builds the registry in the order agent.tools names the tools", func() {
		sc := &scenario.Scenario{Agent: scenario.Agent{Tools: []string{"lookup", agent.SpawnToolName, "add", agent.ForkToolName}}}
		r, err := sc.Registry()
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Names()).To(Equal([]string{"lookup", agent.SpawnToolName, "add", agent.ForkToolName}))
		for _, spec := range r.Specs() {
			Expect(spec.Description).NotTo(BeEmpty(), spec.Name)
			Expect(spec.Parameters).To(ContainSubstring(`"type":"object"`), spec.Name)
		}
	})

	It("offers no tools for an empty list", func() {
		r, err := (&scenario.Scenario{}).Registry()
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Names()).To(BeEmpty())
	})

	It("refuses an unknown tool, listing the known ones", func() {
		_, err := (&scenario.Scenario{Agent: scenario.Agent{Tools: []string{"add", "grep"}}}).Registry()
		Expect(err).To(MatchError(`scenario: unknown tool "grep"; known tools: add, lookup, subagent_fork, subagent_spawn`))
	})

	It("refuses a tool listed twice", func() {
		_, err := (&scenario.Scenario{Agent: scenario.Agent{Tools: []string{"add", "add"}}}).Registry()
		Expect(err).To(MatchError(ContainSubstring(`scenario: agent: tool "add" registered twice`)))
	})

	Describe("lookup", func() {
		sc := &scenario.Scenario{
			Agent: scenario.Agent{Tools: []string{"lookup"}},
			Data:  scenario.Data{"release": "v2.4.1", "codename": "marmalade"},
		}

		It("answers from the scenario's data", func() {
			Expect(run(sc, "lookup", `{"key":"release"}`)).To(Equal(agent.Result{Text: "v2.4.1"}))
		})

		It("returns an error result listing the known keys for an unknown key", func() {
			Expect(run(sc, "lookup", `{"key":"version"}`)).To(Equal(agent.Result{
				Text: `no fact with key "version"; known keys: codename, release`, IsError: true,
			}))
		})

		It("says there are no facts when the scenario has no data", func() {
			empty := &scenario.Scenario{Agent: scenario.Agent{Tools: []string{"lookup"}}}
			Expect(run(empty, "lookup", `{"key":"release"}`)).To(Equal(agent.Result{
				Text: `no fact with key "release"; there are no facts`, IsError: true,
			}))
		})

		It("reads the data at call time, so a scenario edited after Registry is seen", func() {
			live := &scenario.Scenario{Agent: scenario.Agent{Tools: []string{"lookup"}}, Data: scenario.Data{}}
			r, err := live.Registry()
			Expect(err).NotTo(HaveOccurred())
			live.Data["late"] = "yes"
			t, _ := r.Get("lookup")
			Expect(t.Run(context.Background(), &agent.Call{Arguments: json.RawMessage(`{"key":"late"}`)})).To(Equal(agent.Result{Text: "yes"}))
		})
	})

	DescribeTable("add sums two numbers",
		func(args, want string) {
			sc := &scenario.Scenario{Agent: scenario.Agent{Tools: []string{"add"}}}
			Expect(run(sc, "add", args)).To(Equal(agent.Result{Text: want}))
		},
		Entry("integers", `{"a":2,"b":3}`, "5"),
		Entry("fractions", `{"a":2,"b":3.5}`, "5.5"),
		Entry("negatives", `{"a":-1,"b":1}`, "0"),
		Entry("large numbers without an exponent", `{"a":1000000,"b":2000000}`, "3000000"),
	)

	It("gives add's bad arguments back as an error result", func() {
		sc := &scenario.Scenario{Agent: scenario.Agent{Tools: []string{"add"}}}
		res := run(sc, "add", `{"a":"two","b":3}`)
		Expect(res.IsError).To(BeTrue())
		Expect(res.Text).To(ContainSubstring("cannot unmarshal string"))
	})
})

var _ = Describe("Configure", func() {
	It("sets what the scenario decides and leaves the rest of the config alone", func() {
		sc := &scenario.Scenario{
			Prompts:     []string{"hi"},
			Agent:       scenario.Agent{Preset: "careful", System: "be careful", Tools: []string{agent.SpawnToolName, "add"}},
			MaxDepth:    3,
			Serial:      true,
			MaxAttempts: 2,
		}
		cfg := agent.Config{Model: "kept", MaxSteps: 9}
		Expect(sc.Configure(&cfg)).To(Succeed())
		Expect(cfg.System).To(Equal("be careful"))
		Expect(cfg.Preset).To(Equal("careful"))
		Expect(cfg.Tools.Names()).To(Equal([]string{agent.SpawnToolName, "add"}))
		Expect(cfg.MaxDepth).To(Equal(3))
		Expect(cfg.Serial).To(BeTrue())
		Expect(cfg.Retry.MaxAttempts).To(Equal(2))
		Expect(cfg.Model).To(Equal("kept"))
		Expect(cfg.MaxSteps).To(Equal(9))
	})

	It("fails on an unknown tool and leaves the config untouched", func() {
		sc := &scenario.Scenario{Agent: scenario.Agent{System: "s", Tools: []string{"nope"}}}
		cfg := agent.Config{System: "before"}
		Expect(sc.Configure(&cfg)).To(MatchError(ContainSubstring(`unknown tool "nope"`)))
		Expect(cfg.System).To(Equal("before"))
		Expect(cfg.Tools).To(BeNil())
	})
})
