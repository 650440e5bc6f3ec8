package responses

import (
	"bytes"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// Next is a request read by DecodeNext, kept to read the same agent's
// next request against it: an agent that does not chain its requests by
// previous_response_id sends its whole input on every call, and the next
// call repeats this one's items byte for byte. A Next is not changed once
// returned; it is safe for concurrent use.
type Next struct {
	// Decoded is the request, as Decode reads it. Its slices and maps are
	// shared with the requests read against it: change none of them.
	Decoded *Decoded
	// Reused is how many leading messages of Decoded.Messages are the
	// previous request's, the same values: all of its messages — read
	// from the same bytes, or, for a request that continues the answer to
	// it by previous_response_id (Served.PutNext), from the chain — or 0.
	Reused int
	// SameRest reports whether the members but input (and, for requests
	// both chained, previous_response_id) are the previous request's, byte
	// for byte: Model, Tools, Stream, Store, Settings and the instructions
	// are then its.
	SameRest bool

	served *Served
	body   []byte // nil: the next request is read whole
	at     jsonscan.Spans
	msgs   []session.Message // Decoded.Messages, with room to grow
	instr  string            // the instructions, "" for none
	sys    []string          // the input's system and developer texts
	open   bool              // the builder's open after the input: see builder
	epoch  uint64            // s.Epoch() before the lookups this request relies on
	grown  atomic.Bool       // a request read against this one appended to msgs in place
	spans  [4][2]int         // room for the spans of the new items: a local array would escape
	// chain is the body of a request that continues a response by
	// previous_response_id, nil for none or one of a shape chained does
	// not read; cut are the spans of its input and previous_response_id
	// values, in the order they come.
	chain []byte
	cut   chainCut
}

// DecodeNext reads an agent's request body as Decode does, against prev,
// the same agent's last request read by s (nil for none): when the body's
// input begins with all of prev's items, byte for byte, only the items
// after them are read, and the other members only when their bytes
// changed. A body that continues a response by previous_response_id, read
// against a prev that did too, reads only its input and the conversation
// the id names when the rest of it is prev's byte for byte. Whatever prev
// is, the Decoded is Decode's; a body of any other shape (an input that is
// a string, a member named twice) is read whole, and its error is
// Decode's.
func (s *Served) DecodeNext(prev *Next, body []byte) (*Next, error) {
	if prev != nil && prev.served == s {
		if prev.body != nil {
			if n := prev.next(body); n != nil {
				return n, nil
			}
		} else if prev.chain != nil {
			if n := prev.chained(body); n != nil {
				return n, nil
			}
		}
	}
	// Read before the lookups the decode makes: a later change to their
	// answers moves it on.
	epoch := s.Epoch()
	d, b, err := s.decode(body)
	if err != nil {
		return nil, err
	}
	n := &Next{Decoded: d, served: s, msgs: d.Messages, open: b.open, epoch: epoch}
	d.Messages = slices.Clip(d.Messages)
	n.sys = b.system
	if b.instructions {
		n.instr, n.sys = b.system[0], b.system[1:]
	}
	if d.Previous != "" {
		// The conversation is the chain's, kept by s: each request is read
		// whole. When it continues the answer to prev, it begins with
		// prev's messages, the same values.
		if prev != nil && b.continued == prev {
			n.Reused = len(prev.Decoded.Messages)
		}
		if cut, _, ok := scanChain(body); ok {
			n.chain, n.cut = body, cut
		}
		return n, nil
	}
	if at, _, ok := jsonscan.ArrayMember(body, "input", nil, jsonscan.Spans{}, nil); ok {
		n.body, n.at = body, at
	}
	return n, nil
}

// next reads body against n, or returns nil when body does not repeat n's
// items (or is not a shape next reads, or holds an error, which Decode
// then names).
func (n *Next) next(body []byte) *Next {
	// Every item n read may have asked s for its recorded meta or the item
	// it references: reused, the answers must be today's.
	epoch := n.served.Epoch()
	if epoch != n.epoch {
		return nil
	}
	out := &Next{served: n.served, body: body, epoch: epoch}
	added := out.spans[:0] // the usual few new items, in out's allocation
	at, same, ok := jsonscan.ArrayNext(body, "input", n.body, n.at, &added)
	if !ok {
		return nil
	}
	out.Reused, out.SameRest, out.at = len(n.msgs), same, at
	d := new(Decoded)
	if same {
		*d = *n.Decoded // its Settings too: shared, as a Next's maps are
		out.instr = n.instr
	} else if !n.rest(body, at, d, out) {
		return nil
	}
	b, ok := n.decodeTail(body, added)
	if !ok {
		return nil
	}
	out.open, out.sys = n.open, n.sys
	if len(added) > 0 {
		out.open, out.sys = b.open, slices.Concat(n.sys, b.system)
	}
	d.System = joinSystem(out.instr, out.sys)
	d.media = n.Decoded.media.with(b.media)
	// The first request read against n appends to n's messages in place:
	// a conversation grows by an item or two per call.
	if n.grown.CompareAndSwap(false, true) {
		out.msgs = append(n.msgs, b.msgs...)
	} else {
		out.msgs = slices.Concat(n.msgs, b.msgs)
	}
	d.Messages = slices.Clip(out.msgs)
	out.Decoded = d
	return out
}

// rest reads the members of body but input into d (and out.instr): the
// body with an empty input, which none of them depends on. It returns
// false for a body next does not read: one Decode refuses, or one that
// continues a chain.
func (n *Next) rest(body []byte, at jsonscan.Spans, d *Decoded, out *Next) bool {
	rest := slices.Concat(body[:at.Arr], []byte("[]"), body[at.End:])
	r, b, err := n.served.decode(rest)
	if err != nil || r.Previous != "" {
		return false
	}
	*d = *r
	if b.instructions {
		out.instr = b.system[0]
	}
	return true
}

// decodeTail reads the items after n's, the elements of body at elems, as
// Decode reads them after n's: a function_call_output takes the name of
// the latest function call before it with its call id, in these items or
// in n's messages. It returns false for anything Decode would refuse, and
// for an output item that would join n's last message (Decode makes
// consecutive output items one assistant message): n's are not changed.
func (n *Next) decodeTail(body []byte, elems [][2]int) (*builder, bool) {
	b := &builder{served: n.served, before: n.msgs}
	for i, e := range elems {
		var it Item
		if decodeItem(body[e[0]:e[1]], &it) != nil {
			return nil, false
		}
		if i == 0 && n.open && output(&it) {
			return nil, false
		}
		if b.item(&it) != nil {
			return nil, false
		}
	}
	return b, true
}

// output reports whether builder.item adds it to the assistant message
// the input is building.
func output(it *Item) bool {
	switch it.Type {
	case ItemFunctionCall, ItemReasoning, ItemReference:
		return true
	case "", ItemMessage:
		return it.Role == session.RoleAssistant
	}
	return false
}

// joinSystem is Decode's System: the instructions, then the input's
// system and developer texts.
func joinSystem(instr string, sys []string) string {
	if instr == "" {
		return strings.Join(sys, "\n\n")
	}
	if len(sys) == 0 {
		return instr
	}
	return instr + "\n\n" + strings.Join(sys, "\n\n")
}

// chainCut is where a chained request's body holds the values of its
// input and previous_response_id members: the spans of the values, in the
// order they come. The rest of the body — the three runs around them —
// is what the next request of the chain repeats.
type chainCut [2][2]int

// rest reports whether body, cut at c, holds the bytes of prev, cut at pc,
// around the two values.
func (c chainCut) rest(body, prev []byte, pc chainCut) bool {
	return bytes.Equal(body[:c[0][0]], prev[:pc[0][0]]) &&
		bytes.Equal(body[c[0][1]:c[1][0]], prev[pc[0][1]:pc[1][0]]) &&
		bytes.Equal(body[c[1][1]:], prev[pc[1][1]:])
}

// scanChain scans body, one JSON object, for the members a chained
// request sends anew each call: its input, an array, whose elements'
// spans it returns, and its previous_response_id, a string of printable
// ASCII but quote and backslash (what encoding/json reads as the same
// bytes), not empty. It refuses (ok false) a body that is not one valid
// object, either member missing, repeated or of another type, a member
// named in other case than they (encoding/json would match it) or with
// escapes, and a conversation member: a caller reads such a body whole.
func scanChain(body []byte) (cut chainCut, elems [][2]int, ok bool) {
	var in, id [2]int
	i := jsonscan.SkipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return cut, nil, false
	}
	for i = jsonscan.SkipSpace(body, i+1); i < len(body) && body[i] != '}'; {
		if body[i] != '"' {
			return cut, nil, false
		}
		end, esc, err := jsonscan.SkipString(body, i)
		if err != nil || esc {
			return cut, nil, false
		}
		key := body[i+1 : end-1]
		if i = jsonscan.SkipSpace(body, end); i >= len(body) || body[i] != ':' {
			return cut, nil, false
		}
		i = jsonscan.SkipSpace(body, i+1)
		v := i
		if i, err = jsonscan.SkipMember(body, i); err != nil {
			return cut, nil, false
		}
		switch {
		case string(key) == "input":
			if in[1] != 0 || body[v] != '[' {
				return cut, nil, false
			}
			in = [2]int{v, i}
		case string(key) == "previous_response_id":
			if id[1] != 0 || !plainID(body[v:i]) {
				return cut, nil, false
			}
			id = [2]int{v, i}
		case bytes.EqualFold(key, []byte("input")), bytes.EqualFold(key, []byte("previous_response_id")),
			bytes.EqualFold(key, []byte("conversation")):
			return cut, nil, false
		}
		// The comma after a member must lead to another: no trailing comma.
		switch i = jsonscan.SkipSpace(body, i); {
		case i < len(body) && body[i] == ',':
			if i = jsonscan.SkipSpace(body, i+1); i >= len(body) || body[i] != '"' {
				return cut, nil, false
			}
		case i < len(body) && body[i] == '}':
		default:
			return cut, nil, false
		}
	}
	if i >= len(body) || jsonscan.SkipSpace(body, i+1) != len(body) || in[1] == 0 || id[1] == 0 {
		return cut, nil, false
	}
	// The input is valid, at its depth in body: its elements are split.
	for j := jsonscan.SkipSpace(body, in[0]+1); body[j] != ']'; {
		e, err := jsonscan.SkipValue(body, j)
		if err != nil {
			return cut, nil, false
		}
		elems = append(elems, [2]int{j, e})
		if j = jsonscan.SkipSpace(body, e); body[j] == ',' {
			j = jsonscan.SkipSpace(body, j+1)
		}
	}
	cut = chainCut{in, id}
	if id[0] < in[0] {
		cut = chainCut{id, in}
	}
	return cut, elems, true
}

// plainID reports whether raw is a JSON string of printable ASCII but
// quote and backslash, not empty: one whose bytes are its value.
func plainID(raw []byte) bool {
	if len(raw) < 3 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// chained reads body against n, a request that continued a response by
// previous_response_id, when body does too and repeats all of n's body
// but the input and previous_response_id values, byte for byte: the
// members but those are n's then, and only the new id's conversation
// and the input are read. It returns nil for any other body (or one that
// holds an error, which Decode then names).
//
// Nothing reused depends on s's answers (Recorded, Item): the
// conversation and the items are looked up afresh.
func (n *Next) chained(body []byte) *Next {
	cut, elems, ok := scanChain(body)
	if !ok || !cut.rest(body, n.chain, n.cut) {
		return nil
	}
	id := cut[0]
	if body[id[0]] == '[' {
		id = cut[1]
	}
	s := n.served
	// Read before the lookups: a later change to their answers moves it on.
	epoch := s.Epoch()
	items := make([]Item, len(elems))
	for i, e := range elems {
		if decodeItem(body[e[0]:e[1]], &items[i]) != nil {
			return nil
		}
	}
	d := new(Decoded)
	*d = *n.Decoded // its Settings too: shared, as a Next's maps are
	d.Previous = string(body[id[0]+1 : id[1]-1])
	conv, from, media, err := s.conversation(d.Previous)
	if err != nil {
		return nil
	}
	b := builder{served: s, msgs: conv, continued: from}
	for i := range items {
		if b.item(&items[i]) != nil {
			return nil
		}
	}
	d.System = joinSystem(n.instr, b.system)
	d.Messages = slices.Clip(b.msgs)
	d.media = media.with(b.media)
	out := &Next{Decoded: d, SameRest: true, served: s, msgs: b.msgs, instr: n.instr, sys: b.system,
		open: b.open, epoch: epoch, chain: body, cut: cut}
	if from == n {
		out.Reused = len(n.Decoded.Messages)
	}
	return out
}
