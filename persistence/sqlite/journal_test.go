package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/session"
)

// rewriteAll changes every event of the database in a transaction large
// enough that, with a cache of two pages, SQLite writes its pages into the
// database file before the commit.
const rewriteAll = `UPDATE events SET data = '{"p":"changed ` + `' || hex(randomblob(40)) || '"}'`

// manyTables puts agentsnap's tables among others, so their rows in the
// schema leave the first page and a transaction's cache spills them too.
func manyTables() []string {
	var stmts []string
	for i := range 200 {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE other%03d (a_column_with_a_long_name_%d TEXT, another_column_with_a_long_name TEXT)", i, i))
	}
	return []string{"BEGIN; " + strings.Join(stmts, "; ") + "; COMMIT"}
}

// killedMidTransaction returns the path of a version-4 database of another
// tool in rollback-journal mode (journal_mode=DELETE, as sqlite3's .dump
// loaded into a new file leaves it) as a writer killed in the middle of a
// transaction leaves it: the database and its -journal copied while the
// transaction, which runs tx after setup, has written pages into the file.
// No lock is held on the copy, as none is after the kill. want is its
// sessions as the last finished transaction left them.
func killedMidTransaction(setup []string, tx ...string) (path string, want map[string]*session.Log) {
	GinkgoHelper()
	live := filepath.Join(GinkgoT().TempDir(), "live.db")
	foreignV4(live, "DELETE", true)
	rawExec(live, append(setup, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 2000)
		INSERT INTO events SELECT 'dsh', i+2, 'x/t', i, '{"p":"' || hex(randomblob(40)) || '"}', NULL, NULL FROM n`)...)
	want = loadAll(live)
	db, err := sql.Open("sqlite", live+"?_pragma=cache_size(2)")
	Expect(err).NotTo(HaveOccurred())
	defer db.Close()
	db.SetMaxOpenConns(1)
	w, err := db.Begin()
	Expect(err).NotTo(HaveOccurred())
	defer w.Rollback()
	for _, s := range tx {
		_, err := w.Exec(s)
		Expect(err).NotTo(HaveOccurred(), s)
	}
	path = filepath.Join(GinkgoT().TempDir(), "sessions.db")
	for _, suffix := range []string{"", "-journal"} {
		data, err := os.ReadFile(live + suffix)
		Expect(err).NotTo(HaveOccurred(), suffix)
		Expect(os.WriteFile(path+suffix, data, 0o644)).To(Succeed())
	}
	return path, want
}

// killedCommitting is killedMidTransaction of a transaction that sets
// user_version 9, killed while committing: the header with the new version
// is in the file, the pages that restore the old one in the -journal.
func killedCommitting() (path string, want map[string]*session.Log) {
	GinkgoHelper()
	path, want = killedMidTransaction(nil, "PRAGMA user_version = 9", rewriteAll)
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	binary.BigEndian.PutUint32(data[60:64], 9)
	Expect(os.WriteFile(path, data, 0o644)).To(Succeed())
	return path, want
}

// rollBackAsAdvised runs the command the error of OpenReadOnly gives, with
// sqlite3 where it is installed, else the same pragma through the driver.
func rollBackAsAdvised(path string, err error) {
	GinkgoHelper()
	_, cmd, ok := strings.Cut(err.Error(), "with: ")
	Expect(ok).To(BeTrue(), "the error gives a command")
	cmd, _, _ = strings.Cut(cmd, "; then")
	Expect(cmd).To(Equal("sqlite3 " + path + " 'PRAGMA quick_check'"))
	if _, err := exec.LookPath("sqlite3"); err == nil {
		out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(strings.TrimSpace(string(out))).To(Equal("ok"))
		return
	}
	db, err := sql.Open("sqlite", path)
	Expect(err).NotTo(HaveOccurred())
	defer db.Close()
	var res string
	Expect(db.QueryRow("PRAGMA quick_check").Scan(&res)).To(Succeed())
	Expect(res).To(Equal("ok"))
}

var _ = Describe("a database whose writer stopped in the middle of a transaction (a hot -journal)", func() {
	ctx := context.Background()

	expectRefused := func(path string) error {
		GinkgoHelper()
		db, journal := digest(path), digest(path+"-journal")
		b, err := sqlite.OpenReadOnly(ctx, path)
		if err == nil {
			b.Close()
		}
		Expect(err).To(MatchError(sqlite.ErrHotJournal))
		Expect(err).NotTo(MatchError(sqlite.ErrDamaged))
		Expect(err.Error()).To(HavePrefix("sqlite: " + path + ": "))
		Expect(err.Error()).To(ContainSubstring(path + "-journal"))
		Expect(err.Error()).To(ContainSubstring("opening it read-write rolls the journal back"))
		Expect(digest(path)).To(Equal(db), "the database file")
		Expect(digest(path+"-journal")).To(Equal(journal), "the -journal, which restores it")
		return err
	}

	It("is refused by OpenReadOnly as one a read-write open rolls back, not as damaged, and reads as before once the advised command ran", func() {
		path, want := killedMidTransaction(nil, rewriteAll)
		err := expectRefused(path)
		rollBackAsAdvised(path, err)
		Expect(path + "-journal").NotTo(BeAnExistingFile())
		Expect(loadAll(path)).To(Equal(want))
	})

	It("is refused by OpenReadOnly before its header is read, which a writer killed while committing has written", func() {
		path, _ := killedCommitting()
		err := expectRefused(path)
		Expect(err).NotTo(MatchError(sqlite.ErrSchemaVersion))
	})

	DescribeTable("is rolled back by Open, SQLite's recovery, before the checks that would read its half-written pages",
		func(make func() (string, map[string]*session.Log)) {
			path, want := make()
			s, err := sqlite.Open(ctx, path)
			Expect(err).NotTo(HaveOccurred())
			for id, log := range want {
				got, err := s.Load(ctx, id)
				Expect(err).NotTo(HaveOccurred())
				Expect(got).To(Equal(log))
			}
			Expect(s.Close()).To(Succeed())
			Expect(path + "-journal").NotTo(BeAnExistingFile())
			Expect(loadAll(path)).To(Equal(want))
		},
		Entry("events half-written", func() (string, map[string]*session.Log) {
			return killedMidTransaction(nil, rewriteAll)
		}),
		Entry("the schema half-written: a column renamed", func() (string, map[string]*session.Log) {
			return killedMidTransaction(manyTables(), "ALTER TABLE events RENAME COLUMN surface_op TO surface_op_renamed", rewriteAll)
		}),
		Entry("the header of another version written by the commit", killedCommitting),
	)

	// SQLite keeps the -journal beside the file a symlink leads to, and
	// rolls it back there; looked for beside the link, the journal was
	// missed and the half-written header read as a newer version's.
	It("behind a symlink, is found beside the file: Open rolls it back, OpenReadOnly refuses it as hot", func() {
		if runtime.GOOS == "windows" {
			Skip("making a symlink takes a privilege on Windows")
		}
		link := func(path string) string {
			GinkgoHelper()
			l := filepath.Join(GinkgoT().TempDir(), "sessions.db")
			Expect(os.Symlink(path, l)).To(Succeed())
			return l
		}
		path, _ := killedCommitting()
		_, err := sqlite.OpenReadOnly(ctx, link(path))
		Expect(err).To(MatchError(sqlite.ErrHotJournal))
		Expect(err.Error()).To(ContainSubstring(" left its rollback journal " + path + "-journal,"))

		path, want := killedCommitting()
		s, err := sqlite.Open(ctx, link(path))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Close()).To(Succeed())
		Expect(path + "-journal").NotTo(BeAnExistingFile())
		Expect(loadAll(path)).To(Equal(want))
	})

	It("is not hot while its writer is at work: OpenReadOnly reads the last finished transaction and leaves the files", func() {
		path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		foreignV4(path, "DELETE", true)
		want := loadAll(path)
		// Without syncs SQLite writes the journal header's magic number at
		// once, not at the first sync: the journal looks hot but for the
		// RESERVED lock the writer holds.
		db, err := sql.Open("sqlite", path+"?_pragma=synchronous(OFF)")
		Expect(err).NotTo(HaveOccurred())
		defer db.Close()
		w, err := db.Begin()
		Expect(err).NotTo(HaveOccurred())
		defer w.Rollback()
		_, err = w.Exec(`UPDATE events SET data = '{"note":2}'`)
		Expect(err).NotTo(HaveOccurred())
		journal := digest(path + "-journal")
		head, err := os.ReadFile(path + "-journal")
		Expect(err).NotTo(HaveOccurred())
		Expect(head[:8]).To(Equal([]byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}), "SQLite's journal header")
		Expect(loadAll(path)).To(Equal(want))
		Expect(digest(path + "-journal")).To(Equal(journal))
	})

	It("is not hot when SQLite zeroed the -journal's header (journal_mode=PERSIST): OpenReadOnly reads it", func() {
		path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		foreignV4(path, "PERSIST", true)
		Expect(path + "-journal").To(BeAnExistingFile())
		dir := snapshot(filepath.Dir(path))
		Expect(loadAll(path)["dsh"].Events).To(HaveLen(2))
		Expect(snapshot(filepath.Dir(path))).To(Equal(dir))
	})
	It("beside a file that is not SQLite's, is left to that file, which Open and OpenReadOnly refuse untouched", func() {
		hot, _ := killedMidTransaction(nil, rewriteAll)
		path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		Expect(os.WriteFile(path, []byte(`{"id":"a JSONL log, not a database"}`+"\n"), 0o644)).To(Succeed())
		journal, err := os.ReadFile(hot + "-journal")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path+"-journal", journal, 0o644)).To(Succeed())
		dir := snapshot(filepath.Dir(path))
		_, err = sqlite.OpenReadOnly(ctx, path)
		Expect(err).To(MatchError(sqlite.ErrNotSQLite))
		_, err = sqlite.Open(ctx, path)
		Expect(err).To(MatchError(sqlite.ErrNotSQLite))
		Expect(snapshot(filepath.Dir(path))).To(Equal(dir))
	})
})
