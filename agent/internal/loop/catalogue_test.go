package loop_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/scenario"
)

// tools returns the registry the reference runtime builds for sc.
func tools(sc *scenario.Scenario) (*loop.Registry, error) {
	a, _, err := loop.ParseScenarioAgent(sc)
	if err != nil {
		return nil, err
	}
	var cfg loop.Config
	if err := a.Configure(&cfg, sc); err != nil {
		return nil, err
	}
	return cfg.Tools, nil
}

// withTools is a scenario whose agent offers the named tools.
func withTools(names ...string) *scenario.Scenario {
	b, _ := json.Marshal(map[string]any{"tools": names})
	return &scenario.Scenario{Prompts: []string{"go"}, Agent: b}
}

// run calls the named tool of the scenario's registry with arguments.
func run(sc *scenario.Scenario, name, args string) loop.Result {
	GinkgoHelper()
	r, err := tools(sc)
	Expect(err).NotTo(HaveOccurred())
	t, ok := r.Get(name)
	Expect(ok).To(BeTrue(), "tool %s", name)
	return t.Run(context.Background(), &loop.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(args)})
}

var _ = Describe("the tool catalogue", func() {
	It("lists its tools sorted", func() {
		Expect(loop.CatalogueTools()).To(Equal([]string{"add", "lookup", loop.ForkToolName, loop.SpawnToolName}))
	})

	It("builds the registry in the order agent.tools names the tools", func() {
		sc := withTools("lookup", loop.SpawnToolName, "add", loop.ForkToolName)
		r, err := tools(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Names()).To(Equal([]string{"lookup", loop.SpawnToolName, "add", loop.ForkToolName}))
		for _, spec := range r.Specs() {
			Expect(spec.Description).NotTo(BeEmpty(), spec.Name)
			Expect(spec.Parameters).To(ContainSubstring(`"type":"object"`), spec.Name)
		}
	})

	It("offers no tools for an empty list", func() {
		r, err := tools(&scenario.Scenario{Prompts: []string{"go"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Names()).To(BeEmpty())
	})

	It("refuses an unknown tool, listing the known ones", func() {
		_, err := tools(withTools("add", "grep"))
		Expect(err).To(MatchError(`agent: scenario.json: invalid scenario: agent.tools[1]: unknown tool "grep"; known tools: add, lookup, subagent_fork, subagent_spawn`))
	})

	It("refuses a tool listed twice", func() {
		_, err := tools(withTools("add", "add"))
		Expect(err).To(MatchError(ContainSubstring(`agent.tools[1]: "add" is already agent.tools[0]; list each tool once`)))
	})

	Describe("lookup", func() {
		sc := withTools("lookup")
		sc.Data = scenario.Data{"release": "v2.4.1", "codename": "marmalade"}

		It("answers from the scenario's data", func() {
			Expect(run(sc, "lookup", `{"key":"release"}`)).To(Equal(loop.Result{Text: "v2.4.1"}))
		})

		It("returns an error result listing the known keys for an unknown key", func() {
			Expect(run(sc, "lookup", `{"key":"version"}`)).To(Equal(loop.Result{
				Text: `no fact with key "version"; known keys: codename, release`, IsError: true,
			}))
		})

		It("says there are no facts when the scenario has no data", func() {
			empty := withTools("lookup")
			Expect(run(empty, "lookup", `{"key":"release"}`)).To(Equal(loop.Result{
				Text: `no fact with key "release"; there are no facts`, IsError: true,
			}))
		})

		It("reads the data at call time, so a scenario edited after Registry is seen", func() {
			live := withTools("lookup")
			live.Data = scenario.Data{}
			r, err := tools(live)
			Expect(err).NotTo(HaveOccurred())
			live.Data["late"] = "yes"
			t, _ := r.Get("lookup")
			Expect(t.Run(context.Background(), &loop.Call{Arguments: json.RawMessage(`{"key":"late"}`)})).To(Equal(loop.Result{Text: "yes"}))
		})
	})

	DescribeTable("add sums two numbers",
		func(args, want string) {
			sc := withTools("add")
			Expect(run(sc, "add", args)).To(Equal(loop.Result{Text: want}))
		},
		Entry("integers", `{"a":2,"b":3}`, "5"),
		Entry("fractions", `{"a":2,"b":3.5}`, "5.5"),
		Entry("negatives", `{"a":-1,"b":1}`, "0"),
		Entry("large numbers without an exponent", `{"a":1000000,"b":2000000}`, "3000000"),
	)

	It("gives add's bad arguments back as an error result", func() {
		sc := withTools("add")
		res := run(sc, "add", `{"a":"two","b":3}`)
		Expect(res.IsError).To(BeTrue())
		Expect(res.Text).To(ContainSubstring("cannot unmarshal string"))
	})
})

var _ = Describe("the reference runtime's scenario settings", func() {
	It("sets what the scenario decides and leaves the rest of the config alone", func() {
		sc := &scenario.Scenario{
			Prompts:     []string{"hi"},
			Agent:       json.RawMessage(`{"preset":"default","system":"be careful","tools":["subagent_spawn","add"]}`),
			MaxDepth:    3,
			Serial:      true,
			MaxAttempts: 2,
		}
		a, warnings, err := loop.ParseScenarioAgent(sc)
		Expect(err).NotTo(HaveOccurred())
		Expect(warnings).To(BeEmpty())
		cfg := loop.Config{Model: "kept", MaxSteps: 9}
		Expect(a.Configure(&cfg, sc)).To(Succeed())
		Expect(cfg.System).To(Equal("be careful"))
		Expect(cfg.Preset).To(Equal("default"))
		Expect(cfg.Tools.Names()).To(Equal([]string{loop.SpawnToolName, "add"}))
		Expect(cfg.MaxDepth).To(Equal(3))
		Expect(cfg.Serial).To(BeTrue())
		Expect(cfg.Retry.MaxAttempts).To(Equal(2))
		Expect(cfg.Model).To(Equal("kept"))
		Expect(cfg.MaxSteps).To(Equal(9))
	})

	DescribeTable("refuses what it cannot run, naming every problem and the closest tool",
		func(agentJSON, want string) {
			_, _, err := loop.ParseScenarioAgent(&scenario.Scenario{Prompts: []string{"hi"}, Agent: json.RawMessage(agentJSON)})
			Expect(err).To(MatchError(scenario.ErrInvalid))
			Expect(err).To(MatchError("agent: scenario.json: invalid scenario: " + want))
		},
		Entry("an unknown tool", `{"tools":["subagent_spawn","lokup"]}`,
			`agent.tools[1]: unknown tool "lokup"; known tools: add, lookup, subagent_fork, subagent_spawn (did you mean "lookup"?)`),
		Entry("a tool listed twice", `{"tools":["add","lookup","add"]}`,
			`agent.tools[2]: "add" is already agent.tools[0]; list each tool once`),
	)

	DescribeTable("warns about what it ignores, with the closest known name",
		func(agentJSON, want string) {
			_, warnings, err := loop.ParseScenarioAgent(&scenario.Scenario{Prompts: []string{"hi"}, Agent: json.RawMessage(agentJSON)})
			Expect(err).NotTo(HaveOccurred())
			Expect(warnings).To(Equal([]string{want}))
		},
		Entry("a misspelt setting", `{"sytem":"x"}`,
			`scenario.json: agent.sytem is not a setting of the reference runtime and is ignored (its settings: preset, system, tools); did you mean "system"?`),
		Entry("an unknown preset", `{"preset":"defualt"}`,
			`scenario.json: agent.preset "defualt" is not a preset of the reference runtime (known: default); it is recorded as is; did you mean "default"?`),
	)

	It("is checked before a run through agentsnap.Validator", func() {
		v, ok := loop.Reference.(interface {
			Validate(*scenario.Scenario) ([]string, error)
		})
		Expect(ok).To(BeTrue())
		_, err := v.Validate(&scenario.Scenario{Prompts: []string{"hi"}, Agent: json.RawMessage(`{"tools":["nope"]}`)})
		Expect(err).To(MatchError(ContainSubstring(`unknown tool "nope"`)))
	})
})
