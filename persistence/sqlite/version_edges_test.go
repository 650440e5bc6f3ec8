package sqlite_test

import (
	"io/fs"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

var _ = Describe("sqlite schema checks", func() {
	It("names the folder of a new database that does not exist, not SQLite's \"unable to open database file (14)\", and creates nothing", func(ctx SpecContext) {
		folder := filepath.Join(GinkgoT().TempDir(), "no-such-folder")
		path := filepath.Join(folder, "sessions.db")
		_, err := sqlite.Open(ctx, path)
		Expect(err).To(MatchError(fs.ErrNotExist))
		Expect(err).To(MatchError("sqlite: " + path + ": the folder " + folder + " does not exist: file does not exist"))
		_, err = os.Stat(folder)
		Expect(err).To(MatchError(fs.ErrNotExist))
	})

	It("refuses a version-4 database with a sessions table but no events table", func(ctx SpecContext) {
		path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		rawExec(path, "CREATE TABLE sessions (id TEXT)", "PRAGMA user_version = 4")
		_, err := sqlite.Open(ctx, path)
		Expect(err).To(MatchError(sqlite.ErrForeign))
		Expect(err.Error()).To(ContainSubstring(path))
		Expect(err.Error()).To(ContainSubstring("no sessions and events tables"))
	})

	It("refuses the first write when the database's version changed after it was opened, and writes nothing", func(ctx SpecContext) {
		path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Close()).To(Succeed())

		s, err = sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		rawExec(path, "PRAGMA user_version = 5") // a newer tool migrated it meanwhile
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		err = s.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))
		Expect(err).To(MatchError(sqlite.ErrSchemaVersion))
		Expect(err.Error()).To(ContainSubstring(path))
		Expect(query(path, "SELECT count(*) FROM sessions")).To(Equal([][]string{{"0"}}))
	})
})
