package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Drift is the first model call whose request differs from the recording's:
// the prompt, the tools or the conversation the agent sent changed, so the
// recorded answers no longer belong to it.
type Drift struct {
	Session string // lineage label
	Lineage string
	Call    int // 1-based model call of the session
	Turn    int
	Step    int
	Changes []string // what changed, one sentence each
}

func (d *Drift) String() string {
	return fmt.Sprintf("%s (%s), model call %d (turn %d step %d): %s", d.Session, d.Lineage, d.Call, d.Turn, d.Step, strings.Join(d.Changes, "; "))
}

// driftAt explains the request/header at seq of a pair's replay: which
// model call of the session it is and what changed against the recording.
func driftAt(p pair, seq int64) *Drift {
	call := 0
	for i := range p.replay.Events[:seq+1] {
		if p.replay.Events[i].Type == session.TypeRequestHeader {
			call++
		}
	}
	var g, r session.RequestHeaderData
	if p.golden.Events[seq].Decode(&g) != nil || p.replay.Events[seq].Decode(&r) != nil {
		return nil
	}
	changes := requestChanges(&g, &r)
	if len(changes) == 0 {
		return nil
	}
	return &Drift{Session: p.label, Lineage: p.lineage, Call: call, Turn: r.Turn, Step: r.Step, Changes: changes}
}

// requestChanges says in sentences what differs between two requests.
func requestChanges(g, r *session.RequestHeaderData) []string {
	var out []string
	if g.Provider != r.Provider || g.Model != r.Model {
		out = append(out, fmt.Sprintf("the model changed from %s/%s to %s/%s", g.Provider, g.Model, r.Provider, r.Model))
	}
	switch {
	case g.SystemDigest == r.SystemDigest:
	case g.SystemChars == r.SystemChars:
		// The digest tells; the length alone would hide an edited letter.
		out = append(out, fmt.Sprintf("the system prompt changed (the same %d characters long, other text)", g.SystemChars))
	default:
		out = append(out, fmt.Sprintf("the system prompt changed (%d characters recorded, %d now)", g.SystemChars, r.SystemChars))
	}
	if g.ToolsDigest != r.ToolsDigest {
		added, removed := setDiff(r.ToolNames, g.ToolNames), setDiff(g.ToolNames, r.ToolNames)
		switch {
		case len(added) > 0 || len(removed) > 0:
			out = append(out, fmt.Sprintf("the tools changed (added: %s; removed: %s)", list(added), list(removed)))
		default:
			out = append(out, "a tool's description or parameters changed")
		}
	}
	if g.MessagesDigest != r.MessagesDigest {
		first := -1
		for i := 0; i < len(g.MessageDigests) && i < len(r.MessageDigests); i++ {
			if g.MessageDigests[i] != r.MessageDigests[i] {
				first = i
				break
			}
		}
		switch {
		case first >= 0:
			out = append(out, fmt.Sprintf("the conversation sent differs from message %d on (%d messages recorded, %d now)", first+1, g.MessageCount, r.MessageCount))
		default:
			out = append(out, fmt.Sprintf("the conversation sent has %d messages, the recording %d", r.MessageCount, g.MessageCount))
		}
	}
	return out
}

func setDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
