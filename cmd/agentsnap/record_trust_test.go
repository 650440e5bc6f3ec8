package main

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap record --live against an endpoint that fails", func() {
	const key = "sk-cli-live-0123456789abcdef"
	// Nothing listens on port 1: every call is refused at once.
	const refused = "http://127.0.0.1:1/v1"
	var dir, fixtureDir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		Expect(cli(dir, nil, "new", "fork/x").code).To(Equal(0))
		r := cli(dir, nil, "record", "fixtures/fork/x")
		Expect(r.code).To(Equal(0), r.stderr)
		fixtureDir = filepath.Join(dir, "fixtures", "fork", "x")
	})

	It("exits 1, names the endpoint, and leaves the recorded fixture byte-identical", func() {
		before := treeDigest(fixtureDir)
		Expect(before).To(HaveKey(fixture.ChildLog(1)))
		r := cli(dir, map[string]string{"AGENTSNAP_API_KEY": key}, "record", "fixtures/fork/x", "--live", "--base-url", refused, "--model", "m")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("model calls failed at " + refused))
		Expect(r.stderr).To(ContainSubstring("session root turn 1 step 1: TRANSPORT: "))
		Expect(r.stderr).To(ContainSubstring("nothing was saved, the fixture is unchanged"))
		Expect(r.stderr + r.stdout).NotTo(ContainSubstring(key))
		Expect(treeDigest(fixtureDir)).To(Equal(before), "no session.1.jsonl deleted, no byte changed")
	})

	It("records the failures on purpose with --keep-live-failures", func() {
		r := cli(dir, map[string]string{"AGENTSNAP_API_KEY": key}, "record", "fixtures/fork/x", "--live", "--keep-live-failures", "--base-url", refused, "--model", "m")
		Expect(r.code).To(Equal(0), r.stderr)
		after := treeDigest(fixtureDir)
		Expect(after[fixture.GoldenFile]).NotTo(ContainSubstring("TRANSPORT"), "the golden is kept")
		Expect(after[fixture.ProposalFile]).To(ContainSubstring("TRANSPORT"), "the new transcript waits for review")
		Expect(after).NotTo(HaveKey(fixture.ChildLog(1)), "the root never got to fork")
	})

	It("refuses --keep-live-failures without --live as a usage error", func() {
		before := treeDigest(fixtureDir)
		r := cli(dir, nil, "record", "fixtures/fork/x", "--keep-live-failures")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring("--base-url, --model, --api and --keep-live-failures only apply with --live"))
		Expect(treeDigest(fixtureDir)).To(Equal(before))
	})
})

var _ = Describe("agentsnap record of tool calls that return errors", func() {
	It("records and lists each failed tool call", func() {
		dir := GinkgoT().TempDir()
		fixtureDir := filepath.Join(dir, "fixtures", "spawn", "tool-errors")
		Expect(os.MkdirAll(fixtureDir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(fixtureDir, scenario.File), []byte(`{
  "description": "Tool calls that fail: a misspelled tool, bad arguments.",
  "prompts": ["Add one and two, and look up the weather."],
  "agent": {"preset": "default", "system": "You are careful.", "tools": ["add"]}
}
`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(fixtureDir, fixture.PlaybookFile), []byte(`{"sessions": {"root": [
  {"toolCalls": [
    {"id": "call_weather", "name": "weather", "arguments": {"city": "Lisbon"}},
    {"id": "call_add", "name": "add", "arguments": {"a": "one", "b": 2}}
  ]},
  {"text": "Neither worked."}
]}}
`), 0o644)).To(Succeed())
		r := cli(dir, nil, "record", "fixtures/spawn/tool-errors")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("  2 tool calls returned an error (recorded as the agent saw it; check the tool names and arguments):\n" +
			`    root turn 1 step 1: call call_weather (weather) returned an error: unknown tool "weather"; the tools are: add` + "\n" +
			`    root turn 1 step 1: call call_add (add) returned an error: invalid arguments for add: "a" must be number, got string` + "\n"))
	})
})
