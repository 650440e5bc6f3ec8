package session

import (
	"strconv"
	"strings"
	"sync"
)

// RootID is the id LineageIDs gives the first root session.
const RootID = "root"

// LineageIDs names sessions by their place in the agent tree, so that two
// runs of one scenario name their sessions alike under any goroutine
// schedule: roots are "root", "root-2", ... in creation order; a child is
// its parent's id, "/", and the id of the tool call that created it
// ("root/call_1"). A tool call id may come back in a later step or turn of
// the same parent (servers that send no ids, or number them per response);
// the n-th child created by such a repeated id gets "#n" appended
// ("root/call_0#2"), which is deterministic because one parent's steps run
// one after another. Siblings of one step must have distinct call ids.
//
// A LineageIDs is safe for concurrent use. The zero value is not usable;
// call NewLineageIDs.
type LineageIDs struct {
	root string

	mu    sync.Mutex
	roots int
	calls map[childKey]int // children created so far per (parent, call id)
}

type childKey struct{ parent, callID string }

// NewLineageIDs returns ids whose first root is root ("" means RootID).
func NewLineageIDs(root string) *LineageIDs {
	if root == "" {
		root = RootID
	}
	return &LineageIDs{root: root, calls: map[childKey]int{}}
}

// Root returns the id of a new root session.
func (l *LineageIDs) Root() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roots++
	if l.roots == 1 {
		return l.root
	}
	return l.root + "-" + strconv.Itoa(l.roots)
}

// Child returns the id of the session the parent's tool call callID creates.
func (l *LineageIDs) Child(parent, callID string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := childKey{parent, callID}
	l.calls[k]++
	return ChildID(parent, callID, l.calls[k])
}

// ChildID is the lineage id of the n-th child (n from 1) that the parent's
// tool call callID created: parent/callID, then parent/callID#n.
func ChildID(parent, callID string, n int) string {
	id := parent + "/" + callID
	if n > 1 {
		id += "#" + strconv.Itoa(n)
	}
	return id
}

// ChildNumber returns n when id is ChildID(parent, callID, n): the n-th
// child, in creation order, that the parent's tool call callID created, as
// LineageIDs names it. It returns 0 for any other id, and for an empty
// callID.
func ChildNumber(id, parent, callID string) int {
	if callID == "" {
		return 0
	}
	rest, ok := strings.CutPrefix(id, parent+"/"+callID)
	switch {
	case !ok:
		return 0
	case rest == "":
		return 1
	}
	digits, ok := strings.CutPrefix(rest, "#")
	// Only what ChildID writes: digits alone (strconv.Atoi also takes a
	// sign), without a leading 0.
	if !ok || digits == "" || digits[0] == '0' || strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		return 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 2 {
		return 0
	}
	return n
}

// LineageKeys names every session of a lineage-ordered tree (see
// LineageOrder) by its place in it, whatever ids the run gave the sessions:
// "root", then the parent's key, "/", and the creating call id, with "#n"
// for the n-th child of a repeated call id; a child whose log names no call
// (a dsh log) is "#n" among its parent's such children. Two runs of one
// scenario give the same keys, so their sessions pair by key.
func LineageKeys(ordered []*Log) map[string]string {
	keys := make(map[string]string, len(ordered))
	seen := map[childKey]int{}
	for _, l := range ordered {
		h := &l.Header
		if h.ParentSession == "" {
			keys[h.ID] = RootID
			continue
		}
		parent, ok := keys[h.ParentSession]
		if !ok {
			parent = h.ParentSession
		}
		k := childKey{parent, h.ParentCallID}
		seen[k]++
		if h.ParentCallID == "" {
			keys[h.ID] = parent + "/#" + strconv.Itoa(seen[k])
			continue
		}
		keys[h.ID] = ChildID(parent, h.ParentCallID, seen[k])
	}
	return keys
}

// callOccurrences maps each tool call of l's own events to its position
// among them, per occurrence: the k-th tool/call with id X is at
// positions[X][k-1]. A repeated id (a later step reusing an id) is a new
// call with its own position.
func callOccurrences(l *Log) map[string][]int {
	pos := map[string][]int{}
	// The inherited seed holds the parent's calls, not this session's.
	own := l.Events[min(max(l.Header.SeedLength, 0), len(l.Events)):]
	for i := range own {
		if id, ok := callID(&own[i]); ok {
			pos[id] = append(pos[id], i)
		}
	}
	return pos
}
