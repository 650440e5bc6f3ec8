package report

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// AlignRows describes the side-by-side alignment of two runs, one line per
// row: "<session> <state>: <golden block> | <replay block>", "-" for a gap.
// Seed rows name the session with " seed"; a header that differs is a row
// of its own. The first divergence ends with " <- first divergence".
func AlignRows(golden, replay []*session.Log) []string {
	pairs := alignTrees(buildTree(golden), buildTree(replay))
	markFirstDivergence(pairs, "first")
	var out []string
	for _, p := range pairs {
		if p.HeaderState != stateSame {
			out = append(out, mark(fmt.Sprintf("%s header %s", p.Label, p.HeaderState), p.HeaderID))
		}
		for _, r := range p.SeedRows {
			out = append(out, describeRow(p.Label+" seed", r))
		}
		for _, r := range p.Rows {
			out = append(out, describeRow(p.Label, r))
		}
	}
	return out
}

// ChangedItems lists the items alignment marked as lacking on the other
// side, as "golden|replay <kind>: <text>".
func ChangedItems(golden, replay []*session.Log) []string {
	pairs := alignTrees(buildTree(golden), buildTree(replay))
	var out []string
	for _, p := range pairs {
		for _, r := range append(p.SeedRows, p.Rows...) {
			for _, side := range []struct {
				name string
				b    *block
			}{{"golden", r.Golden}, {"replay", r.Replay}} {
				if side.b == nil {
					continue
				}
				for _, it := range side.b.Items {
					if it.Changed {
						out = append(out, side.name+" "+it.Kind+": "+it.Text)
					}
				}
			}
		}
	}
	return out
}

// AlignTranscript describes the line alignment of two transcripts as
// "<state>: <golden line> | <replay line>".
func AlignTranscript(golden, replay string) []string {
	var out []string
	for _, l := range alignLines(golden, replay) {
		g, r := l.Golden, l.Replay
		if l.GNum == 0 {
			g = "-"
		}
		if l.RNum == 0 {
			r = "-"
		}
		out = append(out, l.State+": "+g+" | "+r)
	}
	return out
}

func describeRow(label string, r *row) string {
	return mark(fmt.Sprintf("%s %s: %s | %s", label, r.State, describeBlock(r.Golden), describeBlock(r.Replay)), r.ID)
}

func describeBlock(b *block) string {
	switch {
	case b == nil:
		return "-"
	case b.Kind == kindStep:
		return fmt.Sprintf("turn %d step %d", b.Turn, b.Step)
	case b.Kind == kindOpen:
		return b.Title
	}
	return fmt.Sprintf("turn %d %s", b.Turn, b.Title)
}

func mark(s, id string) string {
	if id != "" {
		return s + " <- first divergence"
	}
	return strings.TrimSpace(s)
}
