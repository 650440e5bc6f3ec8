package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("--store", func() {
	It("lets check replay every scenario into one SQLite database file it keeps for inspection", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		r := cli(root, nil, "check", "fixtures", "--store", "sqlite:replays.db")
		Expect(r.code).To(Equal(0), r.stdout)
		Expect(filepath.Join(root, "replays.db")).To(BeAnExistingFile())
		r = cli(root, nil, "inspect", "replays.db")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("session   fork/codeword/root/call_fork_1\n"))
		Expect(r.stdout).To(ContainSubstring("session   spawn/one-child/root\n"))
		Expect(r.stdout).To(MatchRegexp(`seed      \d+ inherited events`))
	})

	It("means a database file by sqlite:PATH for check as for record, and refuses a folder", func() {
		root := fixtureCopy("spawn/one-child")
		Expect(os.Mkdir(filepath.Join(root, "replays"), 0o755)).To(Succeed())
		r := cli(root, nil, "check", "fixtures", "--store", "sqlite:replays")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring("replays is a folder; sqlite:PATH names a database file (it is created if missing)"))
	})

	It("lets check replay through JSONL files, one folder for every scenario", func() {
		root := fixtureCopy("spawn/one-child", "fork/codeword")
		r := cli(root, nil, "check", "fixtures", "--store", "jsonl:replays")
		Expect(r.code).To(Equal(0), r.stdout)
		logs, _ := filepath.Glob(filepath.Join(root, "replays", "*.jsonl"))
		Expect(logs).To(HaveLen(4))
		Expect(filepath.Join(root, "replays", "spawn%2Fone-child%2Froot.jsonl")).To(BeAnExistingFile())
	})

	It("lets record persist the sessions through SQLite as well", func() {
		dir := GinkgoT().TempDir()
		Expect(cli(dir, nil, "new", "fork/x").code).To(Equal(0))
		r := cli(dir, nil, "record", "fixtures/fork/x", "--store", "sqlite:rec.db")
		Expect(r.code).To(Equal(0), r.stderr)
		r = cli(dir, nil, "inspect", "rec.db")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("lineage   child of root via call call_fork_1 (fork)"))
		_, err := os.Stat(filepath.Join(dir, "fixtures/fork/x/session.1.jsonl"))
		Expect(err).NotTo(HaveOccurred(), "the fixture files are written either way")
	})

	It("refuses a store it does not know", func() {
		r := cli(GinkgoT().TempDir(), nil, "check", "--store", "postgres:x")
		Expect(r.code).To(Equal(2))
		Expect(r.stderr).To(ContainSubstring(`--store: "postgres:x": want memory:, jsonl:DIR or sqlite:PATH`))
	})
})
