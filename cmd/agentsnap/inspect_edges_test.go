package main

import (
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("inspect of the store check --store keeps", func() {
	// check keeps every scenario's replay in one database or folder, so
	// it holds one agent tree per scenario; inspect shows each.
	DescribeTable("shows the tree and usage of each scenario",
		func(spec, path string) {
			root := fixtureCopy("fork/codeword", "spawn/one-child")
			r := cli(root, nil, "check", "fixtures", "--store", spec)
			Expect(r.code).To(Equal(exitOK), r.stdout)
			r = cli(root, nil, "inspect", path)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			Expect(r.stdout).NotTo(ContainSubstring("do not form one session tree"))
			Expect(r.stdout).To(MatchRegexp(`tree:\n  \S*fork\S*codeword\S*root\S*\n    \S*fork\S*codeword\S*root\S*call_fork_1\S*  fork via call_fork_1\n`))
			Expect(r.stdout).To(MatchRegexp(`tree:\n  \S*spawn\S*one-child\S*root\S*\n    \S*spawn\S*one-child\S*root\S*call_\S+  spawn via call_`))
			Expect(r.stdout).To(MatchRegexp(`usage \(tokens; no cost: no scenario.json beside the logs gives prices\):\n  session +calls .*\n  root +3 +433 +0 +112 +0 +545\n  root/call_fork_1 .*\n  tree +4 `))
		},
		Entry("a SQLite database", "sqlite:replays.db", "replays.db"),
		Entry("a folder of JSONL logs", "jsonl:replays", "replays"),
	)
})

var _ = Describe("inspect of a folder whose usage it cannot read", func() {
	It("warns under the usage table, naming the session and the event not counted", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		replaceIn(filepath.Join(dir, fixture.RootLog), `"inputTokens":68,`, `"inputTokens":99999999999999999999999,`)
		r := cli(root, nil, "inspect", dir)
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("\n  warning: not counted, as it could not be read: root: assistant/chunk seq 7: "))
	})
})
