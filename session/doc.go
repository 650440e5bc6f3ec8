// Package session is the agentsnap session log: the on-disk contract shared
// by the agent runtime, both persistence backends, the replay driver and the
// harness.
//
// A log is JSON Lines. Line 1 is a [Header]; every later line is one
// [Event] with a dense seq from 0. The format is the dsh v0 session log with
// two optional header fields of agentsnap's own (parentCallId and mode), so
// logs written by dsh read, derive and convert without loss.
//
// dsh may store runs of streamed deltas as packed rows (text-chunks,
// reasoning-chunks, tool-call-chunks). The [Reader] expands each row into the
// logical assistant/chunk events it stands for, so every consumer sees one
// event per seq and a header's SeedLength counts logical events.
//
// Reading never writes. Every read error is a [*ParseError] that starts with
// "file:line:" so editors can jump to it.
//
// The fork seed boundary lives here too: [CompletedPrefix] is the balanced
// completed-turn prefix a fork child inherits, and [Header.SeedLength] records
// where it ends; [CheckSeedBoundary] refuses a seedLength that does not fall
// right after a turn/end. [LineageIDs] names sessions by their place in the
// agent tree (root, root/call_1, ...), so two runs name them alike.
//
// Which events a runtime writes, when, and with which payload is the
// contract in CONTRACT.md at the module root; the payload types here
// ([TurnStartData], [RequestHeaderData], [ChunkData], ...) encode it, and
// package journal writes it.
package session
