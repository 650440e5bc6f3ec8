package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/session"
)

func init() {
	register(&command{
		name:    "inspect",
		args:    "PATH",
		summary: "show a session log's header, lineage, seed boundary and turns",
		order:   10,
		detail: `
PATH is a JSONL session log, a folder of logs (a scenario folder), or a
SQLite database written by agentsnap. For each session it prints the header,
its lineage (parent, the tool call that created it, spawn or fork), the seed
boundary of a fork child (which events are inherited and which are its own)
and one line per turn: steps, model calls, tool calls, how the turn ended.
Inherited turns are marked. The file is only read.

Exit status is 0, or 1 with "file:line: what is wrong" on bad input.`,
		run: runInspect,
	})
}

func runInspect(ctx context.Context, e *env, args []string) int {
	pos, err := parseFlags(newFlagSet("inspect"), args)
	if err != nil {
		return usageError(e, "inspect", "%v", err)
	}
	if len(pos) != 1 {
		return usageError(e, "inspect", "want one PATH, got %d arguments", len(pos))
	}
	logs, err := loadLogs(ctx, e.path(pos[0]))
	if err != nil {
		return fail(e, "inspect", err)
	}
	if len(logs) > 1 {
		printTree(e.stdout, logs)
	}
	for i, l := range logs {
		if i > 0 || len(logs) > 1 {
			fmt.Fprintln(e.stdout)
		}
		printLog(e.stdout, l)
	}
	return exitOK
}

// loadLogs reads a log file, a folder of logs, or a database.
func loadLogs(ctx context.Context, path string) ([]*session.Log, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return session.ReadFolder(path)
	}
	if spec, err := open.Detect(path); err == nil && spec.Kind == open.SQLite {
		return readDatabase(ctx, path)
	}
	l, err := session.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return []*session.Log{l}, nil
}

func printTree(w io.Writer, logs []*session.Log) {
	ordered, err := session.LineageOrder(logs)
	if err != nil {
		fmt.Fprintf(w, "tree: %v\n", err)
		return
	}
	names := map[string]string{}
	for _, l := range logs {
		names[l.Header.ID] = displayName(l)
	}
	fmt.Fprintln(w, "tree:")
	for _, l := range ordered {
		h := l.Header
		line := strings.Repeat("  ", h.DelegationDepth+1) + names[h.ID]
		if h.ParentSession != "" {
			line += fmt.Sprintf("  %s via %s", modeOf(&h), orDash(h.ParentCallID))
		}
		fmt.Fprintln(w, line)
	}
}

func displayName(l *session.Log) string {
	if l.Path != "" {
		return l.Path
	}
	return l.Header.ID
}

func modeOf(h *session.Header) string {
	if h.Mode != "" {
		return string(h.Mode)
	}
	if h.SeedLength > 0 {
		return "fork, by seedLength"
	}
	return "spawn or fork (not recorded)"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func printLog(w io.Writer, l *session.Log) {
	h := l.Header
	fmt.Fprintf(w, "%s\n", displayName(l))
	fmt.Fprintf(w, "  session   %s\n", h.ID)
	fmt.Fprintf(w, "  created   %s (createdAt %d)\n", time.UnixMilli(h.CreatedAt).UTC().Format(time.RFC3339), h.CreatedAt)
	if h.Cwd != "" {
		fmt.Fprintf(w, "  cwd       %s\n", h.Cwd)
	}
	if h.AgentPreset != "" {
		fmt.Fprintf(w, "  preset    %s\n", h.AgentPreset)
	}
	if h.ParentSession == "" {
		fmt.Fprintf(w, "  lineage   root, depth %d\n", h.DelegationDepth)
	} else {
		fmt.Fprintf(w, "  lineage   child of %s via call %s (%s), depth %d, origin %s\n", h.ParentSession, orDash(h.ParentCallID), modeOf(&h), h.DelegationDepth, orDash(h.Origin))
	}
	switch {
	case h.SeedLength > 0:
		fmt.Fprintf(w, "  seed      %d inherited events (seq 0-%d); own events from seq %d\n", h.SeedLength, h.SeedLength-1, h.SeedLength)
	case h.Mode == session.ModeFork:
		fmt.Fprintf(w, "  seed      none (forked before the parent completed a turn)\n")
	default:
		fmt.Fprintf(w, "  seed      none\n")
	}
	fmt.Fprintf(w, "  events    %d (%d own)\n", len(l.Events), len(l.Events)-h.SeedLength)
	if l.Torn != nil {
		fmt.Fprintf(w, "  torn      line %d (%d bytes) is incomplete and was skipped: a crash mid-write; a store repairs it on load\n", l.Torn.Line, l.Torn.Bytes)
	}
	turns := summarizeTurns(l)
	if len(turns) == 0 {
		fmt.Fprintf(w, "  turns     none\n")
		return
	}
	fmt.Fprintf(w, "  turns\n")
	for _, t := range turns {
		fmt.Fprintf(w, "    %s\n", t)
	}
}
