package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// rawExec runs statements on the database at path outside the backend, as
// another tool would.
func rawExec(path string, stmts ...string) {
	GinkgoHelper()
	db, err := sql.Open("sqlite", path)
	Expect(err).NotTo(HaveOccurred())
	defer db.Close()
	for _, s := range stmts {
		_, err := db.Exec(s)
		Expect(err).NotTo(HaveOccurred(), s)
	}
}

// snapshot is a folder's file names and contents.
func snapshot(dir string) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()] = "a folder"
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		out[e.Name()] = string(data)
	}
	return out
}

var _ = Describe("sqlite versions and foreign files", func() {
	ctx := context.Background()
	var dir, path string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		path = filepath.Join(dir, "sessions.db")
	})

	// opens tries both ways of opening an existing database.
	opens := map[string]func() error{
		"read-write": func() error { _, err := sqlite.Open(ctx, path); return err },
		"read-only":  func() error { _, err := sqlite.OpenReadOnly(ctx, path); return err },
	}

	DescribeTable("refuses a database of another schema version and leaves it untouched",
		func(version int, journal string) {
			rawExec(path, "PRAGMA journal_mode = "+journal, "CREATE TABLE sessions (id TEXT PRIMARY KEY, shape TEXT)",
				"INSERT INTO sessions VALUES ('a', 'old')", fmt.Sprintf("PRAGMA user_version = %d", version))
			before := snapshot(dir)
			for how, open := range opens {
				err := open()
				Expect(err).To(MatchError(sqlite.ErrSchemaVersion), how)
				Expect(err.Error()).To(ContainSubstring(path), how)
				Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("user_version %d", version)), how)
				Expect(err.Error()).To(ContainSubstring("version 4 only"), how)
				Expect(err.Error()).To(ContainSubstring("no migration"), how)
				Expect(err.Error()).To(ContainSubstring("the file was left untouched"), how)
				Expect(snapshot(dir)).To(Equal(before), how)
			}
		},
		Entry("version 3, rollback journal", 3, "DELETE"),
		Entry("version 5, rollback journal", 5, "DELETE"),
		Entry("version 5, WAL", 5, "WAL"),
		Entry("version 1", 1, "DELETE"),
		Entry("a huge version", 2147483647, "DELETE"),
		// user_version is a signed 32-bit integer in the file header.
		Entry("version -1, rollback journal", -1, "DELETE"),
		Entry("version -1, WAL", -1, "WAL"),
		Entry("a negative version", -7, "DELETE"),
		Entry("the lowest version", -2147483648, "DELETE"),
	)

	DescribeTable("refuses a file that is not an agentsnap database, clearly, and leaves it untouched",
		func(create func(), want error, says string) {
			create()
			before := snapshot(dir)
			for how, open := range opens {
				err := open()
				Expect(err).To(MatchError(want), how)
				Expect(err.Error()).To(ContainSubstring(path), how)
				Expect(err.Error()).To(ContainSubstring(says), how)
				Expect(snapshot(dir)).To(Equal(before), how)
			}
		},
		Entry("a JSONL log", func() {
			h := storetest.RootHeader("root")
			Expect(os.WriteFile(path, session.Encode(&h, nil), 0o644)).To(Succeed())
		}, sqlite.ErrNotSQLite, "looks like a JSONL session log"),
		Entry("a text file", func() {
			Expect(os.WriteFile(path, []byte("hello, this is not a database at all, not even close; it goes on for a while to pass one hundred bytes of header"), 0o644)).To(Succeed())
		}, sqlite.ErrNotSQLite, `it starts with "hello, this is n"`),
		Entry("a file shorter than a SQLite header", func() {
			Expect(os.WriteFile(path, []byte("SQLite format 3\x00"), 0o644)).To(Succeed())
		}, sqlite.ErrNotSQLite, "not a SQLite database (it starts as a SQLite file does but has 16 bytes, less than the 100 of a SQLite header"),
		Entry("a folder", func() { Expect(os.Mkdir(path, 0o755)).To(Succeed()) }, sqlite.ErrNotSQLite, "is a folder"),
		Entry("another application's database", func() {
			rawExec(path, "CREATE TABLE users (name TEXT)")
		}, sqlite.ErrForeign, "tables (users) of another application"),
		Entry("version 4 without the design's tables", func() {
			rawExec(path, "CREATE TABLE other (x)", "PRAGMA user_version = 4")
		}, sqlite.ErrForeign, "no sessions and events tables"),
	)

	It("refuses a database whose newer version is committed only to the WAL of a writer that has not checkpointed", func() {
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Close()).To(Succeed())
		// A newer agentsnap writing: its connection stays open and never
		// checkpoints, so version 5 is in the -wal file only.
		w, err := sql.Open("sqlite", path+"?_pragma=wal_autocheckpoint(0)")
		Expect(err).NotTo(HaveOccurred())
		w.SetMaxOpenConns(1)
		DeferCleanup(w.Close)
		_, err = w.Exec("PRAGMA user_version = 5")
		Expect(err).NotTo(HaveOccurred())
		main, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(binary.BigEndian.Uint32(main[60:64])).To(BeEquivalentTo(4), "the database file still says 4")
		Expect(path + "-wal").To(BeAnExistingFile())

		for how, open := range opens {
			err := open()
			Expect(err).To(MatchError(sqlite.ErrSchemaVersion), how)
			Expect(err.Error()).To(ContainSubstring("user_version 5"), how)
			Expect(os.ReadFile(path)).To(Equal(main), how)
		}
	})

	It("opens nothing read-only where there is no database", func() {
		_, err := sqlite.OpenReadOnly(ctx, path)
		Expect(err).To(MatchError(ContainSubstring("no database there")))
		Expect(path).NotTo(BeAnExistingFile())
	})
})
