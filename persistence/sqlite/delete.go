package sqlite

import (
	"context"

	"github.com/agentsnap/agentsnap/persistence"
)

var _ persistence.Deleter = (*Backend)(nil)

// Delete implements persistence.Deleter: one transaction removes the
// sessions' rows from every table. The writing connection deletes with
// secure_delete on, so the freed pages are zeroed rather than left in the
// file, and the WAL is checkpointed and truncated after, so its old frames
// go too (when no reader holds them).
func (b *Backend) Delete(ctx context.Context, ids ...string) error {
	op := "delete sessions"
	if b.readOnly {
		return b.fail(op, persistence.ErrReadOnly)
	}
	if err := b.writable(ctx); err != nil {
		return b.fail(op, err)
	}
	if err := b.still(); err != nil {
		return b.fail(op, err)
	}
	conn, err := b.w.Conn(ctx)
	if err != nil {
		return b.fail(op, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		return b.fail(op, err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return b.fail(op, err)
	}
	defer tx.Rollback() // after Commit, a no-op
	stmts := []string{"DELETE FROM events WHERE session_id = ?", "DELETE FROM sessions WHERE id = ?"}
	if b.hasExtra.Load() {
		stmts = append(stmts, "DELETE FROM extra_members WHERE session_id = ?")
	}
	for _, id := range ids {
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return b.fail(op+" "+id, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return b.fail(op, err)
	}
	// Best effort: a reader in the middle of a query keeps the frames it
	// reads until the next checkpoint.
	_, _ = conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return nil
}
