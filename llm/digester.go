package llm

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/session"
)

// Digester makes the request/header payloads of one session's model
// calls, hashing what a call sends only when an earlier call did not send
// it: the system prompt and the tools when they changed, and of a
// conversation given in full (an agent over the wire sends its whole
// history every call) only the messages after the part it shares with the
// last one. The payloads are RequestHeader's, byte for byte. It keeps
// copies of what it compares with, so a caller may change or reuse its
// requests afterwards. The zero value is ready; it is not safe for
// concurrent use.
type Digester struct {
	system       string
	systemDigest string // "" until a call was digested
	systemChars  int
	tools        []ToolSpec // copies of the last call's tools
	toolsDigest  string
	toolNames    []string
	toolDigests  []string
	sent         []Message // copies of the last conversation given in full
	sentDigests  []string
	chain        DigestChain // of sentDigests
}

// Fork returns a digester for a session this one's creates (a subagent):
// it knows the system prompt and tools digested last, which a child
// usually sends too, and no conversation.
func (d *Digester) Fork() Digester {
	return Digester{system: d.system, systemDigest: d.systemDigest, systemChars: d.systemChars,
		tools: d.tools, toolsDigest: d.toolsDigest, toolNames: d.toolNames, toolDigests: d.toolDigests}
}

// Header returns RequestHeader(provider, req).
func (d *Digester) Header(provider string, req *Request) session.RequestHeaderData {
	return d.HeaderRepeating(provider, req, 0)
}

// HeaderRepeating is Header for a caller that knows the first repeated
// messages of req are, unchanged, those of the last request it gave
// Header (or HeaderRepeating): they are not compared again.
func (d *Digester) HeaderRepeating(provider string, req *Request, repeated int) session.RequestHeaderData {
	d.conversation(req.Messages, repeated)
	return d.HeaderChain(provider, req, d.sentDigests, &d.chain)
}

// HeaderChain returns RequestHeaderChain(provider, req, digests, chain):
// for a caller that keeps its conversation's digests itself.
func (d *Digester) HeaderChain(provider string, req *Request, digests []string, chain *DigestChain) session.RequestHeaderData {
	if d.systemDigest == "" || req.System != d.system {
		d.system, d.systemDigest, d.systemChars = req.System, Digest([]byte(req.System)), utf8.RuneCountInString(req.System)
	}
	if d.toolsDigest == "" || !sameTools(req.Tools, d.tools) {
		d.tools = cloneTools(req.Tools)
		d.toolsDigest, d.toolDigests = toolsDigests(req.Tools)
		d.toolNames = nil
		for _, t := range req.Tools {
			d.toolNames = append(d.toolNames, t.Name)
		}
	}
	return header(provider, req, d.systemDigest, d.systemChars, d.toolsDigest, slices.Clip(d.toolNames), slices.Clip(d.toolDigests), digests, chain)
}

// conversation brings sent, sentDigests and chain to msgs, hashing the
// messages after the prefix msgs share with sent, whose first known
// messages they are known to share.
func (d *Digester) conversation(msgs []Message, known int) {
	k := min(max(known, 0), len(msgs), len(d.sent))
	for k < len(msgs) && k < len(d.sent) && SameMessage(&msgs[k], &d.sent[k]) {
		k++
	}
	if k < len(d.sent) { // the conversation was rewritten: chain the kept digests again
		d.sent, d.sentDigests = d.sent[:k:k], d.sentDigests[:k:k]
		d.chain = DigestChain{}
		for _, s := range d.sentDigests {
			d.chain.Add(s)
		}
	}
	for i := k; i < len(msgs); i++ {
		s := messageDigest(&msgs[i])
		d.sent = append(d.sent, cloneMessage(&msgs[i]))
		d.sentDigests = append(d.sentDigests, s)
		d.chain.Add(s)
	}
}

// toolsDigests is digestTools; the tests count its calls.
var toolsDigests = digestTools

// messageDigest is MessageDigest; the tests count its calls.
var messageDigest = MessageDigest

// SameMessage reports whether a and b encode to the same JSON, comparing
// their fields: a nil member is told from an empty one, as the encoding
// may tell them apart.
func SameMessage(a, b *Message) bool {
	return a.Role == b.Role && a.ID == b.ID && sameParts(a.Content, b.Content)
}

func sameParts(a, b []session.Part) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Type != y.Type || x.Text != y.Text || x.ID != y.ID || x.Name != y.Name || x.Arguments != y.Arguments ||
			x.ToolCallID != y.ToolCallID || x.IsError != y.IsError || !sameAttachment(x.Attachment, y.Attachment) ||
			!sameRaw(x.Meta, y.Meta) || !sameParts(x.Content, y.Content) {
			return false
		}
	}
	return true
}

func sameRaw(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// sameAttachment compares what a and b point to: an image changed in
// place is another image.
func sameAttachment(a, b *session.Attachment) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b) && (a.VideoMetadata == nil) == (b.VideoMetadata == nil)
}

// cloneMessage copies m's slices (its strings cannot change).
func cloneMessage(m *Message) Message {
	c := *m
	c.Content = cloneParts(m.Content)
	return c
}

// cloneParts copies parts and the parts they hold, all in one slice
// (each view capped).
func cloneParts(parts []session.Part) []session.Part {
	if parts == nil {
		return nil
	}
	out, _ := clonePartsInto(parts, make([]session.Part, countParts(parts)))
	return out
}

func countParts(parts []session.Part) int {
	n := len(parts)
	for i := range parts {
		n += countParts(parts[i].Content)
	}
	return n
}

// clonePartsInto copies parts into the front of buf and returns the copy
// and what is left of buf.
func clonePartsInto(parts, buf []session.Part) (out, rest []session.Part) {
	out, rest = buf[:len(parts):len(parts)], buf[len(parts):]
	for i := range parts {
		out[i] = parts[i]
		out[i].Meta = bytes.Clone(parts[i].Meta)
		if a := parts[i].Attachment; a != nil {
			c := *a
			out[i].Attachment = &c
		}
		if parts[i].Content != nil {
			out[i].Content, rest = clonePartsInto(parts[i].Content, rest)
		}
	}
	return out, rest
}

func sameTools(a, b []ToolSpec) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !sameRaw(a[i].Parameters, b[i].Parameters) {
			return false
		}
	}
	return true
}

func cloneTools(tools []ToolSpec) []ToolSpec {
	if tools == nil {
		return nil
	}
	out := slices.Clone(tools)
	for i := range out {
		out[i].Parameters = bytes.Clone(out[i].Parameters)
	}
	return out
}
