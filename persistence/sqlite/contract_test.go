package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// crashEnv names the database a child test process crashes on.
const (
	crashEnv    = "AGENTSNAP_SQLITE_CRASH_DB"
	crashSeqEnv = "AGENTSNAP_SQLITE_CRASH_SEQ0"
)

// dbStorage is a temporary database.
type dbStorage struct {
	path string
	fail atomic.Bool // every write fails
}

func (d *dbStorage) Open() (persistence.Store, error) {
	ctx := context.Background()
	b, err := sqlite.OpenBackend(ctx, d.path)
	if err != nil {
		return nil, err
	}
	c, err := persistence.New(ctx, &failingDB{Backend: b, fail: &d.fail})
	if err != nil {
		b.Close()
		return nil, err
	}
	return c, nil
}

// FailWrites makes every write fail before its transaction commits, as a
// full disk makes SQLite's: nothing of the batch is stored.
func (d *dbStorage) FailWrites(fail bool) { d.fail.Store(fail) }

// Lose deletes the session's rows through a connection of its own, as
// another program would.
func (d *dbStorage) Lose(id string) error {
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(d.path)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	for _, table := range []string{"events", "extra_members"} {
		if _, err := db.Exec(`DELETE FROM `+table+` WHERE session_id = ?`, id); err != nil {
			return err
		}
	}
	_, err = db.Exec(`DELETE FROM sessions WHERE id = ?`, id)
	return err
}

// failingDB is a database whose writes fail while fail is set.
type failingDB struct {
	*sqlite.Backend
	fail *atomic.Bool
}

func (f *failingDB) Write(ctx context.Context, b *persistence.Batch) error {
	if f.fail.Load() {
		return fmt.Errorf("sqlite: %s: write session %s: database or disk is full", f.Path(), b.Header.ID)
	}
	return f.Backend.Write(ctx, b)
}

// Crash runs a child process that dies in the middle of appending events:
// see crashWhileAppending.
func (d *dbStorage) Crash(id string, events []session.Event) error {
	// The batch travels as a log of its own, seqs from 0, and its first
	// seq beside it.
	h := session.Header{ID: id}
	own := make([]session.Event, len(events))
	for i, e := range events {
		e.Seq = int64(i)
		own[i] = e
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLite$")
	cmd.Env = append(os.Environ(), crashEnv+"="+d.path, crashSeqEnv+"="+strconv.FormatInt(events[0].Seq, 10))
	cmd.Stdin = bytes.NewReader(session.Encode(&h, own))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("crash helper: %w\n%s", err, out)
	}
	return nil
}

// crashWhileAppending is the child process of Crash. It reads the batch
// (a log on stdin), opens the database with the backend's settings (and a
// small page cache, so a big transaction would spill pages into the WAL),
// inserts every row in one transaction and exits without COMMIT or
// ROLLBACK, as a process killed in the middle of an Append would. Whatever
// it wrote carries no commit mark, and the next open must discard it.
func crashWhileAppending() {
	l, err := session.Read(os.Stdin, "stdin")
	if err != nil {
		panic(err)
	}
	path := os.Getenv(crashEnv)
	seq0, err := strconv.ParseInt(os.Getenv(crashSeqEnv), 10, 64)
	if err != nil {
		panic(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=cache_size(10)&_txlock=immediate")
	if err != nil {
		panic(err)
	}
	tx, err := db.Begin()
	if err != nil {
		panic(err)
	}
	for _, e := range l.Events {
		_, err := tx.Exec(`INSERT INTO events (session_id, seq, type, time, data) VALUES (?, ?, ?, ?, ?)`,
			l.Header.ID, seq0+e.Seq, e.Type, e.Time, string(e.Data))
		if err != nil {
			panic(err)
		}
	}
	os.Exit(0)
}

var _ = Describe("sqlite store", func() {
	newStorage := func() (storetest.Storage, error) {
		return &dbStorage{path: filepath.Join(GinkgoT().TempDir(), "sessions.db")}, nil
	}
	// Every backend of the repository is a Deleter: a skipped check fails.
	for _, c := range storetest.Checks() {
		It(c.Name, func(ctx SpecContext) {
			if err := c.Run(ctx, newStorage); err != nil {
				Fail(err.Error())
			}
		})
	}
})
