package judge

import (
	"bytes"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/placeholder"
	"github.com/agentsnap/agentsnap/session"
)

// normalizer rewrites what legitimately differs between a recording and its
// replay: times, creation times, machine paths, and session ids when the two
// runs named sessions differently.
type normalizer struct {
	ids map[string]string // replay id -> recorded id, only where they differ
	// cwd is the working folder the replay ran in ("" when unknown): a
	// replayed header whose cwd is it matches a recorded {{cwd}} without
	// normalising either.
	cwd    string
	paths  []placeholder.Pair
	load   sync.Once // paths are looked up on first use: most replays never need them
	loaded bool      // they were (set in load)
}

func newNormalizer(ids map[string]string, cwd string) *normalizer {
	return &normalizer{ids: ids, cwd: cwd}
}

func (n *normalizer) pairs() []placeholder.Pair {
	n.load.Do(func() { n.paths, n.loaded = placeholder.Defaults(), true })
	return n.paths
}

// sameCwd reports whether a recorded cwd and a replayed one normalise
// alike without looking the machine's paths up: equal, or the recorded
// {{cwd}} and the replay's own working folder (which Defaults always
// replaces by {{cwd}}, being the whole value).
func (n *normalizer) sameCwd(golden, replay string) bool {
	return golden == replay || golden == placeholder.Cwd && len(n.cwd) >= 2 && replay == n.cwd
}

// header returns the normalised header line.
func (n *normalizer) header(h session.Header) []byte {
	h.CreatedAt = 0
	if id, ok := n.ids[h.ID]; ok {
		h.ID = id
	}
	if id, ok := n.ids[h.ParentSession]; ok {
		h.ParentSession = id
	}
	return placeholder.Apply(session.AppendHeader(nil, &h), n.pairs())
}

// event returns the normalised event line.
func (n *normalizer) event(e session.Event) []byte {
	e.Time = 0
	b := placeholder.Apply(session.AppendEvent(nil, &e), n.pairs())
	for from, to := range n.ids {
		// Exact JSON strings always; longer ids also inside text (error
		// messages name sessions), where a short id could hit a word.
		b = bytes.ReplaceAll(b, quote(from), quote(to))
		if len(from) >= 8 {
			b = bytes.ReplaceAll(b, []byte(from), []byte(to))
		}
	}
	return b
}

func quote(s string) []byte {
	return []byte(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
}
