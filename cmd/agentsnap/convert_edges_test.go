package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap convert into a place that is taken", func() {
	var dir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		treeFolder(dir)
		Expect(cli(dir, nil, "convert", "tree", "tree.db").code).To(Equal(0))
	})

	It("refuses a folder that holds a single file, and leaves it as it was", func() {
		Expect(os.Mkdir(filepath.Join(dir, "out"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "out", "notes.txt"), []byte("mine\n"), 0o644)).To(Succeed())
		before := snapshotDir(dir)
		r := cli(dir, nil, "convert", "tree.db", "out")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(ContainSubstring(filepath.Join(dir, "out") + " exists and is not empty; give a new or empty folder"))
		Expect(snapshotDir(dir)).To(Equal(before))
	})

	It("refuses a log file that exists as the DST of a one-session database, and leaves it as it was", func() {
		one := filepath.Join(dir, "one.db")
		Expect(cli(dir, nil, "convert", filepath.Join("tree", "session.jsonl"), one).code).To(Equal(0))
		Expect(os.WriteFile(filepath.Join(dir, "mine.jsonl"), []byte("mine\n"), 0o644)).To(Succeed())
		before := snapshotDir(dir)
		r := cli(dir, nil, "convert", one, "mine.jsonl")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(ContainSubstring(filepath.Join(dir, "mine.jsonl") + " exists; remove it or give another path"))
		Expect(snapshotDir(dir)).To(Equal(before))
	})

	It("writes a folder of logs others can read, not a private temporary one", func() {
		r := cli(dir, nil, "convert", "tree.db", "back")
		Expect(r.code).To(Equal(0), r.stderr)
		st, err := os.Stat(filepath.Join(dir, "back"))
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o755)))
	})

	DescribeTable("names a DST whose folder does not exist, and what to do",
		func(src, dst string) {
			r := cli(dir, nil, "convert", src, dst)
			Expect(r.code).To(Equal(exitFail))
			Expect(r.stderr).To(ContainSubstring(filepath.Join(dir, "missing", "out") + ": the folder " + filepath.Join(dir, "missing") + " does not exist; create it first, or give a DST in a folder that exists; nothing was written"))
			Expect(filepath.Join(dir, "missing")).NotTo(BeAnExistingFile())
		},
		Entry("a database into a folder of logs", "tree.db", "missing/out"),
		Entry("a folder of logs into a database", "tree", "missing/out"),
	)

	It("writes a database others can read, not a private temporary file", func() {
		st, err := os.Stat(filepath.Join(dir, "tree.db"))
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o644)))
	})
})
