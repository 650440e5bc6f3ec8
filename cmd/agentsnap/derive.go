package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fakellm"
)

func init() {
	register(&command{
		name:    "derive",
		args:    "FILE [--attempts every|acted-on] [--drop-incomplete]",
		summary: "print a session log's replay script as JSON",
		detail: `Derives the replay script of one session log the way the replay driver does —
from the session's own events only (events[seedLength:]), one entry per model
call — and prints it as a JSON array of entries, the shape of the entries of a
replay.override.json sidecar:

  [{"kind": "chunks", "turn": 1, "step": 1, "chunks": [...]}, ...]

--attempts every      replay failed attempts too, so recovery happens again (default)
--attempts acted-on   only the last attempt of each step
--drop-incomplete     drop model calls without a finish chunk (crash artifacts)
                      instead of failing; each dropped call is named on stderr

A log that cannot be derived (a broken line, a seedLength past the end, a model
call without a finish) exits 1 with the file, the session and the call.`,
		order: 2,
		run:   runDerive,
	})
}

// runDerive prints the replay script of one log; see the command's detail.
func runDerive(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("derive", flag.ContinueOnError)
	attempts := fs.String("attempts", string(fakellm.AttemptsEvery), "every or acted-on")
	drop := fs.Bool("drop-incomplete", false, "drop model calls without a finish chunk")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return usageError(e, "derive", "%v", err)
	}
	if len(pos) != 1 {
		return usageError(e, "derive", "want one FILE, got %d arguments", len(pos))
	}
	mode, err := fakellm.ParseAttempts(*attempts)
	if err != nil {
		return usageError(e, "derive", `--attempts is %q; want "every" or "acted-on"`, *attempts)
	}
	path := pos[0]
	if e.dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(e.dir, path)
	}
	s, err := fakellm.DeriveFile(path, fakellm.DeriveOptions{Attempts: mode, DropIncomplete: *drop})
	if err != nil {
		return fail(e, "derive", err)
	}
	for _, d := range s.Dropped {
		fmt.Fprintf(e.stderr, "agentsnap derive: %s: dropped the incomplete model call at turn %d step %d%s (%s, no finish)\n", pos[0], d.Turn, d.Step, deriveAttemptNote(d.Attempt), deriveChunkCount(d.Chunks))
	}
	if _, err := e.stdout.Write(fakellm.MarshalScript(s.Entries)); err != nil {
		return fail(e, "derive", err)
	}
	return exitOK
}

func deriveAttemptNote(a int) string {
	if a == 0 {
		return ""
	}
	return fmt.Sprintf(" attempt %d", a)
}

func deriveChunkCount(n int) string {
	if n == 1 {
		return "1 chunk"
	}
	return fmt.Sprintf("%d chunks", n)
}
