package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

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

// section is one session of a transcript: its header line and the lines
// up to the next header (see transcript.Render).
type section struct {
	key    string // its place in the tree by creating calls: root, root/call_a, root/call_a/call_b
	header string // "== session 1: fork of root via call_a, depth 1 =="
	mode   string // spawn, fork, ... ; "" for the root
	seed   string // the "(inherits N events ...)" line, "" when none
	text   string
	start  int // line of the header in its file, from 1
}

// sessionHeader matches a session line of transcript.Render.
var sessionHeader = regexp.MustCompile(`^== (root|session \d+)(?:: (\S+) of (root|session \d+) via (.+), depth \d+)? ==$`)

// splitSessions cuts a transcript at its session lines. Sessions are keyed
// by the chain of calls that created them rather than by their number, so
// a child added early in lineage order does not make every later one look
// changed; a call id seen twice gets "#2", "#3".
func splitSessions(text string) []section {
	var out []section
	keyOf := map[string]string{} // label -> key
	used := map[string]int{}
	for i, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		line := strings.TrimSuffix(l, "\n")
		if m := sessionHeader.FindStringSubmatch(line); m != nil {
			key := m[1]
			if m[3] != "" {
				parent, ok := keyOf[m[3]]
				if !ok {
					parent = m[3]
				}
				key = parent + "/" + m[4]
			}
			if used[key]++; used[key] > 1 {
				key += "#" + strconv.Itoa(used[key])
			}
			keyOf[m[1]] = key
			out = append(out, section{key: key, header: line, mode: m[2], start: i + 1})
		} else if len(out) == 0 {
			out = append(out, section{header: "(before the first session)", start: 1})
		}
		s := &out[len(out)-1]
		if i == s.start && strings.HasPrefix(line, "(inherits ") {
			s.seed = line
		}
		s.text += l
	}
	for i := range out {
		// Render puts an empty line between sessions; it is not the session's.
		if strings.HasSuffix(out[i].text, "\n\n") {
			out[i].text = out[i].text[:len(out[i].text)-1]
		}
	}
	return out
}

// name is the session line without its "==" marks.
func (s *section) name() string {
	return strings.TrimSuffix(strings.TrimPrefix(s.header, "== "), " ==")
}

// diffSessions compares a golden and a proposal session by session, in the
// proposal's order with removed sessions last, and warns about what is
// likely a mistake: a session that disappeared, a child whose mode
// changed, or a changed fork seed.
func diffSessions(golden, proposal string) (diffs []sessionDiff, warnings []string) {
	gs, ps := splitSessions(golden), splitSessions(proposal)
	byKey := map[string]*section{}
	for i := range gs {
		byKey[gs[i].key] = &gs[i]
	}
	seen := map[string]bool{}
	for i := range ps {
		p := &ps[i]
		g, ok := byKey[p.key]
		seen[p.key] = true
		switch {
		case !ok:
			diffs = append(diffs, sessionDiff{p.name(), sessionAdded, wholeDiff(p, '+', "proposal")})
			continue
		case g.text != p.text:
			diffs = append(diffs, sessionDiff{p.name(), sessionChanged, changedDiff(g, p)})
		}
		if g.mode != p.mode {
			warnings = append(warnings, fmt.Sprintf("%s: the child was a %s and the proposal makes it a %s (%q)", g.name(), modeOrRoot(g.mode), modeOrRoot(p.mode), p.header))
		}
		if g.seed != p.seed {
			warnings = append(warnings, fmt.Sprintf("%s: the fork seed changed from %s to %s", g.name(), orNoSeed(g.seed), orNoSeed(p.seed)))
		}
	}
	for i := range gs {
		if g := &gs[i]; !seen[g.key] {
			diffs = append(diffs, sessionDiff{g.name(), sessionRemoved, wholeDiff(g, '-', "golden")})
			warnings = append(warnings, fmt.Sprintf("%s: the session is in the golden but not in the proposal: the agent no longer starts it", g.name()))
		}
	}
	return diffs, warnings
}

// modeOrRoot names how a session was created: its mode, or root.
func modeOrRoot(mode string) string {
	if mode == "" {
		return "root"
	}
	return mode
}

func orNoSeed(seed string) string {
	if seed == "" {
		return "no inherited prefix"
	}
	return strconv.Quote(seed)
}

// changedDiff is the diff of one session present on both sides, its hunk
// lines numbered as in the two files.
func changedDiff(g, p *section) string {
	lines := strings.Split(strings.TrimSuffix(textdiff.Unified(g.text, p.text, 3), "\n"), "\n")
	for i, l := range lines {
		var a, b int
		switch {
		case l == textdiff.Header:
			lines[i] = proposalHeader
		case strings.HasPrefix(l, "@@ "):
			if _, err := fmt.Sscanf(l, "@@ golden line %d, replay line %d @@", &a, &b); err == nil {
				lines[i] = fmt.Sprintf("@@ golden line %d, proposal line %d @@", a+g.start-1, b+p.start-1)
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
	lines := strings.Split(strings.TrimSuffix(s.text, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n@@ %s lines %d-%d @@\n", proposalHeader, side, s.start, s.start+len(lines)-1)
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
