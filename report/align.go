package report

import (
	"strconv"
	"strings"
)

// Row states of a side-by-side comparison.
const (
	stateSame    = "same"
	stateChanged = "changed" // both sides, different content
	stateRemoved = "removed" // golden only: a gap on the replay side
	stateAdded   = "added"   // replay only: a gap on the golden side
)

// row is one line of a side-by-side session comparison.
type row struct {
	Golden, Replay *block // nil is a gap
	State          string
	ID             string // the anchor of the first divergence, on that row only
}

// pairView is one session of the golden tree next to the same session of
// the replay; either may be missing.
type pairView struct {
	Label          string
	Level          int
	Anchor         string
	Golden, Replay *sessionView
	HeaderState    string
	HeaderID       string // the first divergence, when it is the header
	SeedRows, Rows []*row
	SeedDiffers    bool
	State          string // same, changed, removed, added: the session as a whole
}

// Either returns the replay's session if there is one, else the golden's.
func (p *pairView) Either() *sessionView {
	if p.Replay != nil {
		return p.Replay
	}
	return p.Golden
}

// lineRow is one line of a side-by-side transcript comparison.
type lineRow struct {
	Golden, Replay string
	GNum, RNum     int // 1-based line numbers; 0 is a gap
	State          string
	ID             string
}

// lcsLimit bounds the table of one longest-common-subsequence search; past
// it the middle of the two sequences is paired by position instead.
const lcsLimit = 4_000_000

// lcs returns the index pairs of a longest common subsequence of a and b,
// in order. Common prefixes and suffixes are matched first, so the usual
// small change costs little.
func lcs(a, b []string) [][2]int {
	var out [][2]int
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		out = append(out, [2]int{pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if n, m := len(ma), len(mb); n > 0 && m > 0 && (n+1)*(m+1) <= lcsLimit {
		out = append(out, lcsMiddle(ma, mb, pre)...)
	}
	for k := suf; k > 0; k-- {
		out = append(out, [2]int{len(a) - k, len(b) - k})
	}
	return out
}

// lcsMiddle is the dynamic-programming search; off shifts the indexes back.
func lcsMiddle(a, b []string, off int) [][2]int {
	n, m := len(a), len(b)
	w := m + 1
	t := make([]int32, (n+1)*w) // t[i*w+j]: LCS length of a[i:], b[j:]
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out = append(out, [2]int{i + off, j + off})
			i, j = i+1, j+1
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// alignBlocks lines up the blocks of one session of two runs. Blocks pair
// by content first (turn, kind and what the model and tools said — not the
// step number, so one inserted step leaves the steps after it paired with
// their counterparts), then what stays unpaired in between pairs by shape
// (the same turn, kinds of items and tools called), then by (turn, kind)
// in order; the rest are gaps. Each pair is then judged on everything it
// shows, request and usage included.
func alignBlocks(g, r []*block) []*row { return alignLevel(g, r, sigContent) }

// Signature levels, from the strictest used for pairing to the loosest.
const (
	sigContent = iota
	sigShape
	sigLevels
)

func alignLevel(g, r []*block, level int) []*row {
	if level == sigLevels || len(g) == 0 || len(r) == 0 {
		return pairGap(g, r)
	}
	var rows []*row
	gi, ri := 0, 0
	sig := func(bs []*block) []string {
		out := make([]string, len(bs))
		for i, b := range bs {
			if level == sigContent {
				out[i] = signature(b, false)
			} else {
				out[i] = shape(b)
			}
		}
		return out
	}
	for _, m := range lcs(sig(g), sig(r)) {
		rows = append(rows, alignLevel(g[gi:m[0]], r[ri:m[1]], level+1)...)
		rows = append(rows, judge(g[m[0]], r[m[1]]))
		gi, ri = m[0]+1, m[1]+1
	}
	return append(rows, alignLevel(g[gi:], r[ri:], level+1)...)
}

// pairGap pairs the blocks between two content matches: a block pairs with
// the other side's next block of the same turn and kind; whichever comes
// first in (turn, kind) order otherwise stands alone.
func pairGap(g, r []*block) []*row {
	var rows []*row
	for len(g) > 0 || len(r) > 0 {
		switch c := compareSlot(g, r); {
		case c == 0:
			rows = append(rows, judge(g[0], r[0]))
			g, r = g[1:], r[1:]
		case c < 0:
			rows = append(rows, &row{Golden: g[0], State: stateRemoved})
			g = g[1:]
		default:
			rows = append(rows, &row{Replay: r[0], State: stateAdded})
			r = r[1:]
		}
	}
	return rows
}

// compareSlot orders the heads of g and r; an empty side sorts last.
func compareSlot(g, r []*block) int {
	switch {
	case len(r) == 0:
		return -1
	case len(g) == 0:
		return 1
	case g[0].Turn != r[0].Turn:
		return g[0].Turn - r[0].Turn
	}
	return kindRank(g[0].Kind) - kindRank(r[0].Kind)
}

func kindRank(kind string) int {
	switch kind {
	case kindOpen:
		return 0
	case kindEnd:
		return 2
	}
	return 1
}

// judge compares two paired blocks and marks the items either lacks.
func judge(g, r *block) *row {
	if signature(g, true) == signature(r, true) {
		return &row{Golden: g, Replay: r, State: stateSame}
	}
	gs, rs := itemSignatures(g), itemSignatures(r)
	inG, inR := make([]bool, len(gs)), make([]bool, len(rs))
	for _, m := range lcs(gs, rs) {
		inG[m[0]], inR[m[1]] = true, true
	}
	for i, ok := range inG {
		g.Items[i].Changed = !ok
	}
	for i, ok := range inR {
		r.Items[i].Changed = !ok
	}
	return &row{Golden: g, Replay: r, State: stateChanged}
}

// signature is what makes two blocks the same. The step number is left
// out, so a renumbered step still matches. The loose form also leaves out
// the request digests and usage, which drift after any inserted step.
func signature(b *block, strict bool) string {
	var s strings.Builder
	s.WriteString(b.Kind + "\x00" + strconv.Itoa(b.Turn) + "\x00")
	if b.Kind != kindStep {
		s.WriteString(b.Title)
	}
	for _, it := range b.Items {
		if !strict && it.Kind == "request" {
			continue
		}
		s.WriteString("\x01" + it.signature())
	}
	if strict {
		s.WriteString("\x02" + b.Usage.String() + "\x00" + strconv.Itoa(b.Calls))
	}
	return s.String()
}

// shape is a block's kind, turn, and the kinds of its items with the tools
// it calls: a step that answered still pairs with a step that answered
// otherwise.
func shape(b *block) string {
	var s strings.Builder
	s.WriteString(b.Kind + "\x00" + strconv.Itoa(b.Turn))
	for _, it := range b.Items {
		if it.Kind == "request" {
			continue
		}
		s.WriteString("\x01" + it.Kind)
		if it.Kind == "call" {
			s.WriteString("\x00" + it.Name)
		}
	}
	return s.String()
}

func itemSignatures(b *block) []string {
	out := make([]string, len(b.Items))
	for i, it := range b.Items {
		out[i] = it.signature()
	}
	return out
}

// alignTrees pairs the sessions of two runs by lineage key (a child is its
// parent's key and the call that created it), then aligns each pair.
func alignTrees(g, r *tree) []*pairView {
	gk, rk := keys(g.Sessions), keys(r.Sessions)
	var pairs []*pairView
	gi, ri := 0, 0
	flush := func(gEnd, rEnd int) {
		for ; gi < gEnd; gi++ {
			pairs = append(pairs, pairSessions(g.Sessions[gi], nil))
		}
		for ; ri < rEnd; ri++ {
			pairs = append(pairs, pairSessions(nil, r.Sessions[ri]))
		}
	}
	for _, m := range lcs(gk, rk) {
		flush(m[0], m[1])
		pairs = append(pairs, pairSessions(g.Sessions[m[0]], r.Sessions[m[1]]))
		gi, ri = m[0]+1, m[1]+1
	}
	flush(len(g.Sessions), len(r.Sessions))
	return pairs
}

func keys(ss []*sessionView) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Key
	}
	return out
}

func pairSessions(g, r *sessionView) *pairView {
	p := &pairView{Golden: g, Replay: r}
	s := p.Either()
	p.Label, p.Level = s.Label, s.Level
	var gSeed, gOwn, rSeed, rOwn []*block
	if g != nil {
		gSeed, gOwn = g.Seed, g.Own
	}
	if r != nil {
		rSeed, rOwn = r.Seed, r.Own
	}
	p.SeedRows = alignBlocks(gSeed, rSeed)
	p.Rows = alignBlocks(gOwn, rOwn)
	p.HeaderState = stateSame
	switch {
	case g == nil:
		p.HeaderState, p.State = stateAdded, stateAdded
		return p
	case r == nil:
		p.HeaderState, p.State = stateRemoved, stateRemoved
		return p
	case headerFacts(g) != headerFacts(r):
		p.HeaderState = stateChanged
	}
	p.SeedDiffers = anyDiffers(p.SeedRows)
	p.State = stateSame
	if p.HeaderState != stateSame || p.SeedDiffers || anyDiffers(p.Rows) {
		p.State = stateChanged
	}
	return p
}

// headerFacts is what a session's header says about its place in the tree.
func headerFacts(s *sessionView) string {
	h := &s.Header
	return strings.Join([]string{s.Mode(), h.ParentCallID, strconv.Itoa(h.DelegationDepth),
		strconv.Itoa(h.SeedLength), h.Origin, h.AgentPreset}, "\x00")
}

func anyDiffers(rows []*row) bool {
	for _, r := range rows {
		if r.State != stateSame {
			return true
		}
	}
	return false
}

// markFirstDivergence gives the first difference of the pairs, in lineage
// order, the anchor id. It reports whether there was one.
func markFirstDivergence(pairs []*pairView, id string) bool {
	for _, p := range pairs {
		if p.HeaderState != stateSame {
			p.HeaderID = id
			return true
		}
		for _, rows := range [][]*row{p.SeedRows, p.Rows} {
			for _, r := range rows {
				if r.State != stateSame {
					r.ID = id
					return true
				}
			}
		}
	}
	return false
}

// alignLines lines up two texts line by line: common lines pair, and what
// lies between pairs by position.
func alignLines(golden, replay string) []*lineRow {
	g, r := splitLines(golden), splitLines(replay)
	var rows []*lineRow
	gi, ri := 0, 0
	gap := func(gEnd, rEnd int) {
		for gi < gEnd || ri < rEnd {
			lr := &lineRow{State: stateChanged}
			if gi < gEnd {
				lr.Golden, lr.GNum = g[gi], gi+1
				gi++
			} else {
				lr.State = stateAdded
			}
			if ri < rEnd {
				lr.Replay, lr.RNum = r[ri], ri+1
				ri++
			} else {
				lr.State = stateRemoved
			}
			rows = append(rows, lr)
		}
	}
	for _, m := range lcs(g, r) {
		gap(m[0], m[1])
		rows = append(rows, &lineRow{Golden: g[m[0]], Replay: r[m[1]], GNum: m[0] + 1, RNum: m[1] + 1, State: stateSame})
		gi, ri = m[0]+1, m[1]+1
	}
	gap(len(g), len(r))
	return rows
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func (it *item) signature() string {
	return it.Kind + "\x00" + it.Name + "\x00" + it.ID + "\x00" + it.Text
}
