package judge

import (
	"fmt"

	"github.com/agentsnap/agentsnap/session"
)

// countDriftAt explains a first difference d that is at a token count
// (count/tokens) of the recording or of the replay: a count the agent no
// longer asks for there, one it asks for where none was recorded, or
// another request counted; or returns nil.
func countDriftAt(p pair, d *Difference) *Drift {
	i := int(d.Seq)
	if i < 0 || p.golden == nil || p.replay == nil {
		return nil
	}
	g, gType := countAt(p.golden, i)
	r, rType := countAt(p.replay, i)
	var changes []string
	at, own := r, p.replay
	switch {
	case g == nil && r == nil:
		return nil
	case r == nil:
		at, own = g, p.golden
		now := "the replay has " + rType
		if rType == "" {
			now = "the replay ends there"
		}
		changes = append(changes, fmt.Sprintf("the agent no longer counts the recorded request here (%s, %s); %s — it counts no longer, later, or another request (a refused count is in the replay driver's verdict)", countOf(g), g.Answer(), now))
	case g == nil:
		was := "the recording has " + gType
		if gType == "" {
			was = "the recording ends"
		}
		changes = append(changes, fmt.Sprintf("the agent counts a request here (%s) where %s", countOf(r), was))
	default:
		if g.Digest != r.Digest || g.API != r.API || g.Model != r.Model {
			changes = append(changes, fmt.Sprintf("the agent counts another request here: %s recorded, %s now", countOf(g), countOf(r)))
		}
		if g.Turn != r.Turn || g.Step != r.Step {
			changes = append(changes, fmt.Sprintf("the count is at turn %d step %d, recorded at turn %d step %d", r.Turn, r.Step, g.Turn, g.Step))
		}
		if a, b := r.Answer(), g.Answer(); len(changes) == 0 && a != b {
			changes = append(changes, fmt.Sprintf("the count answered %s, recorded %s", a, b))
		}
		if len(changes) == 0 {
			return nil
		}
	}
	n := 1
	for j := min(int(own.Header.SeedLength), i); j < i; j++ {
		if own.Events[j].Type == session.TypeCountTokens {
			n++
		}
	}
	return &Drift{Session: p.label, Lineage: p.lineage, Count: n, Turn: at.Turn, Step: at.Step, Changes: changes}
}

// countAt returns the token count at index i of l's events, or nil and
// the type of the event there ("" past the end).
func countAt(l *session.Log, i int) (*session.CountTokensData, string) {
	if i >= len(l.Events) {
		return nil, ""
	}
	e := &l.Events[i]
	var d session.CountTokensData
	if e.Type != session.TypeCountTokens || e.Decode(&d) != nil {
		return nil, e.Type
	}
	return &d, e.Type
}

// countOf names a count's request: "anthropic-messages, model M, digest
// 0123456789ab".
func countOf(d *session.CountTokensData) string {
	s := d.API
	if d.Model != "" {
		s += ", model " + d.Model
	}
	return s + ", digest " + d.Digest[:min(12, len(d.Digest))]
}
