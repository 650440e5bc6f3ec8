package sqlite

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/persistence"
)

// ErrDamaged reports a SQLite database whose file is damaged: a header
// SQLite never writes, a file shorter than its header says, pages SQLite
// finds malformed, or a table of agentsnap's without one of its columns.
var ErrDamaged = errors.New("damaged SQLite database")

// damageAdvice says what to do about a damaged database: what works.
// sqlite3's .recover is not offered: Debian's sqlite3 3.40 lacks the
// sqlite_dbpage table it needs and fails on any database, and .dump ends
// in ROLLBACK at the first damaged page, so piping it into a new database
// keeps nothing.
const damageAdvice = "agentsnap does not repair or change it; restore it from a backup or a copy, or give a new path and record its sessions again"

// damaged returns the error of the damaged database at path; what says
// what is wrong.
func damaged(path, what string) error {
	return persistence.Advised(fmt.Errorf("sqlite: %s: %w: %s; %s", path, ErrDamaged, what, damageAdvice))
}

// headerDamage says what is wrong with hdr, the 100-byte header of a file
// that starts with the SQLite magic, or "" when SQLite could have written
// it. size is the file's size; hasWAL reports a -wal file beside it, whose
// pages may not be in the file yet. The checks follow SQLite's file format:
// the fields a reader relies on have few valid values, so bytes another
// program overwrote are told from a version agentsnap does not read.
func headerDamage(hdr []byte, size int64, hasWAL bool) string {
	pageSize := int64(binary.BigEndian.Uint16(hdr[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	switch {
	case pageSize < 512 || pageSize > 65536 || bits.OnesCount64(uint64(pageSize)) != 1:
		return fmt.Sprintf("its header gives a page size of %d bytes, which SQLite never writes (a power of two from 512 to 65536)", pageSize)
	case hdr[18] < 1 || hdr[18] > 2 || hdr[19] < 1 || hdr[19] > 2:
		return fmt.Sprintf("its header gives file format versions %d and %d, which SQLite never writes (1 or 2)", hdr[18], hdr[19])
	case hdr[21] != 64 || hdr[22] != 32 || hdr[23] != 32:
		return fmt.Sprintf("its header gives payload fractions %d, %d and %d, which SQLite always writes as 64, 32 and 32", hdr[21], hdr[22], hdr[23])
	}
	if s := binary.BigEndian.Uint32(hdr[44:48]); s > 4 {
		return fmt.Sprintf("its header gives schema format %d, which SQLite never writes (0 to 4)", s)
	}
	// The page count in the header is valid only when the change counter
	// matches the version-valid-for number; with a -wal file, the file
	// may lag behind it.
	pages := int64(binary.BigEndian.Uint32(hdr[28:32]))
	valid := pages > 0 && binary.BigEndian.Uint32(hdr[24:28]) == binary.BigEndian.Uint32(hdr[92:96])
	if valid && !hasWAL && size < pages*pageSize {
		return fmt.Sprintf("it is truncated: its header gives %d pages of %d bytes (%d bytes), the file has %d bytes", pages, pageSize, pages*pageSize, size)
	}
	return ""
}

// coded is an error of the SQLite driver with SQLite's result code.
type coded interface{ Code() int }

// SQLite's primary result codes of a file that is not a database or is
// damaged.
const (
	sqliteCorrupt = 11 // SQLITE_CORRUPT: "database disk image is malformed"
	sqliteNotADB  = 26 // SQLITE_NOTADB: "file is not a database"
)

// SQLite's primary result codes of a database another connection holds.
const (
	sqliteBusy   = 5 // SQLITE_BUSY: "database is locked"
	sqliteLocked = 6 // SQLITE_LOCKED: "database table is locked"
)

// primaryCode is SQLite's primary result code of err, or 0 when err does
// not carry one.
func primaryCode(err error) int {
	var c coded
	if !errors.As(err, &c) {
		return 0
	}
	return c.Code() & 0xff // the primary code of an extended one
}

// isDamage reports whether err is SQLite finding the database damaged.
func isDamage(err error) bool {
	code := primaryCode(err)
	return code == sqliteCorrupt || code == sqliteNotADB
}

// unreadable is the error of the database at path that SQLite, opening
// it, failed to read with err. The file's header is SQLite's (probe read
// it), so a failure that is not damage is not "not SQLite" either: a lock
// held past the timeout, or the system refusing a read.
func unreadable(path string, err error) error {
	switch code := primaryCode(err); {
	case isDamage(err):
		return damaged(path, "SQLite says: "+err.Error())
	case code == sqliteBusy || code == sqliteLocked:
		return persistence.Advised(fmt.Errorf("sqlite: %s: another program holds the database locked, still after %v (SQLite says: %w); let it finish, or stop it, and run again", path, time.Duration(busyTimeout)*time.Millisecond, err))
	}
	return fmt.Errorf("sqlite: %s: SQLite could not read the database: %w", path, err)
}

// foreignWAL reports whether Close may checkpoint into the database a
// -wal file with pages this store did not write: one that was beside the
// database at open (a killed writer's, or another store's), or one that
// has pages at Close though this store wrote nothing. A healthy database
// closed by its only store has none, and costs a stat.
func (b *Backend) foreignWAL() bool {
	if !b.hadWAL && b.ready.Load() {
		return false
	}
	st, err := os.Stat(b.wal)
	return err == nil && st.Size() > 0
}

// verified reports whether the database, read through its WAL as a
// checkpoint would leave it, passes SQLite's quick_check. A store that
// found damage, or that cannot run the check (the database busy past the
// timeout), has not verified it. Any store on the file may be the last to
// close, so each checks for itself rather than trusting that another would
// have found the damage.
func (b *Backend) verified() bool {
	if b.damaged.Load() || b.w == nil {
		return false
	}
	var res string
	err := b.w.QueryRow("PRAGMA quick_check(1)").Scan(&res)
	if isDamage(err) || err == nil && res != "ok" {
		b.damaged.Store(true)
	}
	return err == nil && res == "ok"
}

// prepareFailed is the error of a statement that did not prepare at open
// with err. Damage SQLite finds there is the store's damage, as it is in
// a read: Close then leaves the database and its WAL as they are.
func (b *Backend) prepareFailed(err error) error {
	if isDamage(err) {
		b.damaged.Store(true)
		return damaged(b.path, "SQLite says: "+err.Error())
	}
	return fmt.Errorf("sqlite: %s: %w", b.path, err)
}

// holdWAL keeps the last connection that Close closes from checkpointing
// a WAL this store did not write into a database it has not verified: if
// the database is damaged, the WAL's pages would be written over what a
// recovery needs and the WAL deleted. A connection that closes while
// another has the database open does not checkpoint, and the read-only one
// holdWAL opens cannot, so the WAL stays as it was. Close calls the
// function it returns after closing every connection.
func (b *Backend) holdWAL() func() {
	name, err := dsn(b.abs, readLocked)
	if err != nil {
		return func() {}
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return func() {}
	}
	// The query may fail on the damage; the connection has the WAL open.
	_, _ = db.Exec("SELECT count(*) FROM sqlite_master")
	return func() { db.Close() }
}

// shellArg quotes s for a POSIX shell where it needs it, for a command an
// error suggests.
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
