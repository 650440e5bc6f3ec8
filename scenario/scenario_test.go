package scenario_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/scenario"
)

// minimal is the smallest valid scenario.json.
const minimal = `{"description":"d","prompts":["hello"],"agent":{"preset":"default","system":"s","tools":["subagent_spawn"]}}`

var _ = Describe("Parse", func() {
	It("decodes every member", func() {
		sc, err := scenario.Parse([]byte(`{
  "description": "a scenario",
  "prompts": ["turn 1", "turn 2"],
  "agent": {"preset": "default", "system": "be brief", "tools": ["lookup", "subagent_fork"]},
  "maxDepth": 3,
  "turnTimeout": "1.5s",
  "serial": true,
  "maxAttempts": 2,
  "data": {"release": "v2.4.1"},
  "recorded": {"provider": "openai", "model": "m", "at": "2026-01-02T03:04:05Z", "by": "agentsnap v0.1.0"}
}`), "scenario.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(sc).To(Equal(&scenario.Scenario{
			Description: "a scenario",
			Prompts:     []string{"turn 1", "turn 2"},
			Agent:       json.RawMessage(`{"preset": "default", "system": "be brief", "tools": ["lookup", "subagent_fork"]}`),
			MaxDepth:    3,
			TurnTimeout: scenario.Duration(1500 * time.Millisecond),
			Serial:      true,
			MaxAttempts: 2,
			Data:        scenario.Data{"release": "v2.4.1"},
			Recorded:    &scenario.Recorded{Provider: "openai", Model: "m", At: "2026-01-02T03:04:05Z", By: "agentsnap v0.1.0"},
		}))
	})

	DescribeTable("refuses a bad scenario.json, naming the file and the line",
		func(text, want string) {
			_, err := scenario.Parse([]byte(text), "fixtures/fork/x/scenario.json")
			Expect(err).To(MatchError(scenario.ErrInvalid))
			Expect(err).To(MatchError("scenario: fixtures/fork/x/scenario.json: invalid scenario: " + want))
		},
		Entry("broken JSON",
			"{\n  \"description\": \"d\",\n  \"prompts\": [\"a\",]\n}",
			`line 3: invalid character ']' looking for beginning of value`),
		Entry("a member of the wrong type",
			"{\n  \"description\": \"d\",\n  \"prompts\": \"hello\",\n  \"agent\": {}\n}",
			`line 3: prompts: want []string, found JSON string`),
		Entry("a nested member of the wrong type",
			"{\n  \"prompts\": [\"a\"],\n  \"recorded\": {\n    \"model\": \"m\",\n    \"at\": 7}\n}",
			`line 5: recorded.at: want string, found JSON number`),
		Entry("an agent that is not an object",
			"{\"prompts\": [\"a\"], \"agent\": [\"lookup\"]}",
			`line 1: "agent" must be a JSON object (the runtime's settings)`),
		Entry("a turnTimeout that is no duration",
			"{\n  \"prompts\": [\"a\"],\n  \"turnTimeout\": \"5 minutes\"\n}",
			`line 3: turnTimeout: "5 minutes" is not a duration such as "500ms"`),
		Entry("a negative turnTimeout",
			"{\"prompts\": [\"a\"], \"turnTimeout\": \"-1s\"}",
			`line 1: turnTimeout: "-1s" is not a duration such as "500ms"`),
		Entry("a turnTimeout given as a number",
			"{\"prompts\": [\"a\"],\n\"turnTimeout\": 500}",
			`line 2: turnTimeout: want a duration string such as "500ms"`),
		Entry("an unknown member inside recorded, which Save could not keep",
			"{\"prompts\": [\"a\"],\n\"recorded\": {\"model\": \"p\", \"runner\": \"gpt\"}}",
			`line 2: recorded: unknown member "runner"; known members: provider, model, at, by, runtime, playbook, lineage`),
		Entry("a known member spelt in another case",
			"{\"Prompts\": [\"a\"]}",
			`line 1: "Prompts": member names are case-sensitive; write "prompts"`),
		Entry("every member problem at once",
			"{\"prompts\": 1,\n\"maxDepth\": \"2\"}",
			`line 1: prompts: want []string, found JSON number; line 2: maxDepth: want int, found JSON string`),
		Entry("not an object", `["a"]`, `line 1: want a JSON object such as {"prompts": ["..."]}, found an array`),
		Entry("trailing data", minimal+"\n{}", `line 2: invalid character '{' after top-level value`),
	)

	It("hands the agent member over as it is written, for the runtime to read", func() {
		sc, err := scenario.Parse([]byte(`{"prompts":["a"],"agent":{"model":"mine","tools":[{"name":"weather"}]}}`), "s.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(sc.Agent)).To(Equal(`{"model":"mine","tools":[{"name":"weather"}]}`))
	})

	DescribeTable("warns about an unknown member that looks like a misspelt known one",
		func(text, want string) {
			sc, err := scenario.Parse([]byte(text), "x/scenario.json")
			Expect(err).NotTo(HaveOccurred())
			Expect(sc.Warnings).To(Equal([]string{want}))
		},
		Entry("maxDeph", "{\"prompts\": [\"a\"],\n\"maxDeph\": 1}", `x/scenario.json:2: unknown member "maxDeph" is kept but not used; did you mean "maxDepth"?`),
		Entry("turnTimout", `{"prompts": ["a"], "turnTimout": "1s"}`, `x/scenario.json:1: unknown member "turnTimout" is kept but not used; did you mean "turnTimeout"?`),
		Entry("promts", `{"promts": ["a"], "prompts": ["b"]}`, `x/scenario.json:1: unknown member "promts" is kept but not used; did you mean "prompts"?`),
	)

	It("does not warn about an unknown member far from every known one", func() {
		sc, err := scenario.Parse([]byte(`{"prompts":["a"],"owner":"team-a","ticket":"X-1"}`), "s.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Warnings).To(BeEmpty())
	})

	It("keeps unknown top-level members in Extra", func() {
		sc, err := scenario.Parse([]byte(`{"prompts":["a"],"owner":"team-a","notes":{"why":[1,2]}}`), "s.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Extra).To(HaveLen(2))
		Expect(sc.Extra["owner"]).To(MatchJSON(`"team-a"`))
		Expect(sc.Extra["notes"]).To(MatchJSON(`{"why":[1,2]}`))
	})
})

var _ = Describe("Validate", func() {
	valid := func() *scenario.Scenario {
		return &scenario.Scenario{Prompts: []string{"hi"}, Agent: json.RawMessage(`{"tools":["subagent_spawn","lookup"]}`)}
	}

	It("accepts a valid scenario", func() {
		Expect(valid().Validate()).To(Succeed())
	})

	DescribeTable("names each problem",
		func(edit func(*scenario.Scenario), want string) {
			sc := valid()
			edit(sc)
			err := sc.Validate()
			Expect(err).To(MatchError(scenario.ErrInvalid))
			Expect(err).To(MatchError("invalid scenario: " + want))
		},
		Entry("no prompts", func(sc *scenario.Scenario) { sc.Prompts = nil },
			`"prompts" is empty; give at least one user turn`),
		Entry("a blank prompt", func(sc *scenario.Scenario) { sc.Prompts = []string{"a", " \n\t"} },
			`prompts[1] is empty`),
		Entry("a negative maxDepth", func(sc *scenario.Scenario) { sc.MaxDepth = -1 },
			`maxDepth is -1; use 1 to 64 (0 means the default, 2)`),
		Entry("a negative maxAttempts", func(sc *scenario.Scenario) { sc.MaxAttempts = -2 },
			`maxAttempts is -2; use 1 to 100 (0 means 1)`),
		Entry("several problems at once", func(sc *scenario.Scenario) { sc.Prompts = []string{""}; sc.MaxDepth = -3 },
			`prompts[0] is empty; maxDepth is -3; use 1 to 64 (0 means the default, 2)`),
	)

	It("is applied by Parse, with the file named", func() {
		_, err := scenario.Parse([]byte(`{"prompts":[],"maxDepth":-1}`), "x/scenario.json")
		Expect(err).To(MatchError(scenario.ErrInvalid))
		Expect(err).To(MatchError(`scenario: x/scenario.json: invalid scenario: line 1: "prompts" is empty; give at least one user turn; line 1: maxDepth is -1; use 1 to 64 (0 means the default, 2)`))
	})

	It("names a misspelt member when the refusal it causes does not", func() {
		_, err := scenario.Parse([]byte("{\n  \"prompt\": [\"Hi.\"]\n}"), "x/scenario.json")
		Expect(err).To(MatchError(`scenario: x/scenario.json: invalid scenario: "prompts" is empty; give at least one user turn; line 2: unknown member "prompt"; did you mean "prompts"?`))
	})
})

var _ = Describe("Load and Save", func() {
	It("tells how to create a missing scenario.json", func() {
		dir := GinkgoT().TempDir()
		_, err := scenario.Load(dir)
		Expect(err).To(MatchError("scenario: " + dir + ": no scenario.json; create one with: agentsnap new CATEGORY/NAME"))
	})

	It("names the file in a parse error", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte("{\n\"prompts\": [1]}"), 0o644)).To(Succeed())
		_, err := scenario.Load(dir)
		Expect(err).To(MatchError(`scenario: ` + filepath.Join(dir, scenario.File) + `: invalid scenario: line 2: prompts: want string, found JSON number`))
	})

	It("keeps unknown members through Save, after the known ones, in a fixed layout", func() {
		dir := GinkgoT().TempDir()
		in := `{"zeta": true, "prompts": ["Say <OK> & stop"], "owner": {"team": "a"},
		        "description": "d", "agent": {"preset": "p", "system": "s", "tools": ["add"]}, "turnTimeout": "2s"}`
		sc, err := scenario.Parse([]byte(in), "in.json")
		Expect(err).NotTo(HaveOccurred())
		sc.Recorded = &scenario.Recorded{Model: "m", At: "t", By: "b"}
		Expect(sc.Save(dir)).To(Succeed())

		b, err := os.ReadFile(filepath.Join(dir, scenario.File))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{
  "description": "d",
  "prompts": [
    "Say <OK> & stop"
  ],
  "agent": {
    "preset": "p",
    "system": "s",
    "tools": [
      "add"
    ]
  },
  "turnTimeout": "2s",
  "recorded": {
    "model": "m",
    "at": "t",
    "by": "b"
  },
  "owner": {
    "team": "a"
  },
  "zeta": true
}
`))
		back, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Extra).To(HaveLen(2))
		Expect(back.Extra["owner"]).To(MatchJSON(sc.Extra["owner"]))
		Expect(back.Extra["zeta"]).To(MatchJSON(`true`))
		Expect(back.Agent).To(MatchJSON(sc.Agent))
		back.Extra, sc.Extra = nil, nil // layout of the raw values differs
		back.Agent, sc.Agent = nil, nil
		Expect(back).To(Equal(sc))
	})

	It("round-trips a scenario with every member set", func() {
		dir := GinkgoT().TempDir()
		sc := &scenario.Scenario{
			Description: "all", Prompts: []string{"a", "b"},
			Agent:    json.RawMessage(`{"preset":"p","system":"s","tools":["lookup","add","subagent_spawn","subagent_fork"]}`),
			MaxDepth: 4, TurnTimeout: scenario.Duration(250 * time.Millisecond), Serial: true, MaxAttempts: 3,
			Data:     scenario.Data{"k": "v"},
			Recorded: &scenario.Recorded{Provider: "openai", Model: "m", At: "t", By: "b"},
		}
		Expect(sc.Save(dir)).To(Succeed())
		back, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Agent).To(MatchJSON(sc.Agent))
		back.Agent = sc.Agent // indented by Save
		Expect(back).To(Equal(sc), "a member Parse does not decode would land in Extra")
	})

	It("does not write a known member that Extra repeats", func() {
		sc := &scenario.Scenario{Prompts: []string{"real"}, Extra: map[string]json.RawMessage{"prompts": json.RawMessage(`["shadow"]`)}}
		b, err := sc.Encode()
		Expect(err).NotTo(HaveOccurred())
		back, err := scenario.Parse(b, "enc.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Prompts).To(Equal([]string{"real"}))
	})
})

var _ = Describe("Duration", func() {
	DescribeTable("is written as a Go duration string",
		func(d time.Duration, want string) {
			b, err := json.Marshal(scenario.Duration(d))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(Equal(want))
		},
		Entry("zero", time.Duration(0), `"0s"`),
		Entry("milliseconds", 500*time.Millisecond, `"500ms"`),
		Entry("minutes and seconds", 90*time.Second, `"1m30s"`),
	)

	DescribeTable("reads a Go duration string",
		func(text string, want time.Duration) {
			var d scenario.Duration
			Expect(json.Unmarshal([]byte(text), &d)).To(Succeed())
			Expect(time.Duration(d)).To(Equal(want))
		},
		Entry("milliseconds", `"300ms"`, 300*time.Millisecond),
		Entry("hours", `"1h"`, time.Hour),
		Entry("zero", `"0s"`, time.Duration(0)),
	)

	DescribeTable("refuses what is not a non-negative duration string",
		func(text, want string) {
			var d scenario.Duration
			Expect(json.Unmarshal([]byte(text), &d)).To(MatchError(want))
		},
		Entry("a number", `500`, `want a duration string such as "500ms"`),
		Entry("words", `"half a second"`, `"half a second" is not a duration such as "500ms"`),
		Entry("a negative duration", `"-5s"`, `"-5s" is not a duration such as "500ms"`),
	)

	It("is left out of scenario.json when zero", func() {
		b, err := (&scenario.Scenario{Prompts: []string{"a"}}).Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).NotTo(ContainSubstring("turnTimeout"))
	})
})
