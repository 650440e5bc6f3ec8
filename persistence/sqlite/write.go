package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Write implements persistence.Backend: one transaction per batch.
func (b *Backend) Write(ctx context.Context, w *persistence.Batch) error {
	id := w.Header.ID
	op := "write session " + id
	if b.readOnly {
		return b.fail(op, persistence.ErrReadOnly)
	}
	if err := b.writable(ctx); err != nil {
		return b.fail(op, err)
	}
	if err := b.still(); err != nil {
		return b.fail(op, err)
	}
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return b.fail(op, err)
	}
	defer tx.Rollback() // after Commit, a no-op
	if w.New {
		if err := b.writeHeader(ctx, tx, w.Header); err != nil {
			return b.fail(op, err)
		}
	} else if err := b.stored(ctx, tx, id); err != nil {
		return b.fail(op, err)
	}
	if err := b.insertEvents(ctx, tx, id, w.Events); err != nil {
		return b.fail(op, err)
	}
	if err := b.insertMembers(ctx, tx, id, w.Events); err != nil {
		return b.fail(op, err)
	}
	if err := tx.Commit(); err != nil {
		return b.fail(op, err)
	}
	return nil
}

// stored checks that session id still has its row: events without one
// (its rows deleted behind the store's back) would be acknowledged and
// never read again.
func (b *Backend) stored(ctx context.Context, tx *sql.Tx, id string) error {
	var one int
	err := tx.StmtContext(ctx, b.hasSession).QueryRowContext(ctx, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("its rows are gone (deleted behind the store's back): %w", persistence.ErrUnknownSession)
	}
	return err
}

// writeHeader inserts a new session's row and its header's extra members.
func (b *Backend) writeHeader(ctx context.Context, tx *sql.Tx, h *session.Header) error {
	_, err := tx.StmtContext(ctx, b.insSession).ExecContext(ctx, h.ID, session.Version, h.CreatedAt,
		optText(h.Cwd), optText(h.ParentSession), optInt(h.SeedLength), optText(h.Origin),
		h.DelegationDepth, optText(h.AgentPreset), optText(h.ParentCallID), optText(string(h.Mode)))
	if isConstraint(err) {
		return persistence.ErrSessionExists
	}
	if err != nil {
		return err
	}
	if m := members(false, h.Extra); m != nil {
		if _, err := tx.StmtContext(ctx, b.insExtra).ExecContext(ctx, h.ID, headerSeq, string(m)); err != nil {
			return fmt.Errorf("header: %w", err)
		}
	}
	return nil
}

// insertMembers keeps the members of events that no column holds.
func (b *Backend) insertMembers(ctx context.Context, tx *sql.Tx, id string, events []session.Event) error {
	var stmt *sql.Stmt
	for i := range events {
		e := &events[i]
		m := members(e.Ignorable, e.Extra)
		if m == nil {
			continue
		}
		if stmt == nil {
			stmt = tx.StmtContext(ctx, b.insExtra)
		}
		if _, err := stmt.ExecContext(ctx, id, e.Seq, string(m)); err != nil {
			return fmt.Errorf("event seq %d: %w", e.Seq, err)
		}
	}
	return nil
}

// Column values: NULL where a log line has no such member.

func optText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func optInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func optJSON(b json.RawMessage) any {
	if b == nil {
		return nil
	}
	return string(b)
}

func optSeqs(seqs []int64) any {
	if seqs == nil {
		return nil
	}
	buf := []byte{'['}
	for i, s := range seqs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, s, 10)
	}
	return string(append(buf, ']'))
}

// insertEvents inserts the events' rows, rowsPerInsert to a statement:
// executing one statement per row costs about as much again as the rows.
func (b *Backend) insertEvents(ctx context.Context, tx *sql.Tx, id string, events []session.Event) error {
	if len(events) >= rowsPerInsert {
		many := tx.StmtContext(ctx, b.insEvents)
		args := make([]any, 0, 1+6*rowsPerInsert)
		for len(events) >= rowsPerInsert {
			args = append(args[:0], id)
			for i := range events[:rowsPerInsert] {
				e := &events[i]
				args = append(args, e.Seq, e.Type, e.Time, optJSON(e.Data), optSeqs(e.SourceEventSeqs), optJSON(e.SurfaceOp))
			}
			if _, err := many.ExecContext(ctx, args...); err != nil {
				return eventError(&events[0], err)
			}
			events = events[rowsPerInsert:]
		}
	}
	one := tx.StmtContext(ctx, b.insEvent)
	for i := range events {
		e := &events[i]
		if _, err := one.ExecContext(ctx, id, e.Seq, e.Type, e.Time, optJSON(e.Data), optSeqs(e.SourceEventSeqs), optJSON(e.SurfaceOp)); err != nil {
			return eventError(e, err)
		}
	}
	return nil
}

func eventError(e *session.Event, err error) error {
	if isConstraint(err) {
		return fmt.Errorf("%w: seq %d is already stored (another process writing?)", persistence.ErrOutOfOrder, e.Seq)
	}
	return fmt.Errorf("event seq %d: %w", e.Seq, err)
}
