package anthropic

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Decoded is a request read by DecodeNext, kept to read the same agent's
// next request against it: an agent sends its whole conversation on every
// call, and the next call repeats this one's messages byte for byte. A
// Decoded is not changed once returned; it is safe for concurrent use.
type Decoded struct {
	// Call is the request, as DecodeRequest reads it. Its slices and the
	// values of its Members are shared with the requests read against it,
	// and Members["messages"] may be a window of the body: change neither.
	Call *Call
	// Reused is how many leading messages of Call.Messages are the
	// previous request's, the same values, read from the same bytes (but
	// for where their cache_control breakpoints are): all of its
	// messages, or 0 when this request was read whole.
	Reused int
	// SameRest reports whether the members but messages are the previous
	// request's, byte for byte: Model, System, Tools, Stream and every
	// member of Members but messages are then its.
	SameRest bool

	body  []byte // nil: the next request is read whole
	at    jsonscan.Spans
	msgs  []session.Message // Call.Messages, with room to grow
	grown atomic.Bool       // a request read against this one appended to msgs in place
	spans [4][2]int         // room for the spans of the new messages: a local array would escape
	// marks is Call.Cache.Marks with room to grow, as msgs is Call.Messages.
	marks      []Mark
	marksGrown atomic.Bool
	// tail holds the offsets in body of the messages array's last ntail
	// elements, in order: a request that sends them again with other
	// breakpoints reads only them again (moved).
	tail  [8]int
	ntail int
}

// DecodeNext reads the body of an agent's POST /v1/messages as
// DecodeRequest does, against prev, the same agent's last request (nil for
// none): when the body's messages begin with all of prev's, byte for
// byte, only those after them are read, and the other members only when
// their bytes changed. An agent that moves its cache breakpoints to the
// newest message on each call changes the last few of prev's messages
// only there: those are read again for their breakpoints alone, the
// messages kept (see moved). Whatever prev is, the Call is
// DecodeRequest's; a body of any other shape is read whole, and its error
// is DecodeRequest's.
func DecodeNext(prev *Decoded, body []byte) (*Decoded, error) {
	if prev != nil && prev.body != nil {
		if d := prev.next(body); d != nil {
			return d, nil
		}
	}
	call, err := DecodeRequest(body)
	if err != nil {
		return nil, err
	}
	d := &Decoded{Call: call, msgs: call.Messages}
	call.Messages = slices.Clip(call.Messages)
	if call.Cache != nil {
		d.marks = call.Cache.Marks
		call.Cache.Marks = slices.Clip(call.Cache.Marks)
	}
	var elems [][2]int
	if at, _, ok := jsonscan.ArrayMember(body, "messages", noMessages, noMessagesAt, &elems); ok {
		d.body, d.at = body, at
		d.setTail(nil, 0, elems)
	}
	return d, nil
}

// noMessages is a body whose messages every array begins with: read
// against it, ArrayMember lists the elements of a body's messages.
var noMessages = []byte(`{"messages":[]}`)

var noMessagesAt, _, _ = jsonscan.ArrayMember(noMessages, "messages", nil, jsonscan.Spans{}, nil)

// setTail keeps in d.tail the offsets of its body's last elements: those
// of kept, moved by shift (the array's own move in the body), then the
// starts of added.
func (d *Decoded) setTail(kept []int, shift int, added [][2]int) {
	if len(added) > len(d.tail) {
		added = added[len(added)-len(d.tail):]
	}
	kept = kept[max(0, len(kept)+len(added)-len(d.tail)):]
	n := copy(d.tail[:], kept)
	for i := range n {
		d.tail[i] += shift
	}
	for _, e := range added {
		d.tail[n] = e[0]
		n++
	}
	d.ntail = n
}

// next reads body against d, or returns nil when body does not repeat d's
// messages (or is not a shape next reads, or holds an error, which
// DecodeRequest then names).
func (d *Decoded) next(body []byte) *Decoded {
	out := &Decoded{body: body}
	added := out.spans[:0] // the usual few new messages, in out's allocation
	tail := d.tail[:d.ntail]
	at, same, ok := jsonscan.ArrayNext(body, "messages", d.body, d.at, &added)
	again := 0 // how many of d's last messages body sends again, its breakpoints moved
	if !ok {
		if at, same, again, ok = d.moved(body, &added); !ok {
			return nil
		}
		tail = tail[:len(tail)-again]
	}
	out.setTail(tail, at.Arr-d.at.Arr, added)
	out.Reused, out.SameRest, out.at = len(d.msgs), same, at
	call := new(Call)
	if same {
		*call = *d.Call
		call.Members = maps.Clone(d.Call.Members)
	} else {
		// The other members, read as a body without messages: none of
		// them depends on the conversation.
		rest := slices.Concat(body[:at.Arr], []byte("[]"), body[at.End:])
		c, err := DecodeRequest(rest)
		if err != nil {
			return nil
		}
		*call = *c
	}
	// The member as encoding/json holds it: the array's bytes, without
	// the space around them. A window, not a copy: the copy would cost as
	// much as the conversation is long.
	call.Members["messages"] = json.RawMessage(body[at.Arr:at.End:at.End])
	// Messages sent again with their breakpoints moved are d's, but for
	// the breakpoints: those are read again, and d's on them dropped —
	// their images' and files' blocks too, which hold their own.
	var media, read llm.Media // the blocks of the messages read here, which win over d's
	redone, moved, ok := d.decodeTail(body, added[:again], 0, &read)
	if !ok || len(redone) > len(d.msgs) {
		return nil
	}
	media = sentAgain(media, read, len(d.msgs)-len(redone), redone)
	add, marks, ok := d.decodeTail(body, added[again:], len(d.msgs), &media)
	if !ok {
		return nil
	}
	call.Media = llm.Merge(d.Call.Media, media)
	// The repeated messages are d's, byte for byte: their breakpoints too,
	// after which the new ones go, in place as the messages do. Without
	// new ones, out has d's, clipped: the room after them is d's to give
	// (marksGrown), and a request read against out must not write there
	// what another read against d put.
	out.marks = slices.Clip(d.marks)
	if again > 0 {
		from := len(d.msgs) - len(redone)
		for i := range moved {
			moved[i].Message += from
		}
		kept := len(d.marks)
		for kept > 0 && d.marks[kept-1].Message >= from {
			kept--
		}
		out.marks = slices.Concat(d.marks[:kept], moved, marks)
	} else if len(marks) > 0 {
		if d.marksGrown.CompareAndSwap(false, true) {
			out.marks = append(d.marks, marks...)
		} else {
			out.marks = slices.Concat(d.marks, marks)
		}
	}
	call.Cache = call.Cache.withMarks(slices.Clip(out.marks))
	// The first request read against d appends to d's messages in place:
	// a conversation grows by a message or two per call.
	if d.grown.CompareAndSwap(false, true) {
		out.msgs = append(d.msgs, add...)
	} else {
		out.msgs = slices.Concat(d.msgs, add)
	}
	call.Messages = slices.Clip(out.msgs)
	out.Call = call
	return out
}

// decodeTail reads the messages after d's, the elements of body at elems,
// as DecodeRequest reads them after d's: a tool result takes the name of
// the latest tool_use before it with its id, in these messages or in d's.
// It returns them with their breakpoints (the first message numbered at),
// or false for anything DecodeRequest would refuse; their images' and
// files' blocks go into media.
func (d *Decoded) decodeTail(body []byte, elems [][2]int, at int, media *llm.Media) ([]session.Message, []Mark, bool) {
	var add []session.Message
	var marks []Mark
	names := map[string]string{} // DecodeRequest's names, for the ids these messages use
	for _, e := range elems {
		elem := body[e[0]:e[1]]
		var m Message
		if decodeElem(elem, &m) != nil {
			return nil, nil, false
		}
		if m.Role == session.RoleUser {
			for _, b := range m.Content {
				if _, ok := names[b.ToolUseID]; b.Type == TypeToolResult && !ok {
					names[b.ToolUseID], _ = session.LatestCallName(d.msgs, b.ToolUseID)
				}
			}
		}
		msgs, err := decodeMessage(&m, names, at+len(add), &marks, media)
		if err != nil {
			return nil, nil, false
		}
		add = append(add, msgs...)
	}
	return add, marks, true
}

// moved reads body's messages against d's when body sends some of d's
// last messages (those at d.tail) again with only their breakpoints
// changed: an agent that moves its cache_control to the newest message on
// every call, as Anthropic's prompt caching guide has it. The first again
// elements at *added are those d's, the others new. It reports false for
// a body that changed anything else in d's messages.
func (d *Decoded) moved(body []byte, added *[][2]int) (at jsonscan.Spans, same bool, again int, ok bool) {
	*added = (*added)[:0]
	tail := d.tail[:d.ntail]
	at, from, same, ok := jsonscan.ArrayFrom(body, "messages", d.body, d.at, tail, added)
	if !ok {
		return at, false, 0, false
	}
	var buf []byte
	for i, start := range tail[from:] {
		end, err := jsonscan.SkipValue(d.body, start)
		if err != nil {
			return at, false, 0, false
		}
		was, ok1 := appendUnmarked(buf[:0], d.body[start:end], 0)
		e := (*added)[i]
		buf, ok = appendUnmarked(was, body[e[0]:e[1]], 0)
		if !ok1 || !ok || !bytes.Equal(buf[:len(was)], buf[len(was):]) {
			return at, false, 0, false
		}
	}
	return at, same, len(tail) - from, true
}

// appendUnmarked appends obj, a message (depth 0), one of its blocks (1)
// or a tool result's content block (2), without the blocks'
// cache_control members, byte for byte otherwise (but for the space
// between a content's blocks): a member cut with the comma after it, or
// the one before it when it is the last. It reports false for what is not
// an object of names without escapes. obj is valid JSON: a body's element
// scanned, or a message read before.
func appendUnmarked(dst, obj []byte, depth int) ([]byte, bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return dst, false
	}
	from, end := 0, 1 // obj[from:] is yet to be appended; end: past the last member kept
	for i := jsonscan.SkipSpace(obj, 1); i < len(obj) && obj[i] != '}'; {
		name, esc, err := jsonscan.SkipString(obj, i)
		if err != nil || esc {
			return dst, false
		}
		key := string(obj[i+1 : name-1])
		v := jsonscan.SkipSpace(obj, name)
		if v >= len(obj) || obj[v] != ':' {
			return dst, false
		}
		v = jsonscan.SkipSpace(obj, v+1)
		vend, err := jsonscan.SkipMember(obj, v)
		if err != nil {
			return dst, false
		}
		next := jsonscan.SkipSpace(obj, vend)
		if next < len(obj) && obj[next] == ',' {
			next = jsonscan.SkipSpace(obj, next+1)
		}
		switch {
		case depth > 0 && key == "cache_control":
			if next < len(obj) && obj[next] == '}' {
				dst, from = append(dst, obj[from:end]...), vend // the last: the comma before it goes
			} else {
				dst, from = append(dst, obj[from:i]...), next
			}
		case depth < 2 && key == "content" && obj[v] == '[':
			dst = append(dst, obj[from:v]...)
			if dst, from = append(dst, '['), vend; !jsonscan.EachElement(obj[v:vend], func(e []byte) bool {
				ok := true
				if e[0] == '{' {
					dst, ok = appendUnmarked(dst, e, depth+1)
				} else {
					dst = append(dst, e...)
				}
				dst = append(dst, ',') // the elements' own spacing is not kept
				return ok
			}) {
				return dst, false
			}
			dst = append(dst, ']')
			end = vend
		default:
			end = vend
		}
		i = next
	}
	return append(dst, obj[from:]...), true
}

// sentAgain returns media with the blocks of the images and files of
// redone, d's last messages sent again with their breakpoints moved and
// read again as if they were the first (their blocks in read), in their
// places in the conversation, from message from on: a block holds its own
// cache_control, which may have moved too.
func sentAgain(media, read llm.Media, from int, redone []session.Message) llm.Media {
	for i := range redone {
		for j := range redone[i].Content {
			p := &redone[i].Content[j]
			media = again(media, read, p, llm.Place{Message: i, Part: j}, from)
			for k := range p.Content {
				media = again(media, read, &p.Content[k], llm.Place{Message: i, Part: j, Inner: k + 1}, from)
			}
		}
	}
	return media
}

// again returns media with the block read holds for p, an image or file
// read at at in a message sent again, at that message's place (from
// more); media itself for any other part.
func again(media, read llm.Media, p *session.Part, at llm.Place, from int) llm.Media {
	if p.Attachment == nil {
		return media
	}
	b, err := read.Block(p, at)
	if err != nil {
		// read has a block for each part it read; were one missing, a live
		// call would say which part it cannot send.
		return media
	}
	at.Message += from
	return media.Add(p, at, b)
}
