package session

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrLineage reports a set of logs that is not one tree.
var ErrLineage = errors.New("logs do not form one session tree")

// LineageOrder orders logs of one agent tree the way fixtures number them:
// the root first, then each session's children depth first, in the order of
// the parent's tool calls that created them. A call id that a parent reuses
// in a later step creates one child per occurrence: children of one id are
// matched to its occurrences in creation order (createdAt, then the "#n"
// of the ids LineageIDs gives, else the order given, which for logs loaded
// from most stores is creation order). Children
// without a parentCallId (dsh logs) follow in createdAt order, then by id.
// It fails when there is not exactly one root or a parent is missing.
func LineageOrder(logs []*Log) ([]*Log, error) {
	heads := make([]*Header, len(logs))
	for i, l := range logs {
		heads[i] = &l.Header
	}
	// A leaf's calls place no child: they are not decoded.
	order, err := lineageOrder(heads, func(i int) map[string][]int { return callOccurrences(logs[i]) })
	if err != nil {
		return nil, err
	}
	out := make([]*Log, len(order))
	for k, i := range order {
		out[k] = logs[i]
	}
	return out, nil
}

// Place is what decides a log's place in its tree (LineageOrder): its
// header and the call ids of its own tool/call events, in order. A reader
// that holds a tree's logs one at a time keeps their places to check the
// order, not the logs.
type Place struct {
	Header Header
	Calls  []string
}

// PlaceOf returns l's place.
func PlaceOf(l *Log) Place {
	p := Place{Header: l.Header}
	own := l.Own()
	for i := range own {
		if id, ok := callID(&own[i]); ok {
			p.Calls = append(p.Calls, id)
		}
	}
	return p
}

// callID returns the call id of a tool/call event as decoding its payload
// gives it, and whether it names one (the payload decodes and the id is not
// empty). The layout MarshalData writes is read without decoding the name
// and arguments, which placing a child does not need; any other layout is
// decoded.
func callID(e *Event) (string, bool) {
	if e.Type != TypeToolCall {
		return "", false
	}
	p := &cursor{b: e.Data}
	var turn, step int
	var id string
	if p.turnStep(&turn, &step) && p.lit(`,"callId":`) && p.str(&id) {
		p.check = true
		if p.lit(`,"name":`) && p.str(nil) && p.lit(`,"arguments":`) && p.str(nil) && p.lit(`}`) && p.i == len(p.b) {
			return id, id != ""
		}
	}
	var d ToolCallData
	if e.Decode(&d) != nil {
		return "", false
	}
	return d.CallID, d.CallID != ""
}

// OrderPlaces is LineageOrder for logs known by their places: it returns
// the indexes of places in lineage order, or LineageOrder's error.
func OrderPlaces(places []Place) ([]int, error) {
	heads := make([]*Header, len(places))
	for i := range places {
		heads[i] = &places[i].Header
	}
	return lineageOrder(heads, func(i int) map[string][]int {
		// A call's rank among the calls orders children as its position
		// among the events does.
		occ := map[string][]int{}
		for k, id := range places[i].Calls {
			occ[id] = append(occ[id], k)
		}
		return occ
	})
}

// lineageOrder is LineageOrder over the logs' headers, returning indexes;
// occ(i) returns the positions of log i's own tool calls
// (callOccurrences), asked only of a log with children.
func lineageOrder(heads []*Header, occ func(i int) map[string][]int) ([]int, error) {
	byID := make(map[string]int, len(heads))
	root, roots := -1, 0
	var rootIDs []string // the first few, for the error
	children := map[string][]int{}
	for i, h := range heads {
		if _, dup := byID[h.ID]; dup {
			return nil, fmt.Errorf("%w: session %s appears twice", ErrLineage, h.ID)
		}
		byID[h.ID] = i
		if h.ParentSession == "" {
			root, roots = i, roots+1
			if len(rootIDs) < 3 {
				rootIDs = append(rootIDs, h.ID)
			}
		} else {
			children[h.ParentSession] = append(children[h.ParentSession], i)
		}
	}
	if roots != 1 {
		// Several trees, such as a store that holds several scenarios'
		// replays: name them, so the caller can pick one.
		named := ", want 1"
		if roots > 1 {
			named = ": " + strings.Join(rootIDs, ", ")
			if roots > len(rootIDs) {
				named += fmt.Sprintf(" and %d more", roots-len(rootIDs))
			}
			named += "; want 1"
		}
		return nil, fmt.Errorf("%w: found %d root sessions (without parentSession)%s", ErrLineage, roots, named)
	}
	// In input order, so the error names the same session every run.
	for _, h := range heads {
		if _, ok := byID[h.ParentSession]; h.ParentSession != "" && !ok {
			return nil, fmt.Errorf("%w: session %s names parent %s, which is not among the logs", ErrLineage, h.ID, h.ParentSession)
		}
	}
	out := make([]int, 0, len(heads))
	var walk func(i int)
	walk = func(i int) {
		out = append(out, i)
		kids := children[heads[i].ID]
		if len(kids) > 0 {
			sortChildren(kids, heads, childPositions(occ(i), kids, heads))
		}
		for _, k := range kids {
			walk(k)
		}
	}
	walk(root)
	if len(out) != len(heads) {
		return nil, fmt.Errorf("%w: %d of %d sessions are not reachable from the root (a parent cycle?)", ErrLineage, len(heads)-len(out), len(heads))
	}
	return out, nil
}

// sortChildren sorts one parent's children (indexes of heads) by the
// position of the call that created each (pos; children without one
// last), then by creation time, then by id.
func sortChildren(kids []int, heads []*Header, pos map[int]int) {
	slices.SortStableFunc(kids, func(a, b int) int {
		pa, oka := pos[a]
		pb, okb := pos[b]
		if oka != okb {
			if oka {
				return -1
			}
			return 1
		}
		// Equal call positions (both unknown) fall back to creation
		// time, then id.
		ha, hb := heads[a], heads[b]
		return cmp.Or(cmp.Compare(pa, pb), cmp.Compare(ha.CreatedAt, hb.CreatedAt), strings.Compare(ha.ID, hb.ID))
	})
}

// childPositions places each child (an index of heads) at the position of
// the tool call that created it among its parent's own events (occ, the
// parent's callOccurrences). Children of a repeated call id take that
// id's occurrences in creation order (CreationOrder).
func childPositions(occ map[string][]int, kids []int, heads []*Header) map[int]int {
	used := map[string]int{}
	pos := make(map[int]int, len(kids))
	hs := make([]*Header, len(kids))
	for i, k := range kids {
		hs[i] = heads[k]
	}
	for _, i := range CreationOrder(hs) {
		k := kids[i]
		id := heads[k].ParentCallID
		if n := used[id]; id != "" && n < len(occ[id]) {
			pos[k] = occ[id][n]
			used[id] = n + 1
		}
	}
	return pos
}

// CreationOrder returns the indexes of kids, children of one parent, in
// the order they were created as a tree's logs tell it, which decides
// which of a repeated call id's occurrences each child of that id belongs
// to: by createdAt, then, when every child of that id has the id
// LineageIDs gives (ChildID's "#n"), by n, else in the order given (a
// store lists sessions in creation order; the steps of one parent run one
// after another). The ids come before the order given because not every
// source keeps creation order: a JSONL store read back lists a tie by file
// name, which puts "root/call_0#2" before "root/call_0".
func CreationOrder(kids []*Header) []int {
	// Per call id: only the order of one id's children matters, and a
	// sibling without ChildID's id (a dsh child, which names no call)
	// says nothing about them.
	numbered := map[string]bool{}
	for _, h := range kids {
		all, seen := numbered[h.ParentCallID]
		numbered[h.ParentCallID] = (all || !seen) && nth(h) > 0
	}
	n := func(h *Header) int {
		if numbered[h.ParentCallID] {
			return nth(h)
		}
		return 0 // the order given
	}
	order := make([]int, len(kids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(kids[a].CreatedAt, kids[b].CreatedAt), cmp.Compare(n(kids[a]), n(kids[b])))
	})
	return order
}

// nth returns n when h's id is ChildID(h.ParentSession, h.ParentCallID, n),
// else 0.
func nth(h *Header) int { return ChildNumber(h.ID, h.ParentSession, h.ParentCallID) }
