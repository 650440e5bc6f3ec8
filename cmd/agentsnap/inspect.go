package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/session"
)

func init() {
	register(&command{
		name:    "inspect",
		args:    "PATH",
		summary: "show a session log's header, lineage, seed boundary and turns",
		order:   60,
		detail: `
PATH is a JSONL session log, a folder of logs (a scenario folder), or a
SQLite database written by agentsnap. The file is only read.

For a folder or a database it first prints the session tree: each session
under its parent, with how it was created (spawn or fork) and the parent's
tool call that created it — one tree and usage table per root session, as
in the store "check --store" keeps (every scenario's replay). Then, for
each session:

  session   its id
  created   createdAt, as a UTC time and as recorded (milliseconds)
  cwd, preset   when recorded
  lineage   root, or the parent, the tool call (parentCallId), the mode
            (spawn or fork), the delegation depth and the origin. A log
            without parentCallId or mode (dsh writes neither) says so: a
            child with a seedLength is a fork; without one it may be either.
  seed      a fork child's seed boundary: the first seedLength events are
            inherited from the parent, its own events start at seq
            seedLength. The seed is the parent's completed turns, so the
            boundary must fall right after a turn/end; inspect warns when
            it does not (the child would replay a half-done turn).
  events    how many, and how many are the session's own
  torn      a last line cut by a crash, skipped
  turns     one line per turn: steps, model calls, how the turn ended,
            [inherited] for a turn in the seed, the tools called and the
            last assistant text
  usage     the session's own model calls and tokens (input, of them from
            cache; output, of them reasoning), and its cost when the
            scenario.json beside the logs has prices; a folder or a
            database also gets a table of every session and the tree.
            inspect warns when a replay could not read the log (a usage
            the contract refuses, a member of the wrong type): the
            counts skip what it cannot read, and the table names each
            event it did not count

A model call is one attempt, counted by its request/header (CONTRACT.md):
a call that failed, was aborted, was cut short by a cancel or could not
start counts too. A log without request/header events per call (dsh's)
is counted by its streams: each (turn, step, attempt) run of chunks up to
its finish is one call. The own turns' calls add up to the session's.

Usage is each call's assistant/message usage, else the last usage chunk
of its stream (a failed call), else none ("without usage"). A fork
child's inherited seed is its parent's and counts there.

The values of the shell's keys (the variables check redacts) print as
[REDACTED].

Exit status is 0, or 1 with "file:line: what is wrong" on bad input.`,
		flags: func() *flag.FlagSet { return newFlagSet("inspect") },
		run:   runInspect,
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
	if errors.Is(err, fs.ErrNotExist) && !exists(e.path(pos[0])) {
		err = missingInput(pos[0], "a session log, a folder of logs (a scenario folder) or a SQLite database")
	}
	if err != nil {
		return fail(e, "inspect", unreadable(err))
	}
	prices, none, note := inspectPrices(e.path(pos[0]))
	// Written whole, then redacted: a key may span two writes.
	var out strings.Builder
	if len(logs) > 1 {
		for i, t := range trees(logs) {
			if i > 0 {
				fmt.Fprintln(&out)
			}
			printTree(&out, t)
			fmt.Fprintln(&out)
			printUsage(&out, t, prices, none, note)
		}
	}
	for i, l := range logs {
		if i > 0 || len(logs) > 1 {
			fmt.Fprintln(&out)
		}
		printLog(&out, l, prices)
	}
	if _, err := io.WriteString(e.stdout, secret.FromEnv(e.getenv).Redact(out.String())); err != nil {
		return fail(e, "inspect", err)
	}
	return exitOK
}

// exists reports whether path names anything, a link to nothing included:
// an input that does not is named as missing, not by the stat that found it.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
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

// trees splits logs into one agent tree per root session, in the order
// their roots come: the store that check --store writes holds every
// scenario's tree, and each is shown on its own. Logs that do not split
// that way (a parent missing, a loop) stay together, so printTree names
// what is wrong with them.
func trees(logs []*session.Log) [][]*session.Log {
	byID := make(map[string]*session.Log, len(logs))
	for _, l := range logs {
		byID[l.Header.ID] = l
	}
	rootOf := func(l *session.Log) string {
		for range len(logs) {
			if !l.Header.IsChild() {
				return l.Header.ID
			}
			if l = byID[l.Header.ParentSession]; l == nil {
				return ""
			}
		}
		return ""
	}
	var roots []string
	groups := map[string][]*session.Log{}
	for _, l := range logs {
		r := rootOf(l)
		if r == "" {
			return [][]*session.Log{logs}
		}
		if _, seen := groups[r]; !seen {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], l)
	}
	out := make([][]*session.Log, len(roots))
	for i, r := range roots {
		out[i] = groups[r]
	}
	return out
}

func printTree(w io.Writer, logs []*session.Log) {
	ordered, err := session.LineageOrder(logs)
	if err != nil {
		fmt.Fprintf(w, "tree: %v\n", err)
		return
	}
	// Each session is indented by its place in the tree, not by the
	// delegationDepth its header claims: a parent comes before its
	// children in lineage order.
	depth := map[string]int{}
	fmt.Fprintln(w, "tree:")
	for _, l := range ordered {
		h := l.Header
		d := 0
		if h.IsChild() {
			d = depth[h.ParentSession] + 1
		}
		depth[h.ID] = d
		line := strings.Repeat("  ", d+1) + displayName(l)
		if h.IsChild() {
			line += "  " + modeOf(&h)
			if h.ParentCallID != "" {
				line += " via " + printable(h.ParentCallID)
			} else {
				line += ", call not recorded"
			}
		}
		fmt.Fprintln(w, line)
	}
}

// displayName names a log in inspect's output, escaped (see printable).
func displayName(l *session.Log) string {
	if l.Path != "" {
		return printable(l.Path)
	}
	return printable(l.Header.ID)
}

// modeOf says how a child was created: the recorded mode, else what its
// seedLength shows (only a fork inherits events; a fork on the parent's
// first turn inherits none, so without a seed it can be either).
func modeOf(h *session.Header) string {
	switch {
	case h.Mode != "":
		return string(h.Mode)
	case h.SeedLength > 0:
		return "fork (by seedLength)"
	default:
		return "spawn or fork (mode not recorded)"
	}
}

// lineage describes a session's place in its tree for printLog.
func lineage(h *session.Header) string {
	if !h.IsChild() {
		return fmt.Sprintf("root, depth %d", h.DelegationDepth)
	}
	s := "child of " + printable(h.ParentSession)
	switch {
	case h.ParentCallID != "" && h.Mode != "":
		s += fmt.Sprintf(" via call %s (%s)", printable(h.ParentCallID), h.Mode)
	case h.ParentCallID != "":
		s += fmt.Sprintf(" via call %s, %s", printable(h.ParentCallID), modeOf(h))
	default:
		s += fmt.Sprintf(" (parentCallId not recorded: a dsh log?), %s", modeOf(h))
	}
	s += fmt.Sprintf(", depth %d", h.DelegationDepth)
	if h.Origin != "" {
		s += ", origin " + printable(h.Origin)
	}
	return s
}

// seedLine describes the seed boundary, and warns when it does not fall
// right after a turn/end: a fork inherits completed turns only.
func seedLine(l *session.Log) string {
	h := &l.Header
	switch {
	case h.SeedLength > 0:
		s := fmt.Sprintf("%s (seq %s); own events from seq %d", english.Count(h.SeedLength, "inherited event"), seqRange(h.SeedLength), h.SeedLength)
		if last := l.Events[h.SeedLength-1]; last.Type != session.TypeTurnEnd {
			s += fmt.Sprintf("\n            warning: the seed ends with %s at seq %d, not right after a turn/end: a fork inherits completed turns only, so this child would replay a half-done turn; re-record it", last.Type, h.SeedLength-1)
		}
		return s
	case h.Mode == session.ModeFork:
		return "none (forked before the parent completed a turn)"
	default:
		return "none"
	}
}

// replayable derives l's replay script, as a replay does, for the
// error that would stop it: a usage or chunk the contract refuses, an
// event whose members are of the wrong type. A torn last line is said
// on its own line.
func replayable(l *session.Log) error {
	_, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
	if errors.Is(err, fakellm.ErrTornLog) {
		return nil
	}
	return err
}

func seqRange(n int) string {
	if n == 1 {
		return "0"
	}
	return fmt.Sprintf("0-%d", n-1)
}

func printLog(w io.Writer, l *session.Log, prices budget.Prices) {
	h := l.Header
	fmt.Fprintf(w, "%s\n", displayName(l))
	fmt.Fprintf(w, "  session   %s\n", printable(h.ID))
	fmt.Fprintf(w, "  created   %s (createdAt %d)\n", time.UnixMilli(h.CreatedAt).UTC().Format(time.RFC3339), h.CreatedAt)
	if h.Cwd != "" {
		fmt.Fprintf(w, "  cwd       %s\n", printable(h.Cwd))
	}
	if h.AgentPreset != "" {
		fmt.Fprintf(w, "  preset    %s\n", printable(h.AgentPreset))
	}
	fmt.Fprintf(w, "  lineage   %s\n", lineage(&h))
	fmt.Fprintf(w, "  seed      %s\n", seedLine(l))
	fmt.Fprintf(w, "  events    %d (%d own)\n", len(l.Events), len(l.Events)-h.SeedLength)
	fmt.Fprintf(w, "  usage     %s\n", sessionUsage(l, prices))
	if err := replayable(l); err != nil {
		// The counts above skip what cannot be read: say why, as a replay would.
		msg := err.Error()
		if !strings.Contains(msg, "re-record") {
			msg += "; re-record the scenario"
		}
		fmt.Fprintf(w, "            warning: a replay cannot read this log: %s\n", printable(msg))
	}
	if l.Torn != nil {
		fmt.Fprintf(w, "  torn      line %d (%d bytes) is incomplete and was skipped: a crash mid-write; a store repairs it on load\n", l.Torn.Line, l.Torn.Bytes)
	}
	turns := summarizeTurns(l)
	if len(turns) == 0 {
		fmt.Fprintf(w, "  turns     none\n")
		return
	}
	fmt.Fprintf(w, "  turns\n")
	for _, line := range turnTable(turns) {
		fmt.Fprintf(w, "    %s\n", printable(line))
	}
}
