package sessiontext

import "strings"

// Pair returns, for each session of next, the index in golden of the
// session it is, or -1 for a session golden lacks. A session is the one
// with the same key under its parent's match; the sessions of a parent
// that are left over on both sides are then paired in order, mode by
// mode, and what is left of them in order whatever their modes. So a
// child whose creating call got another id — a live model mints new ones
// on every recording — is the same child renamed, not one dropped and one
// added, and its own children follow it.
func Pair(golden, next []Section) []int {
	at := make(map[string]int, len(golden))
	for i := range golden {
		at[golden[i].Key] = i
	}
	out := make([]int, len(next))
	for i := range out {
		out[i] = -1
	}
	used := make([]bool, len(golden))
	matched := map[string]string{} // key in next -> key in golden
	done := map[string]bool{}      // parents in next whose children are paired
	for i := range next {
		if p := next[i].Parent; !done[p] {
			done[p] = true
			pairChildren(golden, next, p, matched, at, used, out)
		}
	}
	return out
}

// pairChildren pairs the sessions of next whose parent is parent: first
// by key under the parent's match, then the rest in order with golden's
// unpaired children of that match of the same mode, then of any mode.
func pairChildren(golden, next []Section, parent string, matched map[string]string, at map[string]int, used []bool, out []int) {
	gp, parentPaired := matched[parent]
	if parent == "" {
		gp, parentPaired = "", true
	}
	if !parentPaired {
		return // a new parent's children are new too
	}
	var rest []int
	for i := range next {
		n := &next[i]
		if n.Parent != parent {
			continue
		}
		key := n.Key
		if parent != "" {
			key = gp + "/" + strings.TrimPrefix(n.Key, parent+"/")
		}
		if g, ok := at[key]; ok && !used[g] && golden[g].Parent == gp {
			used[g], out[i], matched[n.Key] = true, g, golden[g].Key
			continue
		}
		rest = append(rest, i)
	}
	if parent == "" {
		return // the root is the root: only children are renamed
	}
	// Of its own mode first, then any: a child left with none of its mode
	// is one whose mode changed, which review warns of by name, rather
	// than one the agent no longer starts.
	for _, sameMode := range []bool{true, false} {
		for _, i := range rest {
			for g := range golden {
				if out[i] < 0 && !used[g] && golden[g].Parent == gp && (!sameMode || golden[g].Mode == next[i].Mode) {
					used[g], out[i], matched[next[i].Key] = true, g, golden[g].Key
					break
				}
			}
		}
	}
}
