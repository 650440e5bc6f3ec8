package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("inspect on a header's delegationDepth", func() {
	DescribeTable("refuses one out of range with the file and line, instead of panicking or printing without end",
		func(depth string) {
			root := fixtureCopy("fork/codeword")
			dir := filepath.Join(root, "fixtures/fork/codeword")
			replaceIn(filepath.Join(dir, "session.1.jsonl"), `"delegationDepth":1`, `"delegationDepth":`+depth)
			r := cli(root, nil, "inspect", "fixtures/fork/codeword")
			Expect(r.code).To(Equal(exitBadData))
			Expect(r.stdout).To(BeEmpty())
			Expect(r.stderr).To(HavePrefix("agentsnap inspect: " + filepath.Join(dir, "session.1.jsonl") + `:1: bad session header: header field "delegationDepth": ` + depth + " is out of range: it must be 0 to 64"))
		},
		Entry("negative", "-1"),
		Entry("huge", "100000000"),
	)

	It("indents the tree by each session's place in it, not by what its header claims", func() {
		root := fixtureCopy("fork/codeword")
		replaceIn(filepath.Join(root, "fixtures/fork/codeword/session.1.jsonl"), `"delegationDepth":1`, `"delegationDepth":64`)
		r := cli(root, nil, "inspect", "fixtures/fork/codeword")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(MatchRegexp(`(?m)^tree:\n  \S+/session\.jsonl\n    \S+/session\.1\.jsonl  fork via call_fork_1\n`))
		Expect(r.stdout).To(ContainSubstring("lineage   child of root via call call_fork_1 (fork), depth 64"))
	})

	It("escapes a session id that would colour the terminal", func() {
		root := fixtureCopy("fork/codeword")
		replaceIn(filepath.Join(root, "fixtures/fork/codeword/session.1.jsonl"), `"id":"root/call_fork_1"`, `"id":"root/call_fork_1\u001b[31m"`)
		r := cli(root, nil, "inspect", "fixtures/fork/codeword/session.1.jsonl")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring(`  session   root/call_fork_1\x1b[31m` + "\n"))
		Expect(r.stdout).NotTo(ContainSubstring("\x1b"))
	})
})

var _ = Describe("check and report bound their numbers", func() {
	DescribeTable("refuse a flag out of range as a usage error that says the range",
		func(args []string, want string) {
			root := fixtureCopy("fork/codeword")
			r := cli(root, nil, args...)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stdout).To(BeEmpty())
			Expect(r.stderr).To(HavePrefix("agentsnap " + args[0] + ": " + want))
			Expect(r.stderr).To(ContainSubstring("\nusage: agentsnap " + args[0]))
		},
		Entry("--schedules at the largest int", []string{"check", "--schedules", "9223372036854775807"},
			"--schedules 9223372036854775807: want 0 to 10000 schedules, such as 50 (0: replay once)"),
		Entry("--schedules 2^31", []string{"check", "--schedules", "2147483648"}, "--schedules 2147483648: want 0 to 10000 schedules"),
		Entry("--schedules one too many", []string{"check", "--schedules", "10001"}, "--schedules 10001: want 0 to 10000 schedules"),
		Entry("--schedules negative", []string{"check", "--schedules", "-1"}, "--schedules -1: want 0 to 10000 schedules"),
		Entry("--jobs 0", []string{"check", "--jobs", "0"}, "--jobs 0: want 1 to 1024 scenarios replayed at once (the default is one per CPU)"),
		Entry("--jobs huge", []string{"check", "--jobs", "100000000"}, "--jobs 100000000: want 1 to 1024 scenarios replayed at once"),
		Entry("report --jobs", []string{"report", "-o", "r.html", "--jobs", "1025"}, "--jobs 1025: want 1 to 1024 scenarios replayed at once"),
		Entry("--max-growth past its bound", []string{"check", "--max-growth", "101", "--baseline", "."}, `--max-growth "101": want a share from 0 to 100, such as 0.2 or 20%`),
	)

	It("takes the largest values allowed", func() {
		root := fixtureCopy("fork/codeword")
		r := cli(root, nil, "check", "--jobs", "1024", "--max-growth", "100", "--baseline", "fixtures")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
	})

	It("reports a scenario.json asking for the largest int of schedules as an error of that scenario, naming file, line and range", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		replaceIn(filepath.Join(root, "fixtures/fork/codeword/scenario.json"), `"maxDepth": 2`, `"maxDepth": 2, "schedules": 9223372036854775807`)
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+0\s+0\s+ERROR$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+2\s+3\s+ok$`))
		Expect(r.stdout).To(ContainSubstring(filepath.Join(root, "fixtures/fork/codeword/scenario.json") + ": invalid scenario: line "))
		Expect(r.stdout).To(ContainSubstring("schedules is 9223372036854775807; use 1 to 10000 (0 means no schedule search)"))
		r = cli(root, nil, "report", "fixtures", "-o", "r.html")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(ContainSubstring("2 scenarios: 1 pass, 1 error"))
	})
})

var _ = Describe("discovery with a symlinked scenario folder", func() {
	var root string
	BeforeEach(func() {
		root = fixtureCopy("fork/codeword")
		Expect(os.Symlink("codeword", filepath.Join(root, "fixtures/fork/linked"))).To(Succeed())
	})

	It("refuses the link, naming it and what to do, rather than skip the scenario behind it", func() {
		for _, args := range [][]string{{"check", "./fixtures/..."}, {"check"}, {"report", "-o", "r.html"}, {"review", "--format", "json"}} {
			r := cli(root, nil, args...)
			Expect(r.code).To(Equal(exitBadData), "%v: %s", args, r.stdout)
			Expect(r.stderr).To(Equal("agentsnap " + args[0] + ": scenario: symlinked folder in a fixtures tree: " + filepath.Join(root, "fixtures/fork/linked") +
				" is a symlink to the folder codeword; a fixtures tree holds real folders only and discovery does not follow links: replace the link with the folder itself, or name the folder it points to on the command line\n"))
		}
	})

	It("checks the folder it names on the command line, link or not", func() {
		r := cli(root, nil, "check", "fixtures/fork/linked")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/linked\s+2\s+4\s+ok$`))
	})

	It("walks a fixtures tree given as a symlink", func() {
		Expect(os.Remove(filepath.Join(root, "fixtures/fork/linked"))).To(Succeed())
		Expect(os.Symlink("fixtures", filepath.Join(root, "tree"))).To(Succeed())
		r := cli(root, nil, "check", "tree/...")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stdout).To(ContainSubstring("1 scenario, 1 passed, 0 failed"))
	})
})

var _ = Describe("record through a symlink", func() {
	It("refuses a category folder that leads out of the fixtures tree, naming the link, and writes nothing there", func() {
		elsewhere := GinkgoT().TempDir()
		Expect(cli(elsewhere, nil, "new", "fork/x").code).To(Equal(exitOK))
		before := treeDigest(elsewhere)
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "fixtures"), 0o755)).To(Succeed())
		link := filepath.Join(root, "fixtures", "linked")
		Expect(os.Symlink(filepath.Join(elsewhere, "fixtures", "fork"), link)).To(Succeed())

		r := cli(root, nil, "record", "fixtures/linked/x")
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).To(Equal("agentsnap record: " + link + " is a symlink to " + filepath.Join(elsewhere, "fixtures", "fork") + ", outside the fixtures tree " +
			filepath.Join(root, "fixtures") + "; record writes only inside the tree it is given: replace the link with a real folder, or record the scenario where it is: go tool agentsnap record " +
			filepath.Join(elsewhere, "fixtures", "fork", "x") + "\n"))
		Expect(treeDigest(elsewhere)).To(Equal(before))
	})

	It("records through a link that stays inside the tree", func() {
		root := GinkgoT().TempDir()
		Expect(cli(root, nil, "new", "fork/x").code).To(Equal(exitOK))
		Expect(os.Symlink("fork", filepath.Join(root, "fixtures", "alias"))).To(Succeed())
		r := cli(root, nil, "record", "fixtures/alias/x")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(filepath.Join(root, "fixtures", "fork", "x", "session.jsonl")).To(BeARegularFile())
	})

	DescribeTable("bounds --pace",
		func(args []string, want string) {
			r := cli(GinkgoT().TempDir(), nil, args...)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stderr).To(HavePrefix("agentsnap " + args[0] + ": " + want))
			Expect(r.stderr).To(ContainSubstring("\nusage: agentsnap " + args[0]))
		},
		Entry("record, an hour", []string{"record", "x", "--pace", "1h"}, "--pace 1h0m0s: want a pause from 0 to 1m0s between chunks, such as 20ms"),
		Entry("record, negative", []string{"record", "x", "--pace", "-1ms"}, "--pace -1ms: want a pause from 0 to 1m0s between chunks"),
		Entry("serve --record", []string{"serve", "x", "--record", "--pace", "2m"}, "--pace 2m0s: want a pause from 0 to 1m0s between chunks"),
	)
})

var _ = Describe("a flag's value", func() {
	// The flag package's own message for these ends in a bare "parse
	// error": it names the flag but not what it takes.
	DescribeTable("a flag value that does not parse says what the flag takes",
		func(args []string, want string) {
			r := cli(GinkgoT().TempDir(), nil, args...)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stderr).To(HavePrefix("agentsnap " + args[0] + ": " + want + "\n"))
			Expect(r.stderr).NotTo(ContainSubstring("parse error"))
			Expect(r.stderr).To(ContainSubstring("\nusage: agentsnap " + args[0]))
		},
		Entry("a duration in hours of a float", []string{"check", "--timeout", "1e9h"}, `--timeout "1e9h": want a duration such as 20ms, 30s, 10m or 1h30m`),
		Entry("a pause that is no duration", []string{"record", "x", "--pace", "NaN"}, `--pace "NaN": want a duration such as 20ms, 30s, 10m or 1h30m`),
		Entry("report's timeout", []string{"report", "-o", "r.html", "--timeout", "soon"}, `--timeout "soon": want a duration such as 20ms, 30s, 10m or 1h30m`),
		Entry("a count that is no number", []string{"check", "--schedules", "NaN"}, `--schedules "NaN": want a whole number such as 0 (the default)`),
		Entry("a seed past int64", []string{"check", "--schedule-seed", "99999999999999999999"}, `--schedule-seed "99999999999999999999": out of range; want a whole number such as 0 (the default)`),
		Entry("a boolean given a value", []string{"review", "--accept=maybe"}, `--accept=maybe: want true or false, or --accept alone for true`),
	)

	It("leaves the message of a flag of agentsnap's own kind, which says what to give", func() {
		r := cli(GinkgoT().TempDir(), nil, "serve", "x", "--max-body", "10XB")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(ContainSubstring(`size "10XB" is not a number of bytes with an optional unit; give such as 32MiB`))
	})
})

var _ = Describe("record's output of a scenario folder named with control characters", func() {
	It("escapes them in the summary and in an error, as check does, so a name cannot colour the terminal", func() {
		name := "code\x1b[31mword"
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork", name)
		Expect(os.Rename(filepath.Join(root, "fixtures/fork/codeword"), dir)).To(Succeed())
		replaceIn(filepath.Join(dir, fixture.GoldenFile), "MARMALADE", "MARMALADE!") // a proposal, named in the summary
		r := cli(root, nil, "record", "fixtures/fork/"+name)
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout + r.stderr).NotTo(ContainSubstring("\x1b"))
		Expect(r.stdout).To(HavePrefix(`recorded fixtures/fork/code\x1b[31mword: 2 sessions, 4 model calls`))
		Expect(r.stdout).To(ContainSubstring(`review it with: go tool agentsnap review fixtures/fork/code\x1b[31mword`))

		Expect(os.WriteFile(filepath.Join(dir, "playbook.json"), []byte("{bad"), 0o644)).To(Succeed())
		r = cli(root, nil, "record", "fixtures/fork/"+name)
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).NotTo(ContainSubstring("\x1b"))
		Expect(r.stderr).To(ContainSubstring(`code\x1b[31mword/playbook.json: invalid playbook`))
	})
})

var _ = Describe("check's output of a scenario folder named with control characters", func() {
	It("escapes them, so a name cannot forge a row or a colour", func() {
		name := "code\nforged      9  9  ok\x1b[31m"
		root := fixtureCopy("fork/" + "codeword")
		Expect(os.Rename(filepath.Join(root, "fixtures/fork/codeword"), filepath.Join(root, "fixtures/fork", name))).To(Succeed())
		replaceIn(filepath.Join(root, "fixtures/fork", name, fixture.GoldenFile), "MARMALADE", "MARMALADE!") // fail, so every section prints
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).NotTo(ContainSubstring("\x1b"))
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/code\\nforged      9  9  ok\\x1b\[31m\s+2\s+4\s+FAIL golden$`))
		Expect(r.stdout).To(ContainSubstring(`--- fork/code\nforged      9  9  ok\x1b[31m (`))
		for _, line := range strings.Split(r.stdout, "\n") {
			Expect(line).NotTo(HavePrefix("forged"))
		}
	})
})

var _ = Describe("check on a fixture whose recording breaks the contract", func() {
	DescribeTable("refuses it, naming file, line and member, instead of serving it",
		func(old, new, want string) {
			root := fixtureCopy("fork/codeword")
			log := filepath.Join(root, "fixtures/fork/codeword/session.jsonl")
			replaceIn(log, old, new)
			r := cli(root, nil, "check", "fixtures")
			Expect(r.code).To(Equal(exitFail))
			// The table counts the recording, replayed or not.
			Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+ERROR$`))
			Expect(r.stdout).To(ContainSubstring("fakellm: derive " + log + ":" + want))
			Expect(r.stdout).To(ContainSubstring("re-record the scenario"))
		},
		Entry("a finish kind no provider sends", `"reason":{"kind":"stop"}`, `"reason":{"kind":"sllac-loot"}`,
			`10: chunk breaks the session-log contract: session root, turn 1 step 1 attempt 1, assistant/chunk seq 8: finish member "reason.kind" is "sllac-loot"; want "stop", "tool-calls", "max-tokens", "aborted" or "error"`),
		Entry("an empty finish kind", `"reason":{"kind":"stop"}`, `"reason":{"kind":""}`, `10: `),
		Entry("a chunk type in capitals", `"type":"text-delta"`, `"type":"TEXT-DELTA"`, `7: chunk breaks the session-log contract: session root, turn 1 step 1 attempt 1, assistant/chunk seq 5: chunk member "type" is "TEXT-DELTA"`),
		Entry("a changed block index", `"type":"text-delta","index":0`, `"type":"text-delta","index":1`, `7: chunk breaks the session-log contract: session root, turn 1 step 1 attempt 1, assistant/chunk seq 5: text-delta member "index" is 1, a block this call has not started (it started block 0)`),
	)

	It("refuses a replay.override.json entry that breaks it, naming the file and the entry", func() {
		root := fixtureCopy("fork/codeword")
		sidecar := filepath.Join(root, "fixtures/fork/codeword", fixture.OverrideFile)
		Expect(os.WriteFile(sidecar, []byte(`{"session.jsonl": {"patch": {"0": {"kind": "chunks", "chunks": [{"type":"finish","reason":{"kind":"done"}}]}}}}`), 0o644)).To(Succeed())
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).To(ContainSubstring("fakellm: " + sidecar + `: bad replay override: "session.jsonl": patch "0": chunk breaks the session-log contract: chunk 0: finish member "reason.kind" is "done"`))
	})
})
