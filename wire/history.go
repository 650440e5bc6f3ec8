package wire

// How a request's conversation is compared with the session's log: the
// messages it repeats, the first that differs, and how, for the history
// check and its messages.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// commonPrefixFrom returns how many leading messages a and b share, as a
// model sees them, for a and b known to share their first known messages.
func commonPrefixFrom(a, b []session.Message, known int) int {
	n := min(len(a), len(b))
	for i := known; i < n; i++ {
		if differs(&a[i], &b[i]) != "" {
			return i
		}
	}
	return n
}

// trailingUsers returns the user messages a request ends with: what starts
// the turn it opens (usually the prompt; a context message and the
// question; few-shot examples end with the real one).
func trailingUsers(msgs []session.Message) []session.Message {
	i := len(msgs)
	for i > 0 && plainUser(&msgs[i-1]) {
		i--
	}
	return msgs[i:]
}

// plainUser reports whether m is a user message, not a carrier of tool
// results.
func plainUser(m *session.Message) bool {
	if m.Role != session.RoleUser {
		return false
	}
	for _, p := range m.Content {
		if p.Type == session.PartToolResult {
			return false
		}
	}
	return true
}

// differs says how two messages differ in what a model sees, or "".
// Reasoning is not compared: SDKs do not send it back. Tool-call arguments
// that are the same JSON value compare equal, however they are spaced. A
// tool result's meta is compared (the agent's, such as a Gemini result's
// willContinue); the meta of the model's own parts (signatures, item ids)
// is not: a client need not send it back.
func differs(want, got *session.Message) string {
	if same(want, got) {
		return ""
	}
	return differsHow(want, got)
}

// same reports whether two messages are the same in what a model sees,
// part by part, without building what differsHow compares: when it is
// true, differsHow finds no difference.
func same(want, got *session.Message) bool {
	if want.Role != got.Role || want.Text() != got.Text() {
		return false
	}
	i, k := 0, 0
	for {
		for i < len(want.Content) && !comparedPart(&want.Content[i]) {
			i++
		}
		for k < len(got.Content) && !comparedPart(&got.Content[k]) {
			k++
		}
		if i == len(want.Content) || k == len(got.Content) {
			return i == len(want.Content) && k == len(got.Content)
		}
		w, g := &want.Content[i], &got.Content[k]
		if w.Type != g.Type || !sameID(w.ID, g.ID) || w.Name != g.Name || w.Arguments != g.Arguments ||
			!sameID(w.ToolCallID, g.ToolCallID) || w.IsError != g.IsError || resultText(*w) != resultText(*g) ||
			(w.Type == session.PartToolResult && string(w.Meta) != string(g.Meta)) ||
			!slices.EqualFunc(attachments(w), attachments(g), sameAttachment) {
			return false
		}
		i, k = i+1, k+1
	}
}

// sameID reports whether a call id (or a result's) the agent sent, got,
// names the call want names: the same id, or none — Gemini's ids are
// optional, and clients generated from its protos (generative-ai-go, and
// langchaingo's googleai on it) send the calls of an answer back without
// the ids it gave them; the name, arguments and place tell the call then.
func sameID(want, got string) bool { return want == got || got == "" }

// comparedPart reports whether differsHow compares p besides the text:
// tool calls, tool results, images and files.
func comparedPart(p *session.Part) bool {
	switch p.Type {
	case session.PartToolCall, session.PartToolResult, session.PartImage, session.PartFile:
		return true
	}
	return false
}

// attachments is what p attaches: its own, or a tool result's images and
// files; nil for none.
func attachments(p *session.Part) []session.Attachment {
	var out []session.Attachment
	if p.Attachment != nil {
		out = append(out, *p.Attachment)
	}
	for i := range p.Content {
		out = append(out, attachments(&p.Content[i])...)
	}
	return out
}

func sameAttachment(a, b session.Attachment) bool { return a.Equal(&b) }

// messageAttachments is attachments of each part of m, in order.
func messageAttachments(m *session.Message) []session.Attachment {
	var out []session.Attachment
	for i := range m.Content {
		out = append(out, attachments(&m.Content[i])...)
	}
	return out
}

// differsHow is differs, naming the difference.
func differsHow(want, got *session.Message) string {
	if want.Role != got.Role {
		return fmt.Sprintf("role %s, want %s", got.Role, want.Role)
	}
	if want.Text() != got.Text() {
		return fmt.Sprintf("%s text %q, want %q", got.Role, abbrev(got.Text()), abbrev(want.Text()))
	}
	wc, gc := want.ToolCalls(), got.ToolCalls()
	if len(wc) != len(gc) {
		return fmt.Sprintf("%d tool calls, want %d", len(gc), len(wc))
	}
	for i := range wc {
		if !sameID(wc[i].ID, gc[i].ID) || wc[i].Name != gc[i].Name || !sameJSON(wc[i].Arguments, gc[i].Arguments) {
			return fmt.Sprintf("tool call %d is %s %s %s, want %s %s %s", i+1, gc[i].ID, gc[i].Name, gc[i].Arguments, wc[i].ID, wc[i].Name, wc[i].Arguments)
		}
	}
	wr, gr := toolResults(want, got), toolResults(got, nil)
	if wr != gr {
		return fmt.Sprintf("tool result %q, want %q", abbrev(gr), abbrev(wr))
	}
	if k, wm, gm := resultMetaDiffers(want, got); k > 0 {
		return fmt.Sprintf("tool result %d meta %s, want %s", k, cmp.Or(string(gm), "none"), cmp.Or(string(wm), "none"))
	}
	if wa, ga := messageAttachments(want), messageAttachments(got); !slices.EqualFunc(wa, ga, sameAttachment) {
		return fmt.Sprintf("images and files %s, want %s", describeAll(ga), describeAll(wa))
	}
	return ""
}

// resultMetaDiffers returns the place (from 1) of the first tool result
// of got whose meta is not that of want's result at its place, with the
// two metas, or 0. A result's meta is what the API sent beside its content
// (a Gemini functionResponse's willContinue, scheduling), which the model
// sees: another value rewrites the history as another text does.
func resultMetaDiffers(want, got *session.Message) (int, json.RawMessage, json.RawMessage) {
	k, n := 0, 0
	for i := range got.Content {
		g := &got.Content[i]
		if g.Type != session.PartToolResult {
			continue
		}
		n++
		for k < len(want.Content) && want.Content[k].Type != session.PartToolResult {
			k++
		}
		if k == len(want.Content) {
			return 0, nil, nil // fewer results: toolResults tells
		}
		if w := &want.Content[k]; !sameJSON(string(w.Meta), string(g.Meta)) {
			return n, w.Meta, g.Meta
		}
		k++
	}
	return 0, nil, nil
}

// describeAll shows attachments in a few words each.
func describeAll(list []session.Attachment) string {
	if len(list) == 0 {
		return "none"
	}
	out := make([]string, len(list))
	for i := range list {
		out[i] = "[" + llm.Describe(&list[i]) + "]"
	}
	return strings.Join(out, " ")
}

// toolResults is the tool results of m in one string, to compare; the
// call id of each is left out where the result at its place in other (when
// given) names none, as sameID does.
func toolResults(m, other *session.Message) string {
	var ids []string
	if other != nil {
		for _, p := range other.Content {
			if p.Type == session.PartToolResult {
				ids = append(ids, p.ToolCallID)
			}
		}
	}
	var b strings.Builder
	n := 0
	for _, p := range m.Content {
		if p.Type == session.PartToolResult {
			id := p.ToolCallID
			if n < len(ids) && ids[n] == "" {
				id = ""
			}
			n++
			fmt.Fprintf(&b, "%s:%t:%s;", id, p.IsError, resultText(p))
		}
	}
	return b.String()
}

// resultText is the text a tool-result part carries.
func resultText(p session.Part) string {
	m := session.Message{Content: p.Content}
	return m.Text()
}

func callIDs(calls []session.Part) string {
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.ID
	}
	return strings.Join(ids, ", ")
}

func abbrev(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
