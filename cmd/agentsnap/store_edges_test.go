package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("record --store into a store an earlier recording filled", func() {
	// Every recording of a scenario creates the same session ids, so the
	// second one into the same side store cannot create its root: the
	// message must say why and what to do, not only "session already
	// exists".
	DescribeTable("says the store holds the session from an earlier run and what to do, before the agent runs",
		func(spec string) {
			root := fixtureCopy("spawn/one-child")
			r := cli(root, nil, "record", "fixtures/spawn/one-child", "--store", spec)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			Expect(r.stderr).To(ContainSubstring("root turn 1"), "the progress of a recording that runs")
			r = cli(root, nil, "record", "fixtures/spawn/one-child", "--store", spec)
			Expect(r.code).NotTo(Equal(exitOK))
			Expect(r.stderr).To(ContainSubstring("agentsnap record: recorder: the side store (Options.Store, record's --store): it already holds 2 sessions (such as root), an earlier run's: the recording creates its sessions there; give it an empty one (a new path) or delete the old; nothing ran and the fixture is unchanged"))
			Expect(r.stderr).NotTo(ContainSubstring("root turn 1"), "the agent ran")
		},
		Entry("SQLite", "sqlite:rec.db"),
		Entry("JSONL", "jsonl:rec"),
	)
})

// The recorder gives Options.Store's errors only the advice it
// recognises: a user's function is no path the CLI opened. record's
// --store is, and keeps the CLI's advice for it, unless the error says
// itself what to do.
var _ = Describe("record --store with a path that is no store", func() {
	It("names it, keeps the advice for a path the CLI opens and says nothing ran", func() {
		root := fixtureCopy("spawn/one-child")
		Expect(os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello, no folder\n"), 0o644)).To(Succeed())
		r := cli(root, nil, "record", "fixtures/spawn/one-child", "--store", "jsonl:notes.txt")
		Expect(r.code).NotTo(Equal(exitOK))
		Expect(r.stderr).To(ContainSubstring("agentsnap record: recorder: the side store (Options.Store, record's --store) does not open: open: " + filepath.Join(root, "notes.txt") + " is a file; a jsonl store is a folder of logs"))
		Expect(r.stderr).To(ContainSubstring("; give a path this user can write: a new or empty folder (jsonl:DIR) or database file (sqlite:PATH) in a folder that exists, or a store agentsnap wrote; nothing ran and the fixture is unchanged"))
		Expect(r.stderr).NotTo(ContainSubstring("root turn 1"), "the agent ran")
	})

	It("gives a file that is no SQLite database the advice of its own error only", func() {
		root := fixtureCopy("spawn/one-child")
		Expect(os.WriteFile(filepath.Join(root, "notes.db"), []byte("hello, no database\n"), 0o644)).To(Succeed())
		r := cli(root, nil, "record", "fixtures/spawn/one-child", "--store", "sqlite:notes.db")
		Expect(r.code).NotTo(Equal(exitOK))
		Expect(r.stderr).To(ContainSubstring("agentsnap record: recorder: the side store (Options.Store, record's --store) does not open: sqlite: " + filepath.Join(root, "notes.db") + ": not a SQLite database"))
		Expect(r.stderr).To(ContainSubstring("; give the path of an agentsnap database, or of a new file to create one; nothing ran and the fixture is unchanged"))
		Expect(r.stderr).NotTo(ContainSubstring("give a path this user can write"))
		Expect(r.stderr).NotTo(ContainSubstring("root turn 1"), "the agent ran")
	})
})

// A jsonl store writes its logs into the folder it is given: a fixtures
// category or a scenario folder would get replay logs among its scenarios'
// files, which the next check reads as its own.
var _ = Describe("--store jsonl: naming a folder that holds other things", func() {
	It("is refused by check naming the folder, before any replay writes there", func() {
		root := fixtureCopy("fork/codeword", "fork/first-turn")
		cat := filepath.Join(root, "fixtures/fork")
		r := cli(root, nil, "check", "fixtures/fork/codeword", "--store", "jsonl:fixtures/fork")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(HavePrefix("agentsnap check: --store: open: the folder " + cat + " holds codeword, which is no session log of a jsonl store, and the store would write its logs among what it holds; give the jsonl store an empty or new folder\n"))
		logs, _ := filepath.Glob(filepath.Join(cat, "*.jsonl"))
		Expect(logs).To(BeEmpty())
	})

	It("is refused by record naming the scenario folder, and nothing runs", func() {
		root := fixtureCopy("spawn/one-child")
		dir := filepath.Join(root, "fixtures/spawn/one-child")
		r := cli(root, nil, "record", "fixtures/spawn/one-child", "--store", "jsonl:fixtures/spawn/one-child")
		Expect(r.code).NotTo(Equal(exitOK))
		Expect(r.stderr).To(ContainSubstring("does not open: open: the folder " + dir + " holds "))
		Expect(r.stderr).To(ContainSubstring("; give the jsonl store an empty or new folder; nothing ran and the fixture is unchanged"))
		Expect(r.stderr).NotTo(ContainSubstring("root turn 1"), "the agent ran")
	})
})
