package transcript

import (
	"bytes"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Part is one session's part of a transcript, rendered as the session's
// events are written, so that a replay of thousands of sessions (agentsnap
// serve's) has rendered them by the time it ends: RenderParts then joins
// the parts, with the lines that name each session's place in the tree.
//
// A Part is not safe for concurrent use; its caller serialises Add as a
// store serialises a session's appends.
type Part struct {
	seedLength int
	n          int      // events added
	turns      []string // the seed's turns, for the "inherits" line
	body       strings.Builder
	w          writer
}

// NewPart returns the part of a session whose header has seedLength.
func NewPart(seedLength int) *Part {
	p := &Part{seedLength: seedLength}
	p.w.b = &p.body
	return p
}

// Add renders events, the session's next: its first are the seed it was
// created with. It keeps nothing of events, which their writer may reuse.
func (p *Part) Add(events []session.Event) {
	for i := range events {
		e := &events[i]
		if p.n < p.seedLength {
			// The inherited turns show only as the "inherits" line; the
			// last request they were asked with is the one the session's
			// first is compared with.
			p.turns = appendTurn(p.turns, e)
			if e.Type == session.TypeRequestHeader {
				p.w.system, p.w.tools = requestDigests(e.Data)
			}
		} else {
			p.w.event(e)
		}
		p.n++
	}
	p.w.system, p.w.tools = bytes.Clone(p.w.system), bytes.Clone(p.w.tools)
}

// Len is how many events were added.
func (p *Part) Len() int { return p.n }

// partOf is parts[i] when it can render l: the events it was given are
// l's first (its caller says so), with l's seedLength. l's events past
// them are added to it.
func partOf(parts []*Part, i int, l *session.Log) *Part {
	if parts == nil || parts[i] == nil {
		return nil
	}
	p := parts[i]
	if p.seedLength != l.Header.SeedLength || p.n > len(l.Events) {
		return nil
	}
	p.Add(l.Events[p.n:])
	return p
}

// write writes the session's part: its first lines, which name places in
// the tree (labels), then what Add rendered.
func (p *Part) write(b *strings.Builder, l *session.Log, labels map[string]string) {
	writeHead(b, &l.Header, labels, func() string { return turnList(p.turns) })
	b.WriteString(p.body.String())
}
