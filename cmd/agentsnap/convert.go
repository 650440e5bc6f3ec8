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

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/session"
)

func init() {
	register(&command{
		name:    "convert",
		args:    "SRC DST",
		summary: "convert session logs between JSONL and SQLite, without loss",
		order:   80,
		detail: `
SRC is a JSONL session log, a folder of logs or a SQLite database (told apart
by their first bytes); DST is written in the other format. JSONL becomes a new
SQLite database at DST (a DST ending in .jsonl is refused: the database would
be taken for a log). A database becomes a folder of logs at DST, or one log
file when DST ends in .jsonl and the database holds one session.

Nothing is lost either way: headers (seedLength, createdAt, lineage), unknown
event types and unknown members all survive. Packed chunk rows are written
expanded, one event per seq. A folder written from a database that holds one
session tree gets fixture names (session.jsonl, then session.<n>.jsonl in
lineage order); otherwise each file is named by its session id. A torn last
line (a crash in the middle of a write) is no event: it is dropped, with a
warning. An interrupted turn is converted as it is, not closed.

DST must not exist (a folder may, if empty). convert writes under a
temporary name and renames it when done, so a failure leaves nothing behind.
SRC is only read; a database of another schema version is refused.`,
		flags: func() *flag.FlagSet { return newFlagSet("convert") },
		run:   runConvert,
	})
}

func runConvert(ctx context.Context, e *env, args []string) int {
	pos, err := parseFlags(newFlagSet("convert"), args)
	if err != nil {
		return usageError(e, "convert", "%v", err)
	}
	if len(pos) != 2 {
		return usageError(e, "convert", "want SRC and DST, got %d arguments", len(pos))
	}
	src, dst := e.path(pos[0]), e.path(pos[1])
	if !exists(src) {
		return fail(e, "convert", missingInput(pos[0], "a session log, a folder of logs or a SQLite database to convert"))
	}
	spec, err := open.Detect(src)
	if err != nil {
		return fail(e, "convert", unreadable(err))
	}
	logs, err := readSource(ctx, spec)
	if err != nil {
		return fail(e, "convert", unreadable(err))
	}
	if len(logs) == 0 {
		return fail(e, "convert", fmt.Errorf("%s holds no sessions; nothing to convert, so nothing was written: give a session log, a folder of session logs (*.jsonl) or a database that holds sessions", src))
	}
	for _, l := range logs {
		if t := l.Torn; t != nil {
			warn(e, "convert", "warning: %s:%d: dropped a torn last line (%d bytes), what a crash in the middle of a write leaves", printable(l.Path), t.Line, t.Bytes)
		}
	}
	// DST is built beside itself: a missing folder would fail as a bare
	// "stat DIR: no such file or directory".
	if _, err := os.Stat(filepath.Dir(dst)); errors.Is(err, fs.ErrNotExist) {
		return fail(e, "convert", fmt.Errorf("%s: the folder %s does not exist; create it first, or give a DST in a folder that exists; nothing was written", dst, filepath.Dir(dst)))
	}
	var what string
	if spec.Kind == open.SQLite {
		what, err = writeJSONL(dst, logs)
	} else {
		what, err = writeDatabase(ctx, dst, logs)
	}
	if err != nil {
		return fail(e, "convert", err)
	}
	events := 0
	for _, l := range logs {
		events += len(l.Events)
	}
	fmt.Fprintf(e.stdout, "converted %s (%s) from %s to %s %s\n", english.Count(len(logs), "session"), english.Count(events, "event"), src, what, dst)
	return exitOK
}

// readSource reads every session of src as it is stored, in storage order.
func readSource(ctx context.Context, spec open.Spec) ([]*session.Log, error) {
	src, err := spec.ReadOnly(ctx)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return persistence.ReadAll(ctx, src)
}

// readDatabase reads every session of a database for inspect.
func readDatabase(ctx context.Context, path string) ([]*session.Log, error) {
	return readSource(ctx, open.Spec{Kind: open.SQLite, Path: path})
}

// writeDatabase writes logs to a new database at dst, through a temporary
// file renamed at the end.
func writeDatabase(ctx context.Context, dst string, logs []*session.Log) (string, error) {
	if _, err := os.Lstat(dst); err == nil {
		return "", fmt.Errorf("%s exists; convert writes a new database: remove it or give another path", dst)
	}
	if strings.HasSuffix(dst, jsonl.Ext) {
		// A database named like a log would be taken for one, by a
		// fixture folder's listing and by the next convert.
		return "", fmt.Errorf("%s ends in %s, but session logs convert to a SQLite database: give DST another name, such as %s", dst, jsonl.Ext, strings.TrimSuffix(dst, jsonl.Ext)+".db")
	}
	// An empty file is a new database to SQLite.
	f, err := os.CreateTemp(filepath.Dir(dst), tempPattern(dst))
	if err != nil {
		return "", err
	}
	f.Close()
	tmp := f.Name()
	removeTmp := func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(tmp + suffix)
		}
	}
	// CreateTemp makes the file private (0600); the database is an
	// ordinary file others read, as the one record --store creates.
	if err := os.Chmod(tmp, 0o644); err != nil {
		removeTmp()
		return "", err
	}
	db, err := sqlite.OpenBackend(ctx, tmp)
	if err != nil {
		removeTmp()
		return "", err
	}
	for _, l := range logs {
		if err := db.Write(ctx, &persistence.Batch{Header: &l.Header, New: true, Events: l.Events}); err != nil {
			db.Close()
			removeTmp()
			return "", err
		}
	}
	// Closing checkpoints the WAL into the file, so the file is the
	// whole database.
	if err := db.Close(); err != nil {
		removeTmp()
		return "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		removeTmp()
		return "", err
	}
	return "SQLite database", nil
}

// writeJSONL writes logs as one file at dst (dst ends in .jsonl), or as a
// folder of logs, built under a temporary name and renamed at the end.
func writeJSONL(dst string, logs []*session.Log) (string, error) {
	if strings.HasSuffix(dst, jsonl.Ext) {
		if len(logs) != 1 {
			return "", fmt.Errorf("the database holds %s and %s names one log file; give a folder instead", english.Count(len(logs), "session"), dst)
		}
		if _, err := os.Lstat(dst); err == nil {
			return "", fmt.Errorf("%s exists; remove it or give another path", dst)
		}
		return "JSONL log", session.WriteFile(dst, logs[0])
	}
	if st, err := os.Lstat(dst); err == nil && !st.IsDir() {
		// ReadDir would say only "not a directory".
		return "", fmt.Errorf("%s exists and is not a folder; a database converts to a folder of logs (or one .jsonl file): give a new or empty folder", dst)
	}
	if entries, err := os.ReadDir(dst); err == nil && len(entries) > 0 {
		return "", fmt.Errorf("%s exists and is not empty; give a new or empty folder", dst)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	names := fileNames(logs)
	tmp, err := os.MkdirTemp(filepath.Dir(dst), tempPattern(dst))
	if err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	for i, l := range logs {
		if err := session.WriteFile(filepath.Join(tmp, names[i]), l); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
	}
	os.Remove(dst) // an empty folder gives way; anything else makes Rename fail
	if err := os.Rename(tmp, dst); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return "folder of JSONL logs", nil
}

// fileNames names the files of logs: fixture names when they form one
// session tree, otherwise the JSONL store's names.
func fileNames(logs []*session.Log) []string {
	names := make([]string, len(logs))
	ordered, err := session.LineageOrder(logs)
	if err != nil {
		for i, l := range logs {
			names[i] = jsonl.FileName(l.Header.ID)
		}
		return names
	}
	n := map[string]int{}
	for i, l := range ordered {
		n[l.Header.ID] = i
	}
	for i, l := range logs {
		names[i] = fixture.RootLog
		if k := n[l.Header.ID]; k > 0 {
			names[i] = fixture.ChildLog(k)
		}
	}
	return names
}

// tempPattern names a temporary file or folder beside path for building
// it; the leading dot keeps it out of log listings.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }
