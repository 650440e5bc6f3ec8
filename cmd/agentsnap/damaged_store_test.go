package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A user's damaged or foreign .db file reaches agentsnap through inspect,
// convert and --store; each says what the file is and what to do, and
// leaves it (and any -wal and -shm beside it) as it was.
var _ = Describe("agentsnap with a damaged or foreign .db file", func() {
	var root string

	BeforeEach(func() {
		root = fixtureCopy("fork/codeword")
		Expect(cli(root, nil, "convert", "fixtures/fork/codeword", "good.db").code).To(Equal(exitOK))
	})

	// made writes x.db in root from good.db's bytes.
	made := func(change func([]byte) []byte) {
		data, err := os.ReadFile(filepath.Join(root, "good.db"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(root, "x.db"), change(data), 0o644)).To(Succeed())
	}

	DescribeTable("inspect, convert and check --store name the file, say what is wrong and what to do, and change nothing",
		func(change func([]byte) []byte, says, todo string) {
			made(change)
			path := filepath.Join(root, "x.db")
			before := snapshotDir(root)
			for _, args := range [][]string{{"inspect", "x.db"}, {"convert", "x.db", "out"}, {"check", "fixtures", "--store", "sqlite:x.db"}} {
				r := cli(root, nil, args...)
				Expect(r.code).NotTo(Equal(exitOK), "%q", args)
				Expect(r.stderr).To(ContainSubstring("x.db"), "%q", args)
				Expect(r.stderr).To(ContainSubstring(says), "%q", args)
				Expect(r.stderr).To(ContainSubstring(todo), "%q", args)
				Expect(r.stderr).NotTo(ContainSubstring("unsupported schema version"), "%q", args)
				Expect(r.stderr).NotTo(ContainSubstring("give a path this user can write"), "%q: advice that contradicts the error's own", args)
				Expect(r.stderr).NotTo(ContainSubstring("session header"), "%q", args)
				Expect(snapshotDir(root)).To(Equal(before), "%q", args)
			}
			Expect(path + "-wal").NotTo(BeAnExistingFile())
		},
		Entry("random bytes", func([]byte) []byte { return []byte("\x8f\x12\xa0 random \x00\x01 bytes, not a database") },
			"not a SQLite database", "give the path of an agentsnap database"),
		Entry("a text file", func([]byte) []byte { return []byte("notes: remember to record the fork scenario\n") },
			`not a SQLite database (it starts with "notes: remember "`, "give the path of an agentsnap database"),
		Entry("a truncated database", func(b []byte) []byte { return b[:len(b)/2] },
			"damaged SQLite database: it is truncated", "restore it from a backup or a copy, or give a new path"),
		Entry("a header overwritten after the magic", func(b []byte) []byte {
			for i := 16; i < 100; i++ {
				b[i] = 0x5a
			}
			return b
		}, "damaged SQLite database: its header gives a page size of 23130 bytes", "restore it from a backup or a copy, or give a new path"),
		Entry("pages zeroed behind an intact header", func(b []byte) []byte { clear(b[100:]); return b },
			"damaged SQLite database: SQLite says: database disk image is malformed", "restore it from a backup or a copy, or give a new path"),
	)

	It("says inspect and convert of an empty x.db find no database there", func() {
		made(func([]byte) []byte { return nil })
		for _, args := range [][]string{{"inspect", "x.db"}, {"convert", "x.db", "out"}} {
			r := cli(root, nil, args...)
			Expect(r.code).NotTo(Equal(exitOK), "%q", args)
			Expect(r.stderr).To(ContainSubstring("x.db: no database there (the file is missing or empty); give the path of a database agentsnap wrote"), "%q", args)
		}
	})
})
