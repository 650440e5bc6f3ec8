package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A model names the calls that create children and the tools it calls; a
// runtime writes a turn's end reason. record prints them in its progress
// and its summary, escaped as check and review escape recorded text.
var _ = Describe("agentsnap record of ids and tool names holding terminal escapes", func() {
	It("prints them as their escapes in its progress, its reason lines and its tool errors", func() {
		dir := GinkgoT().TempDir()
		sdir := filepath.Join(dir, "fixtures", "spawn", "esc")
		Expect(os.MkdirAll(sdir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(sdir, scenario.File), []byte(`{
  "description": "Ids and tool names with terminal escapes.",
  "prompts": ["Spawn a child."],
  "agent": {"preset": "default", "system": "You are careful.", "tools": ["subagent_spawn", "add"]}
}
`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(sdir, fixture.PlaybookFile), []byte(`{"sessions": {
  "root": [
    {"toolCalls": [
      {"id": "call_\u001b[31mx", "name": "subagent_spawn", "arguments": {"description": "d", "prompt": "p"}},
      {"id": "call_w", "name": "weather\u001b[2J", "arguments": {}}
    ]},
    {"text": "Done."}
  ],
  "call_\u001b[31mx": [{"text": "child"}]
}}
`), 0o644)).To(Succeed())
		r := cli(dir, nil, "record", "fixtures/spawn/esc")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(ContainSubstring(`record spawn/esc: spawn child via call_\x1b[31mx (depth 1) turn 1 ended completed`))
		Expect(r.stdout).To(ContainSubstring(`    root turn 1 step 1: call call_w (weather\x1b[2J) returned an error: unknown tool`))
		Expect(r.stdout + r.stderr).NotTo(ContainAny("\x1b"))
	})

	It("prints an only-changed recording's lines escaped", func() {
		var out bytes.Buffer
		printRecorded(&env{stdout: &out}, "spawn/esc", &recorder.Result{Sessions: 2, Calls: 3, Reuse: &recorder.Reuse{
			Live: 1, Changed: []recorder.Change{{Session: "root/call_\x1b[31mx", New: true, Live: 1, Why: "created after its parent went to the model"}},
		}})
		Expect(out.String()).To(ContainSubstring(`  root/call_\x1b[31mx: new, 1 call sent to the model`))
		Expect(out.String()).NotTo(ContainAny("\x1b"))
	})
})

// A folder named with a line break (a newline, a carriage return, U+2028
// or U+2029) is quoted by a command's error as its escape, so it cannot
// split the error's line or forge one after it; the message's own lines
// are kept (fail's multi-line errors).
var _ = DescribeTable("a command's error quoting a scenario folder named with a line break",
	func(brk, escaped string) {
		name := "co" + brk + "de"
		root := fixtureCopy("fork/" + name + "=fork/codeword")
		dir := "fixtures/fork/" + name
		line := func(r result) string {
			GinkgoHelper()
			Expect(r.code).NotTo(Equal(exitOK))
			first, _, _ := strings.Cut(r.stderr, "\n")
			if brk != "\n" { // else the first line is cut short
				Expect(r.stderr).NotTo(ContainSubstring(brk))
			}
			return first
		}

		By("serve's usage error, for the runtime that recorded it")
		Expect(line(cli(root, nil, "serve", dir))).To(Equal(`agentsnap serve: fork/co` + escaped + `de was recorded with the runtime "reference", and this serves "external"; give --runtime reference`))

		By("fail, for a file that is not there")
		Expect(line(cli(root, nil, "inspect", dir+"/session.9.jsonl"))).To(Equal(`agentsnap inspect: fixtures/fork/co` + escaped + `de/session.9.jsonl: no such file or folder; give a session log, a folder of logs (a scenario folder) or a SQLite database`))
	},
	Entry("a newline", "\n", `\n`),
	Entry("a carriage return", "\r", `\r`),
	Entry("a line separator", "\u2028", `\u2028`),
	Entry("a paragraph separator", "\u2029", `\u2029`),
)
