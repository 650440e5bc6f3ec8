// Package jsonl is the JSON Lines persistence backend: one file per
// session, header first, the same format as a fixture's logs.
//
// # Folder layout
//
// A store is one folder. Each session is one file, named by [FileName]: the
// session id with every byte outside [A-Za-z0-9_.-] (and a leading dot)
// written as %XX, plus ".jsonl" — "root/call_1" is "root%2Fcall_1.jsonl".
// Files are keyed by the id in their header, not by their name, so a
// fixture folder (session.jsonl, session.1.jsonl, ...) opens as a store
// too. Files whose names start with a dot are ignored: they are temporary
// files of a creation that did not finish.
//
// # Durability
//
// A session's file is created with its first Append: header, seed and
// batch are written to a temporary file, synced, linked to the final name
// (which fails if the name is taken) and the folder is synced, so a crash
// leaves either no file or the whole first batch. Every later batch is one
// Write call on a file opened for appending, followed by fsync; Append
// returns only after both. [NoSync] drops the fsyncs (and with them the
// guarantee against a machine crash, not against a process crash): for
// tests and benchmarks.
//
// # Crash repair
//
// A crash in the middle of a Write leaves the batch's first lines and a
// torn last line. Reading drops the torn line and reports it
// (session.Log.Torn); a broken line or a seq gap before the end is an error
// naming the file and the line. The persistence.Coordinator closes an
// interrupted turn on Load and writes the closers with the next Append; when
// the file ends in a torn line, that Append first truncates the file to the
// end of its last whole line. Those bytes were never acknowledged: no Append
// returned for them. Reading never writes.
package jsonl
