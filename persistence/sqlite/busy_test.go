package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
)

// A lock another program holds past the timeout is no sign of the file:
// the store says who has it and what to do, not "not a SQLite database".
var _ = It("a database another connection holds locked past the timeout is named as locked, not as another kind of file", func() {
	ctx := context.Background()
	path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
	fill(path)
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	conn, err := db.Conn(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(conn.Close)
	for _, q := range []string{"PRAGMA locking_mode=EXCLUSIVE", "BEGIN EXCLUSIVE", "DELETE FROM events"} {
		_, err := conn.ExecContext(ctx, q)
		Expect(err).NotTo(HaveOccurred(), q)
	}
	DeferCleanup(sqlite.ShortBusyTimeout())
	before := digest(path)

	s, err := sqlite.Open(ctx, path)
	if err == nil {
		s.Close()
	}
	Expect(err).To(HaveOccurred())
	Expect(err).NotTo(MatchError(sqlite.ErrNotSQLite))
	Expect(err).NotTo(MatchError(sqlite.ErrDamaged))
	Expect(err.Error()).To(ContainSubstring(path + ": another program holds the database locked, still after 100ms (SQLite says: "))
	Expect(err.Error()).To(HaveSuffix("; let it finish, or stop it, and run again"))
	Expect(digest(path)).To(Equal(before))
})
