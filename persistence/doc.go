// Package persistence stores session logs: one [Store] interface, two
// durable backends (persistence/jsonl and persistence/sqlite) and an
// in-memory one (persistence/memory), all held to one contract:
// persistence/storetest, a checker a store of your own passes too.
//
// A backend implements only storage hooks ([Backend]); the [Coordinator]
// that New returns owns everything else, the same way for every backend:
//
//   - Lazy materialisation. Create registers a session (header and seed) in
//     memory; nothing is written until its first Append, which writes
//     header, seed and batch together. A session created and never appended
//     to does not exist once the store is closed.
//   - Ordering. Appends to one session are serialised; the first seq of a
//     batch must be the session's next seq, so seqs stay dense from 0.
//     Appends to different sessions run in parallel.
//   - Validation. Nothing the reader would refuse is ever written: seqs,
//     types, JSON members and the header are checked before a batch reaches
//     the backend.
//   - Crash repair. A stored log can end inside a turn when the process died
//     mid-turn, and a JSONL log can end in a torn line when it died
//     mid-write. Load drops the torn line and closes the interrupted turn
//     with [Closers]; Load itself never writes. The next Append writes the
//     closers (and cuts the torn bytes, which no Append ever acknowledged)
//     before its own batch, so the repaired log is what is stored from then
//     on.
//   - Failed writes and lost logs. A write that failed may have stored
//     its batch whole, in part or not at all: the next call reads back
//     what is stored and continues from there. A stored session whose log
//     is gone — removed behind the store's back, whether or not a write
//     failed first — is never stored anew from its next seq, which would
//     lose the events before: Append and Load fail with ErrUnknownSession,
//     saying the log is gone, until the log is restored or the session
//     deleted; List leaves it out meanwhile, and Create of its id fails
//     with ErrSessionExists saying the log is gone. A backend refuses a write to
//     a log it no longer holds, as the JSONL backend does to a file
//     removed or replaced while open.
//   - Another writer. Once Load finds that the stored log no longer holds
//     what this store wrote (another number of events, or another last
//     event: Load compares no more, so it makes no pass over the log),
//     Append and Load of that session fail with the same error until the
//     store is reopened or the session deleted: appending at the seq this
//     store expected would duplicate the other writer's events, and taking
//     up the other's log would only move the collision to its next write.
//
// One Store owns a folder or a database at a time: two processes appending
// to the same storage are not coordinated with each other.
package persistence
