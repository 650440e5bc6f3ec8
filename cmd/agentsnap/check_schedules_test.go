package main

import (
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("check --schedules with a kept store", func() {
	It("passes a correct agent through one SQLite database, each scenario's replay stored once", func() {
		root := fixtureCopy("parallel/fan-out", "fork/codeword")
		r := cli(root, nil, "check", "fixtures", "--store", "sqlite:replays.db", "--schedules", "3")
		Expect(r.code).To(Equal(0), r.stdout)
		Expect(r.stdout).NotTo(ContainSubstring("session already exists"))
		Expect(r.stdout).To(MatchRegexp(`parallel/fan-out\s+5\s+7\s+ok`))
		r = cli(root, nil, "inspect", "replays.db")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(strings.Count(r.stdout, "session   parallel/fan-out/root\n")).To(Equal(1))
		Expect(strings.Count(r.stdout, "session   fork/codeword/root\n")).To(Equal(1))
		Expect(regexp.MustCompile(`(?m)^\s*session   [^ ]`).FindAllString(r.stdout, -1)).To(HaveLen(5+2), r.stdout)
	})

	It("passes a correct agent through JSONL files, the replay's own sessions only", func() {
		root := fixtureCopy("parallel/fan-out")
		r := cli(root, nil, "check", "fixtures", "--store", "jsonl:replays", "--schedules", "3")
		Expect(r.code).To(Equal(0), r.stdout)
		logs, _ := filepath.Glob(filepath.Join(root, "replays", "*.jsonl"))
		Expect(logs).To(HaveLen(5))
		Expect(filepath.Join(root, "replays", "parallel%2Ffan-out%2Froot.jsonl")).To(BeAnExistingFile())
	})

	It("refuses a store that already holds sessions, before replaying, instead of failing every replay", func() {
		root := fixtureCopy("parallel/fan-out")
		Expect(cli(root, nil, "check", "fixtures", "--store", "sqlite:replays.db").code).To(Equal(0))
		r := cli(root, nil, "check", "fixtures", "--store", "sqlite:replays.db")
		Expect(r.code).To(Equal(2), r.stdout)
		Expect(r.stderr).To(ContainSubstring("replays.db already holds 5 sessions (such as parallel/fan-out/root); check writes its replays' sessions there, so give it an empty one: a new path, or delete the old"))
		Expect(r.stdout).To(BeEmpty())
	})
})
