package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/persistence"
)

// ErrHotJournal reports a database in rollback-journal mode whose writer
// stopped in the middle of a transaction: the -journal beside it holds the
// pages that restore it, and until a read-write open rolls them back the
// file holds half-written pages.
var ErrHotJournal = errors.New("a writer stopped in the middle of a transaction")

// journalMagic starts the header of every rollback journal SQLite writes.
// A journal SQLite finished with has none: it is deleted, truncated to
// nothing, or has its header zeroed (journal_modes DELETE, TRUNCATE and
// PERSIST).
var journalMagic = []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}

// sqliteReadOnlyRollback is SQLite's SQLITE_READONLY_ROLLBACK: a read-only
// connection met a hot journal it may not roll back.
const sqliteReadOnlyRollback = 8 | 3<<8

// journalLeft reports whether a -journal that starts with SQLite's journal
// header is beside a SQLite database file at path: one that may be hot.
// Whether it is, SQLite decides (see hotJournal). Where there is none, it
// costs one failed open, as a stat would.
func journalLeft(path string) bool {
	return startsWith(sidecar(path, "-journal"), journalMagic) && startsWith(path, magic)
}

// sidecar returns the file SQLite keeps beside the database at path, its
// name path's and suffix (-wal, -journal): beside the file path names, its
// symlinks resolved as SQLite resolves them; beside path when it names
// nothing yet.
func sidecar(path, suffix string) string {
	if file, err := filepath.EvalSymlinks(path); err == nil {
		return file + suffix
	}
	return path + suffix
}

// startsWith reports whether the file at path starts with prefix.
func startsWith(path string, prefix []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(prefix))
	_, err = io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, prefix)
}

// hotJournal reports whether SQLite finds the -journal beside the database
// at path hot: it exists, is not empty, its header is not zeroed, and no
// connection holds the RESERVED lock a writer at work holds. It asks
// SQLite itself, through a read-only connection that takes a shared lock
// and writes nothing: SQLite answers SQLITE_READONLY_ROLLBACK where it
// would roll back. Only a database journalLeft found is asked about: beside
// an empty file SQLite deletes the journal, read-only connection or not.
func hotJournal(ctx context.Context, path string) bool {
	name, err := dsn(path, readLocked)
	if err != nil {
		return false
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return false
	}
	defer db.Close()
	var v int64
	err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	var c coded
	return errors.As(err, &c) && c.Code() == sqliteReadOnlyRollback
}

// hotJournalError is the error of the database at path that has a hot
// journal, for a read-only open, which may not roll it back.
func hotJournalError(path string) error {
	return persistence.Advised(fmt.Errorf("sqlite: %s: %w and left its rollback journal %s, which holds the pages that restore the database: until they are written back the file has half-written pages, and a read-only open does not write; opening it read-write rolls the journal back (SQLite's recovery: the database comes back as its last finished transaction left it), for example with: sqlite3 %s 'PRAGMA quick_check'; then open it again",
		path, ErrHotJournal, sidecar(path, "-journal"), shellArg(path)))
}

// rollBack has SQLite roll back a hot journal beside the database at path,
// as any read-write open does: its first read finds the journal hot, takes
// the write lock and writes the journal's pages back. It runs before probe
// and check, so they read the database as its last finished transaction
// left it, not its half-written pages. A journal that is not hot (its
// writer is at work) SQLite leaves alone. Damage SQLite finds is left for
// check to report. Only a database journalLeft found is rolled back: a
// file that is not SQLite's is refused untouched.
func rollBack(ctx context.Context, path string) error {
	name, err := dsn(path, readWrite)
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", path, err)
	}
	defer db.Close()
	var v int64
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil && !isDamage(err) {
		return fmt.Errorf("sqlite: %s: rolling back the -journal of a writer that stopped in the middle of a transaction: %w", path, err)
	}
	return nil
}
