// Package sqlite is the SQLite persistence backend, on modernc.org/sqlite
// (pure Go, no cgo).
//
// # Schema, version 4
//
// The database holds the design's two tables, exactly:
//
//	sessions(id PRIMARY KEY, version, created_at, cwd, parent_session,
//	         seed_length, origin, delegation_depth, agent_preset,
//	         parent_call_id, mode)
//	events(session_id, seq, type, time, data, source_event_seqs, surface_op,
//	       PRIMARY KEY(session_id, seq))
//
// and PRAGMA user_version = 4. A header field that a log line would omit is
// NULL (seed_length 0 included: absent means 0); data, source_event_seqs
// (a JSON array) and surface_op hold the line's JSON verbatim, NULL when
// the line has no such member. Rows are logical events: packed rows are
// stored expanded. Sessions are listed in insertion (rowid) order.
//
// A log line can hold members no column has a place for: an event's
// "ignorable" and any member this format does not know, and unknown header
// members. They live in a third table, so the two designed tables stay
// exactly as any version-4 reader expects:
//
//	extra_members(session_id, seq, members, PRIMARY KEY(session_id, seq))
//
// members is a JSON object of exactly those members of the line, seq is the
// event's seq or -1 for the header; a line without such members has no row.
// Reading merges them back, so a log round-trips member for member. A
// version-4 database without this table (made by another tool) opens too;
// it gets the table with its first write.
//
// # Versions
//
// Opening a database whose user_version is neither 0 nor 4 fails with
// [ErrSchemaVersion], naming the file, the version found and the one
// expected: there is no migration, and the file is not touched (its header
// is read before SQLite opens it). A file that is not SQLite fails with
// [ErrNotSQLite], and a SQLite database with tables but user_version 0 (some
// other application's) with [ErrForeign]. A damaged file fails with
// [ErrDamaged], not with a version: a header SQLite never writes (a page
// size, format or payload field out of range), a file shorter than its
// header says, pages SQLite finds malformed, or a table of agentsnap's
// without one of its columns (bytes of the schema overwritten, which SQLite
// still parses). Each error names the file and says what to do. A new or
// empty file becomes a version-4 database.
//
// # Durability and concurrency
//
// The database runs in WAL mode with synchronous=FULL, so a commit is
// synced before Append returns, and with a busy timeout of 5 s. An existing
// database is not written before the first write: switching it to WAL mode
// and creating a missing extra_members table wait until then, so opening
// and closing it without a write leaves the file byte for byte as it was —
// unless a killed writer left a -wal file beside it: SQLite checkpoints that
// WAL into the database when the last connection closes (the same
// sessions, other bytes), except into a damaged database, whose WAL stays
// as it is for a recovery: before a checkpoint of a WAL it did not write, a
// store runs SQLite's quick_check over the database, which reads every page
// (about 10 ms per MB of database, paid only when such a WAL is there).
// [OpenReadOnly] leaves such a database as it is. A database in
// rollback-journal mode (a version-4 database of another tool, such as one
// loaded from sqlite3's .dump) whose writer stopped mid-transaction has a
// hot -journal beside it: [Open] has SQLite roll it back, as any
// read-write open does, before it checks the database;
// [OpenReadOnly] refuses it with [ErrHotJournal], which gives the command
// that rolls it back. Writes go
// through one connection, one transaction (BEGIN IMMEDIATE) per batch:
// a batch is stored whole or not at all. Reads use a separate pool of
// connections and see only committed batches. [OpenReadOnly] opens a
// database with mode=ro for inspection.
//
// The writing connection stays on the file it opened. Each write (Append,
// Delete) first checks, with one stat, that the path still names that
// file: once it was removed or another was renamed over it, every write
// fails, saying so, rather than be acknowledged into a file nothing reads.
// Close then checkpoints the WAL into the file it opened, so the -wal it
// leaves beside the path holds nothing the next open would read into
// the other database.
package sqlite
