package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

const (
	insertSession = `INSERT INTO sessions (id, version, created_at, cwd, parent_session, seed_length,
	origin, delegation_depth, agent_preset, parent_call_id, mode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertEvent = `INSERT INTO events (session_id, seq, type, time, data, source_event_seqs, surface_op)
	VALUES (?, ?, ?, ?, ?, ?, ?)`
	insertExtra   = `INSERT INTO extra_members (session_id, seq, members) VALUES (?, ?, ?)`
	selectSession = `SELECT 1 FROM sessions WHERE id = ?`
	selectEvents  = `SELECT seq, type, time, data, source_event_seqs, surface_op FROM events
	WHERE session_id = ? ORDER BY seq`
	selectExtra = `SELECT seq, members FROM extra_members WHERE session_id = ? AND seq >= 0 ORDER BY seq`
)

// rowsPerInsert is how many event rows one insertEvents statement holds.
const rowsPerInsert = 16

// insertEvents inserts rowsPerInsert event rows of one session, whose id
// is bound once, as ?1.
var insertEvents = func() string {
	var b strings.Builder
	b.WriteString(`INSERT INTO events (session_id, seq, type, time, data, source_event_seqs, surface_op) VALUES `)
	for i := range rowsPerInsert {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?1, ?, ?, ?, ?, ?, ?)")
	}
	return b.String()
}()

// headerSeq is the extra_members seq of a session's header.
const headerSeq = -1

// selectSessions returns the query of headers (with their extra members)
// in insertion order, filtered by where.
func (b *Backend) selectSessions(where string) string {
	members, join := "NULL", ""
	if b.hasExtra.Load() {
		members = "x.members"
		join = " LEFT JOIN extra_members x ON x.session_id = s.id AND x.seq = " + strconv.Itoa(headerSeq)
	}
	return `SELECT s.rowid, s.id, s.version, s.created_at, s.cwd, s.parent_session, s.seed_length, s.origin,
	s.delegation_depth, s.agent_preset, s.parent_call_id, s.mode, ` + members + ` FROM sessions s` + join + where + ` ORDER BY s.rowid`
}

// scanHeader reads one row of selectSessions. Its error does not name the
// session: id does, empty when the row has no id.
func scanHeader(row interface{ Scan(...any) error }) (h *session.Header, id string, err error) {
	var (
		rowid                           int64
		sid                             sql.NullString
		version, createdAt, seed, depth any // see integer
		cwd, parent, origin             sql.NullString
		preset, callID, mode, more      sql.NullString
	)
	if err := row.Scan(&rowid, &sid, &version, &createdAt, &cwd, &parent, &seed, &origin, &depth, &preset, &callID, &mode, &more); err != nil {
		return nil, "", err
	}
	if !sid.Valid {
		return nil, "", fmt.Errorf("the sessions row of rowid %d has no id (NULL); every session needs one: correct or delete the row", rowid)
	}
	id = sid.String
	h = &session.Header{
		ID: id, Cwd: cwd.String, ParentSession: parent.String, Origin: origin.String,
		AgentPreset: preset.String, ParentCallID: callID.String, Mode: session.Mode(mode.String),
	}
	var ver, seedLength, depthN int64
	for _, c := range []struct {
		dst       *int64
		v         any
		null      bool
		col, want string
	}{
		{&ver, version, false, "sessions.version", "an integer, the log version (0)"},
		{&h.CreatedAt, createdAt, false, "sessions.created_at", "an integer, Unix milliseconds"},
		{&seedLength, seed, true, "sessions.seed_length", "an integer, the number of seed events (NULL for none)"},
		{&depthN, depth, false, "sessions.delegation_depth", "an integer, 0 for a root session"},
	} {
		if *c.dst, err = integer(c.v, c.null, c.col, c.want); err != nil {
			return nil, id, err
		}
	}
	if ver != session.Version {
		return nil, id, fmt.Errorf("it has log version %d; this reader understands version %d only", ver, session.Version)
	}
	h.SeedLength, h.DelegationDepth = int(seedLength), int(depthN)
	if more.Valid {
		err := jsonscan.Object([]byte(more.String), func(key []byte, esc bool, val []byte) error {
			if h.Extra == nil {
				h.Extra = map[string]json.RawMessage{}
			}
			h.Extra[jsonscan.Key(key, esc)] = val
			return nil
		})
		if err != nil {
			return nil, id, fmt.Errorf("extra_members of the header: %w", err)
		}
	}
	if err := persistence.ValidateHeader(h); err != nil {
		return nil, id, err
	}
	return h, id, nil
}

// integer is the value v of an INTEGER column col (table.column) as SQLite
// returned it. SQLite does not enforce column types, so a row another tool
// wrote may hold text, a real number or a blob there; the error names the
// column and says what belongs there (want). NULL reads as 0 when null.
func integer(v any, null bool, col, want string) (int64, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case nil:
		if null {
			return 0, nil
		}
	}
	return 0, fmt.Errorf("%s holds %s; it must be %s: correct the row", col, describe(v), want)
}

// describe says what a value SQLite returned is, for an error.
func describe(v any) string {
	const show = 40
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		if len(v) > show {
			return fmt.Sprintf("the text %q…", v[:show])
		}
		return fmt.Sprintf("the text %q", v)
	case []byte:
		return fmt.Sprintf("a blob of %d bytes", len(v))
	case float64:
		return fmt.Sprintf("the real number %v", v)
	}
	return fmt.Sprintf("a value of Go type %T", v)
}

// Read implements persistence.Source. Header and events come from one read
// transaction, so a concurrent write is seen whole or not at all.
func (b *Backend) Read(ctx context.Context, id string) (*session.Log, error) {
	op := "read session " + id
	tx, err := b.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, b.fail(op, err)
	}
	defer tx.Rollback()
	h, _, err := scanHeader(tx.QueryRowContext(ctx, b.selectSessions(" WHERE s.id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, b.fail(op, persistence.ErrUnknownSession)
	}
	if err != nil {
		return nil, b.fail(op, err)
	}
	events, err := readEvents(ctx, tx, id)
	if err != nil {
		return nil, b.fail(op, err)
	}
	if b.hasExtra.Load() {
		if err := readExtra(ctx, tx, id, events); err != nil {
			return nil, b.fail(op, err)
		}
	}
	for i := range events {
		if err := persistence.ValidateEvent(&events[i]); err != nil {
			return nil, b.fail(op, err)
		}
	}
	if h.SeedLength > len(events) {
		return nil, b.fail(op, fmt.Errorf("%w: seedLength is %d but the session holds %d events", session.ErrSeedPastEnd, h.SeedLength, len(events)))
	}
	return &session.Log{Header: *h, Events: events}, nil
}

func readEvents(ctx context.Context, tx *sql.Tx, id string) ([]session.Event, error) {
	rows, err := tx.QueryContext(ctx, selectEvents, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var events []session.Event
	for rows.Next() {
		var (
			e       session.Event
			seq, at any // see integer
			typ     sql.NullString
			seqs    []byte
		)
		if err := rows.Scan(&seq, &typ, &at, (*[]byte)(&e.Data), &seqs, (*[]byte)(&e.SurfaceOp)); err != nil {
			return nil, err
		}
		if e.Seq, err = integer(seq, false, "events.seq", "an integer, the event's place in its session from 0"); err != nil {
			if len(events) == 0 {
				return nil, fmt.Errorf("the first events row: %w", err)
			}
			return nil, fmt.Errorf("the events row after seq %d: %w", len(events)-1, err)
		}
		if want := int64(len(events)); e.Seq != want {
			return nil, fmt.Errorf("%w: the events table holds seq %d where seq %d belongs", session.ErrSeqGap, e.Seq, want)
		}
		if e.Time, err = integer(at, false, "events.time", "an integer, Unix milliseconds"); err != nil {
			return nil, fmt.Errorf("event seq %d: %w", e.Seq, err)
		}
		if !typ.Valid {
			return nil, fmt.Errorf("event seq %d: events.type holds NULL; it must be the event's type, as text: correct the row", e.Seq)
		}
		e.Type = typ.String
		if seqs != nil {
			if e.SourceEventSeqs, err = jsonscan.Ints(seqs); err != nil {
				return nil, fmt.Errorf("event seq %d: source_event_seqs: %w", e.Seq, err)
			}
		}
		events = append(events, e)
	}
	return events, rows.Err()
}

// readExtra merges the extra members of a session's events.
func readExtra(ctx context.Context, tx *sql.Tx, id string, events []session.Event) error {
	rows, err := tx.QueryContext(ctx, selectExtra, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var v any // see integer
		var members []byte
		if err := rows.Scan(&v, &members); err != nil {
			return err
		}
		seq, err := integer(v, false, "extra_members.seq", "an integer, the seq of an event (-1 for the header)")
		if err != nil {
			return err
		}
		if seq >= int64(len(events)) {
			return fmt.Errorf("extra_members holds seq %d, past the last event (%d)", seq, len(events)-1)
		}
		if err := setMembers(&events[seq], members); err != nil {
			return fmt.Errorf("event seq %d: extra_members: %w", seq, err)
		}
	}
	return rows.Err()
}

// members returns the members of a log line that no column holds, as one
// JSON object in name order, or nil when there are none.
func members(ignorable bool, extra map[string]json.RawMessage) []byte {
	if !ignorable && len(extra) == 0 {
		return nil
	}
	buf := []byte{'{'}
	if ignorable {
		buf = append(buf, `"ignorable":true`...)
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = jsonscan.AppendString(buf, k)
		buf = append(buf, ':')
		buf = append(buf, extra[k]...)
	}
	return append(buf, '}')
}

// setMembers sets the members that members kept aside.
func setMembers(e *session.Event, members []byte) error {
	return jsonscan.Object(members, func(key []byte, esc bool, val []byte) error {
		k := jsonscan.Key(key, esc)
		if k == "ignorable" {
			var err error
			e.Ignorable, err = jsonscan.Bool(val)
			return err
		}
		if e.Extra == nil {
			e.Extra = map[string]json.RawMessage{}
		}
		e.Extra[k] = val
		return nil
	})
}

// isConstraint reports a primary key violation.
func isConstraint(err error) bool {
	var se interface{ Code() int }
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}
