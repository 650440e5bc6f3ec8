package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Open opens the store in the database at path, creating a version-4
// database if there is none; see the package doc for what it refuses. The
// caller closes the store.
func Open(ctx context.Context, path string) (*persistence.Coordinator, error) {
	b, err := OpenBackend(ctx, path)
	if err != nil {
		return nil, err
	}
	c, err := persistence.New(ctx, b)
	if err != nil {
		b.Close()
		return nil, err
	}
	return c, nil
}

// exists reports whether path names something that exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// Backend is the storage of a SQLite store: a persistence.Backend over one
// database. It is safe for concurrent use.
type Backend struct {
	path     string
	readOnly bool
	hasExtra atomic.Bool // the database has the extra_members table
	w        *sql.DB     // the one writing connection; nil when read-only
	r        *sql.DB     // reading connections

	insSession, insEvent, insEvents, hasSession *sql.Stmt

	// An existing database is not written before the first Write; see
	// writable.
	mu       sync.Mutex
	ready    atomic.Bool // writable has run; insExtra is set
	insExtra *sql.Stmt

	closeOnce sync.Once
	closeErr  error

	damaged atomic.Bool // SQLite found the database damaged; see verified
	hadWAL  bool        // a -wal file was there when it opened; see foreignWAL
	file    os.FileInfo // what path named when the writer opened it; see still
	abs     string      // path made absolute at open, as SQLite opened it; see still
	wal     string      // the -wal SQLite keeps for the file; see sidecar
}

var _ persistence.Backend = (*Backend)(nil)

// OpenBackend opens the database at path for reading and writing, creating
// it if there is none. An existing database is not changed until the first
// Write: opening and closing it leaves the file as it was, except that a
// -wal file a killed writer left is checkpointed into it on Close (SQLite's
// recovery; the sessions stay the same) — unless the database is damaged,
// when both files are left as they are for a recovery. Close runs SQLite's
// quick_check before any checkpoint of a -wal the store did not write, so
// a damaged page it never read counts too. A database in rollback-journal
// mode whose writer stopped mid-transaction (a hot -journal beside it) is
// rolled back at open, before it is checked, as any read-write open of
// SQLite's does. The caller closes it.
func OpenBackend(ctx context.Context, path string) (*Backend, error) {
	if journalLeft(path) {
		// SQLite's recovery, kept: a writer stopped mid-transaction left
		// the pages that restore the database in the -journal, and a
		// read-write open rolls them back (writing the file). It goes first,
		// so probe and check read what it restores, not half-written pages.
		if err := rollBack(ctx, path); err != nil {
			return nil, err
		}
	}
	fresh, err := probe(path)
	if err != nil {
		return nil, err
	}
	if fresh {
		// Else SQLite says only "unable to open database file (14)".
		if dir := filepath.Dir(path); !exists(dir) {
			return nil, fmt.Errorf("sqlite: %s: the folder %s does not exist: %w", path, dir, fs.ErrNotExist)
		}
	}
	hasExtra := false
	if !fresh {
		if hasExtra, err = check(ctx, path, readAccess(path)); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	b := &Backend{path: path, abs: abs, wal: sidecar(abs, "-wal")}
	b.hadWAL = exists(b.wal)
	b.hasExtra.Store(hasExtra)
	if err := b.openWriter(ctx, fresh); err != nil {
		b.Close()
		return nil, err
	}
	if b.file, err = os.Stat(b.abs); err != nil {
		b.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if b.r, err = openPool(path, readWrite, "query_only(1)"); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// OpenReadOnly opens an existing database at path read-only (mode=ro), for
// inspecting and converting it: Sessions and Read work, Write fails with
// persistence.ErrReadOnly. It refuses what OpenBackend refuses, and a path
// with no database. It creates no file: a database no one has open (no -wal
// file beside it) is read as immutable, so it is meant for reading a
// snapshot, not for following another process's writes. It changes no
// file either, so it refuses, with ErrHotJournal, a database whose writer
// stopped mid-transaction and left a hot -journal: the file has
// half-written pages until a read-write open rolls the journal back. The
// caller closes it.
func OpenReadOnly(ctx context.Context, path string) (*Backend, error) {
	// Before probe: a writer killed while committing may have written the
	// header already.
	if journalLeft(path) && hotJournal(ctx, path) {
		return nil, hotJournalError(path)
	}
	fresh, err := probe(path)
	if err != nil {
		return nil, err
	}
	if fresh {
		return nil, persistence.Advised(fmt.Errorf("sqlite: %s: no database there (the file is missing or empty); give the path of a database agentsnap wrote", path))
	}
	a := readAccess(path)
	hasExtra, err := check(ctx, path, a)
	if err != nil {
		return nil, err
	}
	// A version-4 database of another tool may lack extra_members: it
	// reads as if the table were empty.
	b := &Backend{path: path, readOnly: true}
	b.hasExtra.Store(hasExtra)
	if b.r, err = openPool(path, a); err != nil {
		return nil, err
	}
	return b, nil
}

func openPool(path string, a access, pragmas ...string) (*sql.DB, error) {
	name, err := dsn(path, a, pragmas...)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	db.SetMaxOpenConns(max(2, runtime.GOMAXPROCS(0)))
	return db, nil
}

// writerPragmas set up the writing connection: a sync at every commit, so a
// batch is durable when Write returns. WAL mode is no pragma of the
// connection: switching to it writes the file header, which writable does
// at the first write; after that the file stays in WAL mode.
var writerPragmas = []string{"synchronous(FULL)"}

// openWriter opens the writing connection, creates a fresh database's
// schema and prepares the statements of a write, except insExtra (see
// writable). An existing database it only reads; check has found the
// columns the statements name, so one that does not prepare is a damage
// SQLite finds in the schema, or a file changed since.
func (b *Backend) openWriter(ctx context.Context, fresh bool) error {
	name, err := dsn(b.path, readWrite, writerPragmas...)
	if err != nil {
		return err
	}
	if b.w, err = sql.Open("sqlite", name); err != nil {
		return fmt.Errorf("sqlite: %s: %w", b.path, err)
	}
	// One writer: SQLite takes one write lock anyway, and one connection
	// keeps the prepared statements warm.
	b.w.SetMaxOpenConns(1)
	b.w.SetMaxIdleConns(1)
	b.w.SetConnMaxLifetime(0)
	b.w.SetConnMaxIdleTime(0)
	if fresh {
		if err := b.writable(ctx); err != nil {
			return fmt.Errorf("sqlite: %s: %w", b.path, err)
		}
	}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&b.insSession, insertSession},
		{&b.insEvent, insertEvent},
		{&b.insEvents, insertEvents},
		{&b.hasSession, selectSession},
	} {
		if *p.stmt, err = b.w.PrepareContext(ctx, p.sql); err != nil {
			return b.prepareFailed(err)
		}
	}
	return nil
}

// writable makes the database ready for writing, once, before the first
// write: it creates the schema that is missing (all of it in a new
// database, the extra_members table in a version-4 database of another
// tool) and switches the database to WAL mode. Both write the file, so an
// open that never writes leaves it as it was. Its errors do not name the
// database.
func (b *Backend) writable(ctx context.Context) error {
	if b.ready.Load() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ready.Load() {
		return nil
	}
	// The schema first: it checks the version again, and refuses a changed
	// one before anything is written.
	if err := initialise(ctx, b.w); err != nil {
		return err
	}
	// Readers merge extra_members from now on; the table is still empty.
	b.hasExtra.Store(true)
	// Outside a transaction: SQLite cannot change the journal mode in one.
	// Reading connections follow the switch by themselves.
	if _, err := b.w.ExecContext(ctx, "PRAGMA journal_mode = WAL"); err != nil {
		return fmt.Errorf("switching to WAL mode: %w", err)
	}
	stmt, err := b.w.PrepareContext(ctx, insertExtra)
	if err != nil {
		return err
	}
	b.insExtra = stmt
	b.ready.Store(true)
	return nil
}

// Kind implements persistence.Backend.
func (b *Backend) Kind() string { return "sqlite" }

// Where implements persistence.Backend: the database file.
func (b *Backend) Where(string) string { return b.path }

// Path returns the database file.
func (b *Backend) Path() string { return b.path }

// Close implements persistence.Source. Closing the last connection
// checkpoints the WAL into the database file, unless the WAL holds pages
// this store did not write and the database fails quick_check; see
// foreignWAL and verified.
func (b *Backend) Close() error {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.checkpointMoved()
		if !b.readOnly && b.foreignWAL() && !b.verified() {
			defer b.holdWAL()()
		}
		var errs []error
		for _, s := range []*sql.Stmt{b.insSession, b.insEvent, b.insEvents, b.hasSession, b.insExtra} {
			if s != nil {
				errs = append(errs, s.Close())
			}
		}
		for _, db := range []*sql.DB{b.r, b.w} {
			if db != nil {
				errs = append(errs, db.Close())
			}
		}
		if err := errors.Join(errs...); err != nil {
			b.closeErr = fmt.Errorf("sqlite: close %s: %w", b.path, err)
		}
	})
	return b.closeErr
}

// Sessions implements persistence.Source: the headers in insertion order.
func (b *Backend) Sessions(ctx context.Context) ([]session.Header, error) {
	rows, err := b.r.QueryContext(ctx, b.selectSessions(""))
	if err != nil {
		return nil, b.fail("list sessions", err)
	}
	defer rows.Close()
	var out []session.Header
	for rows.Next() {
		h, id, err := scanHeader(rows)
		if err != nil {
			if id != "" {
				err = fmt.Errorf("session %s: %w", id, err)
			}
			return nil, b.fail("list sessions", err)
		}
		out = append(out, *h)
	}
	if err := rows.Err(); err != nil {
		return nil, b.fail("list sessions", err)
	}
	return out, nil
}

func (b *Backend) fail(op string, err error) error {
	if isDamage(err) {
		b.damaged.Store(true)
		return persistence.Advised(fmt.Errorf("sqlite: %s: %s: %w: SQLite says: %w; %s", b.path, op, ErrDamaged, err, damageAdvice))
	}
	return fmt.Errorf("sqlite: %s: %s: %w", b.path, op, err)
}
