package judge_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Drift in the tools names each tool that changed, from the digest per
// tool request/header holds; a header recorded before it held them says
// what it always said.
var _ = Describe("drift in the tools a call offers", func() {
	tool := func(name, description string) llm.ToolSpec {
		return llm.ToolSpec{Name: name, Description: description, Parameters: json.RawMessage(`{"type":"object"}`)}
	}
	recorded := []llm.ToolSpec{tool("search", "Search the web."), tool("lookup", "Look a key up."), tool("add", "Add a and b.")}
	header := func(tools ...llm.ToolSpec) session.RequestHeaderData {
		return llm.RequestHeader("p", &llm.Request{Model: "m", Tools: tools})
	}
	// older is h as written before headers held each tool's digest.
	older := func(h session.RequestHeaderData) session.RequestHeaderData {
		h.ToolDigests = nil
		return h
	}

	DescribeTable("names the tool",
		func(now []llm.ToolSpec, want ...string) {
			Expect(judge.RequestChanges(header(recorded...), header(now...))).To(Equal(want))
		},
		Entry("whose description changed", []llm.ToolSpec{recorded[0], tool("lookup", "Look a key up, fast."), recorded[2]},
			`tool "lookup" changed (its description or parameters)`),
		Entry("whose parameters changed", []llm.ToolSpec{recorded[0], recorded[1], {Name: "add", Description: "Add a and b.", Parameters: json.RawMessage(`{"type":"object","required":["a"]}`)}},
			`tool "add" changed (its description or parameters)`),
		Entry("of each that changed, in the order offered now", []llm.ToolSpec{tool("add", "Sum."), recorded[1], tool("search", "Search.")},
			`tool "add" changed (its description or parameters)`, `tool "search" changed (its description or parameters)`),
		Entry("added and removed, and the one that changed", []llm.ToolSpec{tool("search", "Search."), recorded[1], tool("fetch", "Fetch a page.")},
			"the tools changed (added: fetch; removed: add)", `tool "search" changed (its description or parameters)`),
		Entry("added, as before", append(recorded[:3:3], tool("fetch", "Fetch a page.")),
			"the tools changed (added: fetch; removed: none)"),
		Entry("none, when only the order changed, and says so", []llm.ToolSpec{recorded[2], recorded[0], recorded[1]},
			"the tools are offered in another order (recorded: search, lookup, add; now: add, search, lookup)"),
	)

	It("says what it always said when the recording's header has no digest per tool", func() {
		edited := []llm.ToolSpec{recorded[0], tool("lookup", "Look a key up, fast."), recorded[2]}
		Expect(judge.RequestChanges(older(header(recorded...)), header(edited...))).To(Equal([]string{"a tool's description or parameters changed"}))
		Expect(judge.RequestChanges(older(header(recorded...)), header(append(edited, tool("fetch", "F."))...))).To(Equal([]string{"the tools changed (added: fetch; removed: none)"}))
		Expect(judge.RequestChanges(older(header(recorded...)), header(recorded...))).To(BeEmpty())
	})
})

// The model a call goes to is its provider and its name: either alone
// changing is drift, since the recorded answers came from the other.
var _ = Describe("drift in the model a call asks", func() {
	header := func(provider, model string) session.RequestHeaderData {
		return llm.RequestHeader(provider, &llm.Request{Model: model})
	}

	DescribeTable("names both, as recorded and now",
		func(provider, model, want string) {
			Expect(judge.RequestChanges(header("openai", "m"), header(provider, model))).To(Equal([]string{want}))
		},
		Entry("another provider, the same model name", "deepseek", "m", "the model changed from openai/m to deepseek/m"),
		Entry("another model name, the same provider", "openai", "n", "the model changed from openai/m to openai/n"),
	)
})
