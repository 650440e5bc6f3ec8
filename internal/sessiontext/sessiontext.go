// Package sessiontext cuts a rendered transcript (package transcript) into
// its sessions, keyed by their place in the agent tree, so that a golden
// and a new transcript compare session by session: agentsnap review shows
// a proposal that way, and an update says which sessions it removed.
package sessiontext

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Section is one session of a transcript: its header line and the lines
// up to the next header (see transcript.Render).
type Section struct {
	Key    string // its place in the tree by creating calls: root, root/call_a, root/call_a/call_b
	Parent string // its parent's Key; "" for the root
	Header string // "== session 1: fork of root via call_a, depth 1 =="
	Mode   string // spawn, fork, ... ; "" for the root
	Seed   string // the "(inherits N events ...)" line, "" when none
	Text   string
	Start  int // line of the header in its file, from 1
}

// header matches a session line of transcript.Render. It and seedCount
// are compiled when first used, not by every command that loads the package.
var header = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^== (root|session \d+)(?:: (\S+) of (root|session \d+) via (.+), depth \d+)? ==$`)
})

// Split cuts a transcript at its session lines. Sessions are keyed by the
// chain of calls that created them rather than by their number, so a
// child added early in lineage order does not make every later one look
// changed; a call id seen twice gets "#2", "#3".
func Split(text string) []Section {
	var out []Section
	keyOf := map[string]string{} // label -> key
	used := map[string]int{}
	for i, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		line := strings.TrimSuffix(l, "\n")
		if m := header().FindStringSubmatch(line); m != nil {
			key, parent := m[1], ""
			if m[3] != "" {
				var ok bool
				if parent, ok = keyOf[m[3]]; !ok {
					parent = m[3]
				}
				key = parent + "/" + m[4]
			}
			if used[key]++; used[key] > 1 {
				key += "#" + strconv.Itoa(used[key])
			}
			keyOf[m[1]] = key
			out = append(out, Section{Key: key, Parent: parent, Header: line, Mode: m[2], Start: i + 1})
		} else if len(out) == 0 {
			out = append(out, Section{Header: "(before the first session)", Start: 1})
		}
		s := &out[len(out)-1]
		if i == s.Start && strings.HasPrefix(line, "(inherits ") {
			s.Seed = line
		}
		s.Text += l
	}
	for i := range out {
		// Render puts an empty line between sessions; it is not the session's.
		if strings.HasSuffix(out[i].Text, "\n\n") {
			out[i].Text = out[i].Text[:len(out[i].Text)-1]
		}
	}
	return out
}

// Name is the session line without its "==" marks.
func (s *Section) Name() string {
	return strings.TrimSuffix(strings.TrimPrefix(s.Header, "== "), " ==")
}

// Made names how the session was created, for a message: its mode, or
// root.
func (s *Section) Made() string {
	if s.Mode == "" {
		return "root"
	}
	return s.Mode
}

// Inherited names the session's fork seed line, for a message, or says it
// has none.
func (s *Section) Inherited() string {
	if s.Seed == "" {
		return "no inherited prefix"
	}
	return strconv.Quote(s.Seed)
}

// seedCount is the number of events a seed line gives, and the label of
// the parent it names.
var seedCount = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\(inherits \d+ events from [^:]*: `) })

// SameSeed reports whether a and b inherit the same turns of the same
// session. The number of events in them is not compared: it is how the
// model streamed those turns, which changes with every live recording. Nor
// is the label of the session: a fork inherits from its parent, which
// Pair has paired, and a child added before it renumbers that parent.
func SameSeed(a, b *Section) bool {
	return seedCount().ReplaceAllString(a.Seed, "(inherits ") == seedCount().ReplaceAllString(b.Seed, "(inherits ")
}

// Dropped returns the names of the sessions of golden that next does not
// have, in golden's order: sessions the agent no longer starts.
func Dropped(golden, next string) []string {
	gs, ns := Split(golden), Split(next)
	was := Pair(gs, ns)
	kept := make([]bool, len(gs))
	for _, g := range was {
		if g >= 0 {
			kept[g] = true
		}
	}
	var out []string
	for i := range gs {
		if !kept[i] {
			out = append(out, gs[i].Name())
		}
	}
	return out
}

// Recreated returns the sessions golden and next both have that next
// creates otherwise — another mode (spawn, fork) or a fork seed of other
// turns (SameSeed) —
// as (golden's, next's) pairs in next's order: likely a mistake, which
// review warns of.
func Recreated(golden, next string) [][2]Section {
	gs, ns := Split(golden), Split(next)
	var out [][2]Section
	for i, g := range Pair(gs, ns) {
		if g >= 0 && (gs[g].Mode != ns[i].Mode || !SameSeed(&gs[g], &ns[i])) {
			out = append(out, [2]Section{gs[g], ns[i]})
		}
	}
	return out
}
