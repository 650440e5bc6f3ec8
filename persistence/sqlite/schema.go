package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/agentsnap/agentsnap/persistence"
)

// SchemaVersion is the user_version of an agentsnap database.
const SchemaVersion = 4

// Errors of opening a database, for errors.Is.
var (
	ErrNotSQLite     = errors.New("not a SQLite database")
	ErrSchemaVersion = errors.New("unsupported schema version")
	ErrForeign       = errors.New("not an agentsnap database")
)

// schema creates the version-4 tables; see the package doc.
const schema = `
CREATE TABLE IF NOT EXISTS sessions (
	id               TEXT PRIMARY KEY,
	version          INTEGER NOT NULL,
	created_at       INTEGER NOT NULL,
	cwd              TEXT,
	parent_session   TEXT,
	seed_length      INTEGER,
	origin           TEXT,
	delegation_depth INTEGER NOT NULL,
	agent_preset     TEXT,
	parent_call_id   TEXT,
	mode             TEXT
);
CREATE TABLE IF NOT EXISTS events (
	session_id        TEXT NOT NULL,
	seq               INTEGER NOT NULL,
	type              TEXT NOT NULL,
	time              INTEGER NOT NULL,
	data              TEXT,
	source_event_seqs TEXT,
	surface_op        TEXT,
	PRIMARY KEY (session_id, seq)
);`

// extraSchema creates the table of members no column holds.
const extraSchema = `
CREATE TABLE IF NOT EXISTS extra_members (
	session_id TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	members    TEXT NOT NULL,
	PRIMARY KEY (session_id, seq)
);`

// busyTimeout is how long a connection waits for another's lock, in ms
// (a variable for the specs of a lock held past it).
var busyTimeout = 5000

// magic starts every SQLite database file.
var magic = []byte("SQLite format 3\x00")

// access is how a connection opens the database.
type access int

const (
	readWrite    access = iota // creates the file if there is none; BEGIN IMMEDIATE
	readLocked                 // mode=ro: takes SQLite's locks, reads through a -wal
	readSnapshot               // mode=ro, immutable: reads the file's bytes, no locks
)

// readAccess is how a read-only connection opens the database at path.
//
// A read-only connection to a WAL database would create the -wal and -shm
// files it needs and could not remove them. When there is no -wal file,
// every committed page is in the database file, so the connection opens it
// immutable instead and leaves no trace; when there is one (a writer is at
// work, or crashed), it reads through it. A -journal is dealt with before:
// OpenReadOnly refuses a hot one, OpenBackend has SQLite roll it back.
func readAccess(path string) access {
	if _, err := os.Stat(sidecar(path, "-wal")); errors.Is(err, fs.ErrNotExist) {
		return readSnapshot
	}
	return readLocked
}

// dsn returns the driver's data source name for path: a file: URI, so odd
// characters in the path are escaped and mode=ro works.
func dsn(path string, a access, pragmas ...string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("sqlite: %w", err)
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout))
	for _, pr := range pragmas {
		q.Add("_pragma", pr)
	}
	switch a {
	case readWrite:
		q.Set("_txlock", "immediate")
	case readSnapshot:
		q.Set("immutable", "1")
		fallthrough
	case readLocked:
		q.Set("mode", "ro")
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String(), nil
}

// probe reads the file header of path without SQLite, so a file of another
// kind or version is refused before anything opens, and so could change,
// it. fresh reports a path with no file or an empty one.
func probe(path string) (fresh bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("sqlite: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return false, persistence.Advised(fmt.Errorf("sqlite: %s is a folder: %w; give the path of a database file (a folder of logs is jsonl:%s)", path, ErrNotSQLite, path))
	}
	var hdr [100]byte
	n, err := io.ReadFull(f, hdr[:])
	if n == 0 {
		return true, nil
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, fmt.Errorf("sqlite: %w", err)
	}
	if n < len(hdr) || !bytes.HasPrefix(hdr[:], magic) {
		return false, notSQLite(path, hdr[:n])
	}
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("sqlite: %w", err)
	}
	// Before the version: a damaged header has a user_version no one set.
	if what := headerDamage(hdr[:], st.Size(), exists(path+"-wal")); what != "" {
		return false, damaged(path, what)
	}
	// user_version is a signed 32-bit integer, as SQLite reports it.
	if v := int32(binary.BigEndian.Uint32(hdr[60:64])); v != 0 && v != SchemaVersion {
		return false, versionError(path, int64(v))
	}
	return false, nil
}

func notSQLite(path string, start []byte) error {
	hint := "give the path of an agentsnap database, or of a new file to create one"
	if t := bytes.TrimSpace(start); len(t) > 0 && t[0] == '{' {
		hint = "it looks like a JSONL session log; convert it with: agentsnap convert " + path + " OUT.db"
	}
	if bytes.HasPrefix(start, magic) {
		// Else it would read "it starts with X, a SQLite file starts with X".
		return persistence.Advised(fmt.Errorf("sqlite: %s: %w (it starts as a SQLite file does but has %d bytes, less than the 100 of a SQLite header: a database cut short?); %s", path, ErrNotSQLite, len(start), hint))
	}
	const show = 16
	if len(start) > show {
		start = start[:show]
	}
	return persistence.Advised(fmt.Errorf("sqlite: %s: %w (it starts with %q, a SQLite file starts with %q); %s", path, ErrNotSQLite, start, magic[:15], hint))
}

func versionError(path string, found int64) error {
	return persistence.Advised(fmt.Errorf("sqlite: %s: %w", path, errVersion(found)))
}

func errVersion(found int64) error {
	return fmt.Errorf("%w: the database has user_version %d, this agentsnap reads and writes version %d only, and there is no migration; the file was left untouched; %s", ErrSchemaVersion, found, SchemaVersion, versionAdvice(found))
}

// versionAdvice says who wrote a database of version found, and what to do.
func versionAdvice(found int64) string {
	switch {
	case found > SchemaVersion:
		return "a newer agentsnap wrote it (or another program set its version): open it with that agentsnap, whose convert turns it into JSONL session logs this one reads"
	case found > 0:
		return "an older agentsnap wrote it: turn it into JSONL session logs with that agentsnap's convert, then convert them back with this one"
	}
	return "no agentsnap writes a negative version: the file is damaged, or another program's; give a new path"
}

// check looks inside an existing database through a read-only connection
// that opens it with a. It returns whether the database has the
// extra_members table.
func check(ctx context.Context, path string, a access) (hasExtra bool, err error) {
	name, err := dsn(path, a)
	if err != nil {
		return false, err
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return false, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	defer db.Close()
	var version int64
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, unreadable(path, err)
	}
	tables, err := tableNames(ctx, db)
	if err != nil {
		return false, unreadable(path, err)
	}
	switch {
	case version == 0 && slices.Contains(tables, "sessions") && slices.Contains(tables, "events"):
		// sqlite3's .dump copies the tables, not the version.
		return false, persistence.Advised(fmt.Errorf("sqlite: %s: %w: it holds agentsnap's tables (%s) but user_version 0, which agentsnap never leaves; if it is a copy of an agentsnap database (a copy made with sqlite3's .dump loses it), set the version back with: sqlite3 %s 'PRAGMA user_version = %d'; else give a new path", path, ErrForeign, strings.Join(tables, ", "), shellArg(path), SchemaVersion))
	case version == 0 && len(tables) > 0:
		return false, persistence.Advised(fmt.Errorf("sqlite: %s: %w: it has user_version 0 and holds tables (%s) of another application; give a new path", path, ErrForeign, strings.Join(tables, ", ")))
	case version == 0:
		return false, nil
	case version != SchemaVersion:
		return false, versionError(path, version)
	}
	have := map[string]bool{}
	for _, t := range tables {
		have[t] = true
	}
	if !have["sessions"] || !have["events"] {
		return false, persistence.Advised(fmt.Errorf("sqlite: %s: %w: it has user_version %d but no sessions and events tables of agentsnap; give a new path", path, ErrForeign, version))
	}
	if err := checkColumns(ctx, db, path, have["extra_members"]); err != nil {
		return false, err
	}
	return have["extra_members"], nil
}

// columns are the columns of each table agentsnap reads and writes.
var columns = []struct {
	table string
	names []string
}{
	{"sessions", []string{"id", "version", "created_at", "cwd", "parent_session", "seed_length", "origin",
		"delegation_depth", "agent_preset", "parent_call_id", "mode"}},
	{"events", []string{"session_id", "seq", "type", "time", "data", "source_event_seqs", "surface_op"}},
	{"extra_members", []string{"session_id", "seq", "members"}},
}

// checkColumns fails with ErrDamaged when a table of a version-4 database
// lacks a column agentsnap's schema gives it: bytes overwritten in a
// column's name in the schema page still parse, so SQLite finds no damage,
// and the store would fail at its first statement instead. extra_members
// is checked when the database has it.
func checkColumns(ctx context.Context, db *sql.DB, path string, extra bool) error {
	for _, t := range columns {
		if t.table == "extra_members" && !extra {
			continue
		}
		have, err := columnNames(ctx, db, t.table)
		if err != nil {
			return unreadable(path, err)
		}
		for _, c := range t.names {
			if !have[c] {
				return damaged(path, fmt.Sprintf("its table %s has no column %s, which every agentsnap database has (the schema is damaged, or another program changed the table)", t.table, c))
			}
		}
	}
	return nil
}

func columnNames(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names[strings.ToLower(n)] = true // SQLite's names are ASCII case-insensitive
	}
	return names, rows.Err()
}

func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// initialise creates the schema of a new database, and the extra_members
// table of a version-4 database without it, in one transaction. Where all
// is there, it writes nothing. Its errors do not name the database.
func initialise(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int64
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	stmts := extraSchema
	switch version {
	case 0:
		stmts = schema + extraSchema + fmt.Sprintf("\nPRAGMA user_version = %d;", SchemaVersion)
	case SchemaVersion:
	default:
		return errVersion(version) // changed since the open
	}
	if _, err := tx.ExecContext(ctx, stmts); err != nil {
		return fmt.Errorf("creating the schema: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("creating the schema: %w", err)
	}
	return nil
}
