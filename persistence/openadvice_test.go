package persistence_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/internal/unprivileged"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A store this user may not read is named by the store's error; the advice
// says to fix the permissions, not to create a folder or to give another
// kind of path. A store is read as well as written (a check lists it, a
// recording loads it back), so a write-only one needs fixing too.
var _ = Describe("OpenAdvice for a store this user may not read", func() {
	// stores returns a JSONL folder holding one log, and a SQLite database,
	// both under a temporary folder.
	stores := func() (dir, log, db string) {
		root := GinkgoT().TempDir()
		dir, db = filepath.Join(root, "runs"), filepath.Join(root, "runs.db")
		Expect(os.Mkdir(dir, 0o755)).To(Succeed())
		log = filepath.Join(dir, "root.jsonl")
		Expect(os.WriteFile(log, []byte(`{"type":"session","version":0,"id":"root","createdAt":1}`+"\n"), 0o644)).To(Succeed())
		s, err := open.Store(context.Background(), "sqlite:"+db)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Close()).To(Succeed())
		return dir, log, db
	}

	DescribeTable("names the path and says to fix its permissions",
		func(pick func(dir, log, db string) (spec, locked string), mode fs.FileMode) {
			spec, locked := pick(stores())
			Expect(os.Chmod(locked, mode)).To(Succeed())
			DeferCleanup(os.Chmod, locked, fs.FileMode(0o755))
			// Without root's overrides: CI runs as root, which reads any file.
			err := unprivileged.Do(func() error {
				s, err := open.Store(context.Background(), spec)
				if err == nil {
					s.Close()
				}
				return err
			})
			Expect(err).To(MatchError(fs.ErrPermission))
			msg := fmt.Sprintf("%v; %s", err, persistence.OpenAdvice(err))
			Expect(msg).To(ContainSubstring(locked))
			Expect(msg).To(HaveSuffix(": permission denied; give a path this user can read and write, or make it readable and writable by this user (fix its permissions)"))
		},
		Entry("a JSONL folder it may write but not list", func(dir, _, _ string) (string, string) { return "jsonl:" + dir, dir }, fs.FileMode(0o300)),
		Entry("a JSONL folder it may not enter", func(dir, _, _ string) (string, string) { return "jsonl:" + dir, dir }, fs.FileMode(0)),
		Entry("a log in a JSONL folder", func(dir, log, _ string) (string, string) { return "jsonl:" + dir, log }, fs.FileMode(0o200)),
		Entry("a SQLite database it may write but not read", func(_, _, db string) (string, string) { return "sqlite:" + db, db }, fs.FileMode(0o200)),
		Entry("a SQLite database it may not open", func(_, _, db string) (string, string) { return "sqlite:" + db, db }, fs.FileMode(0)),
	)
})
