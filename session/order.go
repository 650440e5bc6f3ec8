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
// matched to its occurrences in creation order (createdAt, then the order
// given, which for logs loaded from a store is creation order). Children
// without a parentCallId (dsh logs) follow in createdAt order, then by id.
// It fails when there is not exactly one root or a parent is missing.
func LineageOrder(logs []*Log) ([]*Log, error) {
	byID := map[string]*Log{}
	var roots []*Log
	children := map[string][]*Log{}
	for _, l := range logs {
		if _, dup := byID[l.Header.ID]; dup {
			return nil, fmt.Errorf("%w: session %s appears twice", ErrLineage, l.Header.ID)
		}
		byID[l.Header.ID] = l
		if l.Header.ParentSession == "" {
			roots = append(roots, l)
		} else {
			children[l.Header.ParentSession] = append(children[l.Header.ParentSession], l)
		}
	}
	if len(roots) != 1 {
		return nil, fmt.Errorf("%w: found %d root sessions (without parentSession), want 1", ErrLineage, len(roots))
	}
	// In input order, so the error names the same session every run.
	for _, l := range logs {
		if p := l.Header.ParentSession; p != "" && byID[p] == nil {
			return nil, fmt.Errorf("%w: session %s names parent %s, which is not among the logs", ErrLineage, l.Header.ID, p)
		}
	}
	out := make([]*Log, 0, len(logs))
	var walk func(l *Log)
	walk = func(l *Log) {
		out = append(out, l)
		kids := children[l.Header.ID]
		pos := childPositions(l, kids)
		slices.SortStableFunc(kids, func(a, b *Log) int {
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
			return cmp.Or(cmp.Compare(pa, pb), cmp.Compare(a.Header.CreatedAt, b.Header.CreatedAt), strings.Compare(a.Header.ID, b.Header.ID))
		})
		for _, k := range kids {
			walk(k)
		}
	}
	walk(roots[0])
	if len(out) != len(logs) {
		return nil, fmt.Errorf("%w: %d of %d sessions are not reachable from the root (a parent cycle?)", ErrLineage, len(logs)-len(out), len(logs))
	}
	return out, nil
}

// childPositions places each child of l at the position of the tool call
// that created it among l's own events. Children of a repeated call id take
// that id's occurrences in creation order: by createdAt, then in the order
// given (a store lists sessions in creation order; the steps of one parent
// run one after another).
func childPositions(l *Log, kids []*Log) map[*Log]int {
	if len(kids) == 0 {
		return nil // a leaf's calls place no child: they are not decoded
	}
	occ := callOccurrences(l)
	used := map[string]int{}
	pos := make(map[*Log]int, len(kids))
	byTime := slices.Clone(kids)
	slices.SortStableFunc(byTime, func(a, b *Log) int { return cmp.Compare(a.Header.CreatedAt, b.Header.CreatedAt) })
	for _, k := range byTime {
		id := k.Header.ParentCallID
		if n := used[id]; id != "" && n < len(occ[id]) {
			pos[k] = occ[id][n]
			used[id] = n + 1
		}
	}
	return pos
}
