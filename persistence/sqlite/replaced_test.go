package sqlite_test

import (
	"os"
	"path/filepath"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// The writer's connection stays on the file it opened: a database renamed
// over its path, or the path's removal, would take the store's next writes
// into a file nothing reads. The store refuses them, saying so.
var _ = Describe("sqlite database replaced while open", func() {
	BeforeEach(func() {
		if runtime.GOOS == "windows" {
			Skip("Windows refuses to rename over or remove a database SQLite holds open")
		}
	})
	first, second := storetest.CompletedTurn(0, 1, "say OK", "OK"), storetest.CompletedTurn(8, 2, "again", "OK again")

	It("refuses an Append and a Delete once another database is renamed over the path, and leaves each file what was written to it", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		path, other := filepath.Join(dir, "sessions.db"), filepath.Join(dir, "other.db")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", first)).To(Succeed())
		o, err := sqlite.Open(ctx, other)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		theirs := storetest.CompletedTurn(0, 1, "say other", "other")
		Expect(o.Append(ctx, "root", theirs)).To(Succeed())
		Expect(o.Close()).To(Succeed())
		Expect(os.Rename(path, filepath.Join(dir, "old.db"))).To(Succeed())
		Expect(os.Rename(other, path)).To(Succeed())

		const advice = " since this store opened it, and the store still writes to the file it opened, which nothing reads; nothing was written: close the store and open the path again (then its sessions are those of the file there now), or put the database back"
		Expect(s.Append(ctx, "root", second)).To(MatchError("sqlite: " + path + ": write session root: another file was put in the database's place (renamed over it)" + advice))
		Expect(s.Delete(ctx, "root")).To(MatchError(HaveSuffix("another file was put in the database's place (renamed over it)" + advice)))
		Expect(s.Close()).To(Succeed())

		By("closed, the store leaves no WAL of its file beside the path, where the next open would read it into the other's")
		for p, want := range map[string][]session.Event{path: theirs, filepath.Join(dir, "old.db"): first} {
			s, err = sqlite.Open(ctx, p)
			Expect(err).NotTo(HaveOccurred())
			l, err := s.Load(ctx, "root")
			Expect(err).NotTo(HaveOccurred())
			Expect(storetest.Encoded(l)).To(Equal(storetest.Encoded(&session.Log{Header: storetest.RootHeader("root"), Events: want})), p)
			Expect(s.Close()).To(Succeed())
		}
	})

	// A relative path names the file it named at open: SQLite opened it
	// by its absolute path, so a change of the working directory since
	// moves nothing, and is no removal.
	It("takes an Append after the working directory changed, the store opened by a relative path, as the file it opened", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		GinkgoT().Chdir(dir)
		s, err := sqlite.Open(ctx, "sessions.db")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", first)).To(Succeed())
		GinkgoT().Chdir(GinkgoT().TempDir())
		Expect(s.Append(ctx, "root", second)).To(Succeed())
		Expect(s.Close()).To(Succeed())
		s, err = sqlite.Open(ctx, filepath.Join(dir, "sessions.db"))
		Expect(err).NotTo(HaveOccurred())
		l, err := s.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(l)).To(Equal(storetest.Encoded(&session.Log{Header: storetest.RootHeader("root"), Events: append(first, second...)})))
	})

	It("refuses an Append once the database is removed", func(ctx SpecContext) {
		path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", first)).To(Succeed())
		Expect(os.Remove(path)).To(Succeed())
		Expect(s.Append(ctx, "root", second)).To(MatchError(ContainSubstring("write session root: the database file was removed or renamed away since this store opened it")))
	})
})
