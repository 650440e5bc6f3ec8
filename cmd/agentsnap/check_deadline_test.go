package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// stuckScenario records under root/fixtures/parallel/stuck a root that
// hands two tasks to spawned children at once — call_slow hangs until the
// turn's timeout, call_fast answers — then gives the fixture a turnTimeout
// of an hour and call_fast a second recorded call the agent never makes:
// the replay holds the timeout for that call, and cannot go on.
func stuckScenario(root string) string {
	GinkgoHelper()
	dir := filepath.Join(root, "fixtures", "parallel", "stuck")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(`{
  "description": "A hang beside a sibling whose second call never comes.",
  "prompts": ["Ask two helpers at once."],
  "agent": {"tools": ["subagent_spawn"]},
  "turnTimeout": "100ms"
}
`), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "playbook.json"), []byte(`{"sessions": {
  "root": [{"toolCalls": [
    {"id": "call_slow", "name": "subagent_spawn", "arguments": {"description": "Slow", "prompt": "Take your time."}},
    {"id": "call_fast", "name": "subagent_spawn", "arguments": {"description": "Fast", "prompt": "Be quick."}}
  ]}],
  "call_slow": [{"text": "Thinking", "hang": true}],
  "call_fast": [{"text": "fast"}]
}}`), 0o644)).To(Succeed())
	r := cli(root, nil, "record", "fixtures/parallel/stuck")
	Expect(r.code).To(Equal(0), r.stderr)
	replaceIn(filepath.Join(dir, "scenario.json"), `"turnTimeout": "100ms"`, `"turnTimeout": "1h"`)

	r = cli(root, nil, "derive", "fixtures/parallel/stuck/session.2.jsonl")
	Expect(r.code).To(Equal(0), r.stderr)
	var script []json.RawMessage
	Expect(json.Unmarshal([]byte(r.stdout), &script)).To(Succeed())
	Expect(script).To(HaveLen(1))
	ov, err := json.Marshal(map[string]any{"session.2.jsonl": map[string]any{"replace": []json.RawMessage{script[0], script[0]}}})
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(dir, "replay.override.json"), ov, 0o644)).To(Succeed())
	return dir
}

var _ = Describe("agentsnap check --timeout", Label("deadline"), func() {
	It("fails a replay that cannot go on when the deadline passes, naming what it waits for, and lists the scenarios not replayed", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		stuckScenario(root)
		r := cli(root, nil, "check", "--jobs", "1", "--timeout", "1s", "fixtures")
		Expect(r.code).To(Equal(1))
		GinkgoWriter.Println(r.stdout, r.stderr)
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+ok$`), "replayed before the deadline")
		Expect(r.stdout).To(MatchRegexp(`(?m)^parallel/stuck\s+3\s+3\s+ERROR$`), "the recording's sessions and calls")
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+0\s+0\s+ERROR$`))
		Expect(r.stdout).To(ContainSubstring("judge: parallel/stuck: the replay did not finish (context deadline exceeded); it waits for:\n" +
			"  session root/call_slow (spawn; session.1.jsonl), call 1 (turn 1 step 1): a call recorded as aborted, waiting for its context to end; the timeout of 1h0m0s that ends it is pending, held until the calls recorded before it are answered\n" +
			"  session root/call_fast (spawn; session.2.jsonl): its recorded call 2 (turn 1 step 1) was never made\n"))
		Expect(r.stdout).To(ContainSubstring("re-record with: go tool agentsnap record "))
		Expect(r.stdout).To(ContainSubstring("If the replay is only slow, give it more time with --timeout: go tool agentsnap check --timeout 30m "))
		Expect(r.stdout).To(ContainSubstring("not replayed: the --timeout passed before its turn"))
		Expect(r.stderr).To(Equal("agentsnap check: --timeout 1s passed; 1 scenario did not finish: parallel/stuck (each one's message says what its replay waits for); 1 scenario not replayed. " +
			"A replay that waits for a call the agent does not make, or for a cancel that never comes, needs a fix or a re-recording; if the replays are only slow, raise --timeout.\n"))
	})

	It("writes the report all the same, the unfinished scenario an error", func() {
		root := GinkgoT().TempDir()
		stuckScenario(root)
		r := cli(root, nil, "report", "--timeout", "1s", "-o", "report.html", "fixtures")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stderr).To(HavePrefix("agentsnap report: --timeout 1s passed; 1 scenario did not finish: parallel/stuck"))
		page, err := os.ReadFile(filepath.Join(root, "report.html"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(page)).To(ContainSubstring("the replay did not finish"))
	})

	DescribeTable("refuses a deadline out of its bounds",
		func(command, value, want string) {
			args := []string{command, "--timeout", value}
			if command == "report" {
				args = append(args, "-o", "x.html")
			}
			r := cli(GinkgoT().TempDir(), nil, args...)
			Expect(r.code).To(Equal(2))
			Expect(strings.SplitN(r.stderr, "\n", 2)[0]).To(ContainSubstring(want))
		},
		Entry("none", "check", "0s", "--timeout 0s: want a duration from 1s to 24h0m0s, such as 10m"),
		Entry("under a second", "check", "500ms", "--timeout 500ms: want a duration from 1s to 24h0m0s"),
		Entry("over a day", "check", "25h", "--timeout 25h0m0s: want a duration from 1s to 24h0m0s"),
		Entry("not a duration", "check", "soon", `--timeout "soon": want a duration such as 20ms, 30s, 10m or 1h30m`),
		Entry("report's too", "report", "48h", "agentsnap report: --timeout 48h0m0s: want a duration from 1s to 24h0m0s"),
	)
})
