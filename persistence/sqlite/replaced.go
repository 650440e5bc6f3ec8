package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// still checks that the database's path still names the file the writer
// opened (b.file): a file renamed over it, or its removal, leaves the
// writer's connection on the old file, whose writes would be acknowledged
// and never read again (the next open reads what the path names). One
// stat a write transaction, as the JSONL backend stats a log's path
// before each append. It stats the absolute path SQLite opened: a relative
// one would name another file once the working directory changed.
func (b *Backend) still() error {
	fi, err := os.Stat(b.abs)
	const after = "since this store opened it, and the store still writes to the file it opened, which nothing reads; nothing was written: close the store and open the path again (then its sessions are those of the file there now), or put the database back"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the database file was removed or renamed away %s", after)
	case err != nil:
		return err
	case !os.SameFile(fi, b.file):
		return fmt.Errorf("another file was put in the database's place (renamed over it) %s", after)
	}
	return nil
}

// checkpointMoved moves what the WAL holds into the database file the
// writer opened when that file is no longer at its path, before Close:
// SQLite then closes without a checkpoint and leaves the -wal beside the
// path, where the next open would read its pages into the file there now,
// another database. Truncated, it holds nothing to read. Best effort: the
// checkpoint's error leaves the -wal as SQLite would.
func (b *Backend) checkpointMoved() {
	if b.readOnly || b.w == nil || b.file == nil || b.still() == nil {
		return
	}
	_, _ = b.w.ExecContext(context.Background(), "PRAGMA wal_checkpoint(TRUNCATE)")
}
