package main

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/internal/sessiontext"
	"github.com/agentsnap/agentsnap/internal/textdiff"
)

// proposalHeader heads every diff review prints: golden on the "-" side,
// the proposal on the "+" side.
const proposalHeader = "[diff -golden +proposal]"

// Session statuses of a proposal's diff.
const (
	sessionChanged = "changed"
	sessionAdded   = "added"
	sessionRemoved = "removed"
)

// sessionDiff is how one session of a transcript changes in a proposal.
type sessionDiff struct {
	Session string `json:"session"` // the session line without its "==" marks
	Status  string `json:"status"`  // changed, added or removed
	Diff    string `json:"diff"`    // [diff -golden +proposal], lines numbered as in the files
}

// section is one session of a transcript (see sessiontext.Split).
type section = sessiontext.Section

// diffSessions compares a golden and a proposal session by session, in the
// proposal's order with removed sessions last, and warns about what is
// likely a mistake: a session that disappeared, a child whose mode
// changed, or a fork that inherits other turns. A child whose creating call got another
// id is the same session (sessiontext.Pair), changed.
func diffSessions(golden, proposal string) (diffs []sessionDiff, warnings []string) {
	gs, ps := sessiontext.Split(golden), sessiontext.Split(proposal)
	was := sessiontext.Pair(gs, ps)
	seen := make([]bool, len(gs))
	for i := range ps {
		p := &ps[i]
		if was[i] < 0 {
			diffs = append(diffs, sessionDiff{p.Name(), sessionAdded, wholeDiff(p, '+', "proposal")})
			continue
		}
		g := &gs[was[i]]
		seen[was[i]] = true
		if g.Text != p.Text {
			diffs = append(diffs, sessionDiff{p.Name(), sessionChanged, changedDiff(g, p)})
		}
		if g.Mode != p.Mode {
			warnings = append(warnings, fmt.Sprintf("%s: the child was a %s and the proposal makes it a %s (%q)", g.Name(), g.Made(), p.Made(), p.Header))
		}
		if !sessiontext.SameSeed(g, p) {
			warnings = append(warnings, fmt.Sprintf("%s: the fork seed changed from %s to %s", g.Name(), g.Inherited(), p.Inherited()))
		}
	}
	for i := range gs {
		if g := &gs[i]; !seen[i] {
			diffs = append(diffs, sessionDiff{g.Name(), sessionRemoved, wholeDiff(g, '-', "golden")})
			warnings = append(warnings, fmt.Sprintf("%s: the session is in the golden but not in the proposal: the agent no longer starts it", g.Name()))
		}
	}
	return diffs, warnings
}

// changedDiff is the diff of one session present on both sides, its hunk
// lines numbered as in the two files.
func changedDiff(g, p *section) string {
	lines := strings.Split(strings.TrimSuffix(textdiff.Unified(g.Text, p.Text, 3), "\n"), "\n")
	for i, l := range lines {
		var a, b int
		switch {
		case l == textdiff.Header:
			lines[i] = proposalHeader
		case strings.HasPrefix(l, "@@ "):
			if _, err := fmt.Sscanf(l, "@@ golden line %d, replay line %d @@", &a, &b); err == nil {
				lines[i] = fmt.Sprintf("@@ golden line %d, proposal line %d @@", a+g.Start-1, b+p.Start-1)
			}
		case strings.HasPrefix(l, "... "):
			lines[i] = strings.Replace(l, "diff -u GOLDEN REPLAY", "diff -u transcript.golden transcript.golden.new", 1)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// wholeDiff shows a session only one side has, every line marked with
// sign.
func wholeDiff(s *section, sign byte, side string) string {
	lines := strings.Split(strings.TrimSuffix(s.Text, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n@@ %s lines %d-%d @@\n", proposalHeader, side, s.Start, s.Start+len(lines)-1)
	for i, l := range lines {
		if i == textdiff.MaxLines {
			fmt.Fprintf(&b, "... %d more lines not shown; see the file\n", len(lines)-i)
			break
		}
		b.WriteByte(sign)
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
