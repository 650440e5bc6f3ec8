// Package recorder captures a scenario into a fixture: it runs the
// scenario's prompts through the agent runtime with a live or playbook
// driver and writes every session log (session.jsonl, session.<n>.jsonl in
// lineage order), the transcript golden and the recording metadata.
//
// A recording is all or nothing: everything is written into a temporary
// folder beside the fixture, which then takes the fixture's place in one
// step (internal/atomicfile.ReplaceDir). A failed, cancelled or killed
// recording leaves the previous fixture byte-identical.
//
// Before anything is saved, machine paths (the working folder, the temporary
// folder, the home folder) become placeholders, and a tripwire refuses to
// save when the value of an API key appears anywhere in what would be
// written.
//
// With Options.OnlyChanged a recording re-records only what changed: every
// session replays its recorded calls while the agent's requests match them
// and asks the model from its first call that does not (reuse.go) — it
// gets its recorded tool outputs and MCP answers while it replays, and
// runs its tools once it asks the model — and a session that comes out as
// recorded keeps its file byte for byte (keep.go).
package recorder
