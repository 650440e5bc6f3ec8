package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// loadAll reads every session of the database at path, read-only.
func loadAll(path string) map[string]*session.Log {
	GinkgoHelper()
	ctx := context.Background()
	b, err := sqlite.OpenReadOnly(ctx, path)
	Expect(err).NotTo(HaveOccurred())
	defer b.Close()
	hs, err := b.Sessions(ctx)
	Expect(err).NotTo(HaveOccurred())
	out := map[string]*session.Log{}
	for _, h := range hs {
		out[h.ID], err = b.Read(ctx, h.ID)
		Expect(err).NotTo(HaveOccurred())
	}
	return out
}

// These specs compare the database and its -wal, not the -shm: any SQLite
// connection rewrites the -shm when a -wal is beside the database, reading
// included, and it holds nothing a recovery needs.
var _ = Describe("a WAL the store did not write, beside its database, on Close", func() {
	ctx := context.Background()

	// eventPages zeroes the pages from the eighth on, in the database fill
	// writes the leaves of the events table: the header, the schema and
	// the sessions stay intact, so listing sessions works and reading them
	// does not.
	eventPages := zero(7*4096, -1)

	It("is not checkpointed into a damaged database by a store that found no damage while another store on the file did", func() {
		path := crashed(eventPages)
		db, wal := digest(path), digest(path+"-wal")

		unaware, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred(), "the sessions are intact")
		finder, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		Expect(readAll(ctx, finder.Backend())).To(MatchError(sqlite.ErrDamaged))
		Expect(finder.Close()).To(Succeed())
		Expect(unaware.Close()).To(Succeed(), "the last to close, which SQLite checkpoints on")

		Expect(digest(path)).To(Equal(db), "the database file")
		Expect(digest(path+"-wal")).To(Equal(wal), "the WAL, which may hold what a recovery needs")
	})

	It("is not checkpointed into a damaged database by a store that read only its intact pages", func() {
		path := crashed(eventPages)
		db, wal := digest(path), digest(path+"-wal")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		hs, err := s.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(HaveLen(8))
		Expect(s.Close()).To(Succeed())

		Expect(digest(path)).To(Equal(db), "the database file")
		Expect(digest(path+"-wal")).To(Equal(wal), "the WAL")
	})

	// The store opened by a relative path finds the WAL, and holds it, by
	// the path SQLite opened, whatever the working directory is at Close.
	It("is not checkpointed into a damaged database by a store opened by a relative path, the working directory changed since", func() {
		path := crashed(eventPages)
		db, wal := digest(path), digest(path+"-wal")
		GinkgoT().Chdir(filepath.Dir(path))
		s, err := sqlite.Open(ctx, filepath.Base(path))
		Expect(err).NotTo(HaveOccurred())
		hs, err := s.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(HaveLen(8))
		GinkgoT().Chdir(GinkgoT().TempDir())
		Expect(s.Close()).To(Succeed())

		Expect(digest(path)).To(Equal(db), "the database file")
		Expect(digest(path+"-wal")).To(Equal(wal), "the WAL")
	})

	// SQLite resolves a path's symlinks and keeps the -wal beside the file
	// they lead to, not beside the link.
	It("is not checkpointed into a damaged database by a store opened through a symlink to it", func() {
		if runtime.GOOS == "windows" {
			Skip("making a symlink takes a privilege on Windows")
		}
		path := crashed(eventPages)
		db, wal := digest(path), digest(path+"-wal")
		link := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		Expect(os.Symlink(path, link)).To(Succeed())
		s, err := sqlite.Open(ctx, link)
		Expect(err).NotTo(HaveOccurred())
		hs, err := s.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(HaveLen(8))
		Expect(link+"-wal").NotTo(BeAnExistingFile(), "the WAL is beside the file, not the link")
		Expect(s.Close()).To(Succeed())

		Expect(digest(path)).To(Equal(db), "the database file")
		Expect(digest(path+"-wal")).To(Equal(wal), "the WAL")
	})

	It("is not checkpointed into a damaged database by a store that wrote nothing, when another writer left it while the store was open", func() {
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, "sessions.db")
		fill(path)
		damage(path, eventPages)
		Expect(path+"-wal").NotTo(BeAnExistingFile(), "no WAL at open")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		// Another writer commits to the WAL and goes; it does not
		// checkpoint while the store has the database open.
		rawExec(path, "UPDATE sessions SET cwd = 'elsewhere' WHERE id = 'root-0'")
		db, wal := digest(path), digest(path+"-wal")
		Expect(s.Close()).To(Succeed())

		Expect(digest(path)).To(Equal(db), "the database file")
		Expect(digest(path+"-wal")).To(Equal(wal), "the WAL")
	})

	It("is checkpointed into an intact database, SQLite's recovery: the sessions stay, the commit in the WAL included", func() {
		path := crashed(func(b []byte) []byte { return b })
		before := loadAll(path)
		Expect(before["root-7"].Events[7].Time).To(Equal(before["root-6"].Events[7].Time+1), "the WAL's commit")
		db := digest(path)
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Close()).To(Succeed())

		Expect(path + "-wal").NotTo(BeAnExistingFile())
		Expect(digest(path)).NotTo(Equal(db), "the WAL's pages are in the file")
		Expect(loadAll(path)).To(Equal(before))
	})
})

// A read-only open reads through the -wal a writer at work keeps, which
// SQLite keeps beside the file a symlink leads to, not beside the link.
var _ = Describe("a database opened read-only through a symlink while its writer is at work", func() {
	It("reads what the writer committed to its WAL", func(ctx SpecContext) {
		if runtime.GOOS == "windows" {
			Skip("making a symlink takes a privilege on Windows")
		}
		path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		events := storetest.CompletedTurn(0, 1, "say OK", "OK")
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", events)).To(Succeed())
		Expect(path+"-wal").To(BeAnExistingFile(), "the writer's batch is in its WAL")
		link := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		Expect(os.Symlink(path, link)).To(Succeed())

		ro, err := sqlite.OpenReadOnly(ctx, link)
		Expect(err).NotTo(HaveOccurred())
		defer ro.Close()
		l, err := ro.Read(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(l)).To(Equal(storetest.Encoded(&session.Log{Header: storetest.RootHeader("root"), Events: events})))
	})
})
