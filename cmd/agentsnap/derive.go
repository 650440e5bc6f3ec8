package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
)

func init() {
	register(&command{
		name:    "derive",
		args:    "FILE [--attempts every|acted-on] [--drop-incomplete]",
		summary: "print a session log's replay script as JSON",
		detail: `Derives the replay script of one session log the way the replay driver does —
from the session's own events only (events[seedLength:]), one entry per model
call that streamed (a call refused before its first chunk has none; the
numbers below still count it) — and prints it as a JSON array of entries,
the shape of the entries of a replay.override.json sidecar:

  [{"kind": "chunks", "turn": 1, "step": 1, "call": 1, "chunks": [...]}, ...]

turn, step and attempt say where a call was recorded; call is its number
among the session's model calls, from 1, failed attempts counted: the number
inspect, check's drift, record --only-changed and the report give it. With
--attempts acted-on a retried step's failed calls have no entry, and the
entries keep their calls' numbers (call 1 failed, call 2 answered: one
entry, call 2). A sidecar's "patch" keys are not call numbers: they are
positions in the script replay serves (every attempt), from 0.

A log that cannot be derived (a broken line, a seedLength past the end, a model
call without a finish) exits 1 with the file, the session and the call.
The values of the shell's keys (those check redacts) print as [REDACTED].`,
		order: 70,
		flags: func() *flag.FlagSet { return new(deriveFlags).set() },
		run:   runDerive,
	})
}

// deriveFlags are derive's flags; set builds the flag set for both parsing
// and help.
type deriveFlags struct {
	attempts string
	drop     bool
}

func (f *deriveFlags) set() *flag.FlagSet {
	fs := newFlagSet("derive")
	fs.StringVar(&f.attempts, "attempts", string(fakellm.AttemptsEvery),
		"which attempts of each step to replay, `every|acted-on`: every also replays the failed ones, so recovery happens again; acted-on only the last one, which keeps its call's number")
	fs.BoolVar(&f.drop, "drop-incomplete", false,
		"drop model calls without a finish chunk (crash artifacts) instead of failing; each dropped call is named on stderr")
	return fs
}

// runDerive prints the replay script of one log; see the command's detail.
func runDerive(_ context.Context, e *env, args []string) int {
	var f deriveFlags
	pos, err := parseFlags(f.set(), args)
	if err != nil {
		return usageError(e, "derive", "%v", err)
	}
	if len(pos) != 1 {
		return usageError(e, "derive", "want one FILE, got %d arguments", len(pos))
	}
	mode, err := fakellm.ParseAttempts(f.attempts)
	if err != nil {
		return usageError(e, "derive", `--attempts is %q; want "every" or "acted-on"`, f.attempts)
	}
	path := e.path(pos[0])
	if err := deriveInput(pos[0], path); err != nil {
		return fail(e, "derive", err)
	}
	s, err := fakellm.DeriveFile(path, fakellm.DeriveOptions{Attempts: mode, DropIncomplete: f.drop})
	if err != nil {
		return fail(e, "derive", unreadable(err))
	}
	for _, d := range s.Dropped {
		warn(e, "derive", "%s: dropped the incomplete model call at turn %d step %d%s (%s, no finish)", pos[0], d.Turn, d.Step, deriveAttemptNote(d.Attempt), english.Count(d.Chunks, "chunk"))
	}
	if _, err := e.stdout.Write(redactScript(e, pos[0], fakellm.MarshalScript(s.Entries))); err != nil {
		return fail(e, "derive", err)
	}
	return exitOK
}

// redactScript returns the script derived from the log name with the
// secrets of the shell replaced (see redact.go), and says so on stderr: a
// script printed is often saved as a sidecar or pasted into an issue, and
// either is shared. The set's forms include a value's JSON escaping, and
// its replacement needs none, so the JSON stays valid.
func redactScript(e *env, name string, script []byte) []byte {
	secrets := secret.FromEnv(e.getenv)
	source, _, ok := secrets.Find(script)
	if !ok {
		return script
	}
	warn(e, "derive", "%s: the script holds the value of %s, a credential; it is printed as %s (a recording should hold no key: keep it out of the scenario and of what the agent writes, then re-record)", name, source, secret.Redacted)
	return []byte(secrets.Redact(string(script)))
}

// deriveInput refuses a missing file and a folder before reading, naming
// them as the user did; a folder's message names the logs it holds.
func deriveInput(name, path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file", name)
	case err != nil || !st.IsDir():
		return nil // DeriveFile reports any other problem with the file
	}
	example := filepath.Join(name, fixture.RootLog)
	logs, err := session.FolderLogs(path)
	if err != nil {
		return fmt.Errorf("%s is a folder; derive takes one session log file, e.g. %s", name, example)
	}
	files := make([]string, len(logs))
	for i, p := range logs {
		files[i] = filepath.Base(p)
	}
	example = filepath.Join(name, files[0])
	listed := strings.Join(files[:min(len(files), 5)], ", ")
	if len(files) > 5 {
		listed += fmt.Sprintf(" and %d more", len(files)-5)
	}
	return fmt.Errorf("%s is a folder; derive takes one session log file, e.g. %s (it holds %s)", name, example, listed)
}

// unreadable adds what to do to err when it is a file or folder this user
// may not read, for a command that only reads (derive, inspect, convert's
// SRC): err names the path; the command can do nothing about it.
func unreadable(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w; make it readable by this user (fix its permissions)", err)
	}
	return err
}

// missingInput is the error for an input of a command that reads one
// (inspect, convert's SRC) named as the user did, saying what it takes.
func missingInput(name, takes string) error {
	return fmt.Errorf("%s: no such file or folder; give %s", name, takes)
}

func deriveAttemptNote(a int) string {
	if a == 0 {
		return ""
	}
	return fmt.Sprintf(" attempt %d", a)
}
