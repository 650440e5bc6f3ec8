package responses

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Served keeps every response a server answered, under its id, with the
// conversation it answered, so a later request continues it by
// previous_response_id or names its items by item_reference — the state
// the Responses API keeps for a stored response. A server keeps one Served
// for the life of one run (the ids it hands out are derived from its calls,
// so a replay hands out, and is asked for, the same ones); a fork child
// may name its parent's responses. It is safe for concurrent use.
type Served struct {
	mu        sync.Mutex
	responses map[string]*served
	items     map[string]servedItem
	// A request is read against the last one (DecodeNext), reusing what
	// Recorded and Item answered it; epoch counts the changes to an
	// answer either gave, so an unchanged epoch proves those answers
	// still hold. missed holds the ids they found no item for.
	epoch  uint64
	missed map[string]bool
}

// media is the agent's own parts for the images and files of a
// conversation (see llm.Media): those the request that ends it read
// (own), then those of the conversation it went on from (earlier), which
// a request continuing a response by previous_response_id does not send
// again. A response keeps its conversation's, so a chain gets the blocks
// of every request before it, and a block goes when no kept response and
// no request read against the last one holds it: not, as a media of the
// whole run would, when the run ends. A media is not changed once made.
type media struct {
	own     llm.Media
	earlier *media
}

// with returns the media of a conversation that goes on from m's with
// own's parts: m itself when own has none.
func (m *media) with(own llm.Media) *media {
	if len(own) == 0 {
		return m
	}
	return &media{own: own, earlier: m}
}

// all returns every block of m, those read last winning: what a live
// call sends (a replay never needs them). One map for the whole chain, not
// one per link.
func (m *media) all() llm.Media {
	switch {
	case m == nil:
		return nil
	case m.earlier == nil:
		return m.own
	}
	var chain []*media
	n := 0
	for c := m; c != nil; c = c.earlier {
		chain = append(chain, c)
		n += len(c.own)
	}
	out := make(llm.Media, n)
	for i := len(chain) - 1; i >= 0; i-- {
		maps.Copy(out, chain[i].own)
	}
	return out
}

type served struct {
	conv   []session.Message // the conversation it answered; nothing is appended to it in place
	media  *media            // the agent's parts for conv's images and files
	out    session.Message   // its output, as recorded
	stored bool
	// from is the request DecodeNext read whose messages conv is, when
	// there is room after them that the first request continuing the
	// response may take (Next.grown): a chain then grows in one array
	// instead of copying the conversation on every call.
	from *Next
}

type servedItem struct {
	part   session.Part // as recorded
	resp   string
	stored bool
}

// NewServed returns an empty Served.
func NewServed() *Served {
	return &Served{responses: map[string]*served{}, items: map[string]servedItem{}, missed: map[string]bool{}}
}

// Put keeps the response id: the conversation conv it answered, its output
// out as recorded, and the id each part of out was served with (a
// Result's). stored is the request's store: a response served with store
// false is kept only to say so when a later request names it, as the API
// keeps none.
func (s *Served) Put(id string, conv []session.Message, out session.Message, itemIDs []string, stored bool) {
	r := &served{out: out, stored: stored}
	if stored { // one served with store false is never continued
		r.conv = slices.Clone(conv)
	}
	s.put(id, r, itemIDs)
}

// PutNext is Put for a response to the request n (read by DecodeNext):
// the response keeps n's messages, not a copy, and the request that
// continues it by previous_response_id appends to them in place — unless
// one read against n did first — so a chain costs the same per call
// however long its conversation grows. A request that sent its items
// (whose whole body n keeps, to read the next against) is not kept: every
// response would hold a body of the whole conversation; a chain that
// continues one copies its conversation once.
func (s *Served) PutNext(id string, n *Next, out session.Message, itemIDs []string, stored bool) {
	r := &served{out: out, stored: stored}
	if stored { // one served with store false is never continued
		r.conv, r.media = n.Decoded.Messages, n.Decoded.media
		if n.body == nil {
			r.from = n
		}
	}
	s.put(id, r, itemIDs)
}

func (s *Served) put(id string, r *served, itemIDs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responses[id] = r
	for i, item := range itemIDs {
		if i < len(r.out.Content) && item != "" {
			if _, had := s.items[item]; had || s.missed[item] {
				s.epoch++ // an answer Recorded or Item gave may change
				delete(s.missed, item)
			}
			s.items[item] = servedItem{part: r.out.Content[i], resp: id, stored: r.stored}
		}
	}
}

// Recorded returns the meta of the part an output item was recorded with,
// when this run served the item id: an agent that sends the item back
// sends what the log holds. ok is false for an id this run never served.
func (s *Served) Recorded(id string) (meta json.RawMessage, ok bool) {
	if id == "" {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[id]
	if !ok {
		s.missed[id] = true
	}
	return it.part.Meta, ok
}

// Epoch returns how many times an answer Recorded or Item gave has
// changed since s was made: a decode that began at the same epoch got the
// answers these calls give now.
func (s *Served) Epoch() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epoch
}

// Conversation returns the conversation that continues response id: what
// it answered, then its output. The caller may append to the slice.
func (s *Served) Conversation(id string) ([]session.Message, error) {
	conv, _, _, err := s.conversation(id)
	return conv, err
}

// conversation is Conversation, also returning the request the response
// answered when DecodeNext read it (PutNext), else nil, and the agent's
// parts for the conversation's images and files.
func (s *Served) conversation(id string) ([]session.Message, *Next, *media, error) {
	s.mu.Lock()
	r, ok := s.responses[id]
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("previous_response_id %q names no response served in this run (%s); send the id of a response the agent was handed in this run, or send the whole conversation as input", id, s.count())
	case !r.stored:
		err = fmt.Errorf("previous_response_id %q names a response served with store: false, which the Responses API does not keep; send store: true with the request that makes it, or send the whole conversation as input", id)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, nil, nil, err
	}
	if r.from != nil && r.from.grown.CompareAndSwap(false, true) {
		// The room after the request's messages is this caller's now.
		return append(r.from.msgs, r.out), r.from, r.media, nil
	}
	return append(slices.Clip(r.conv), r.out), r.from, r.media, nil
}

// Item returns the output item id of a response served in this run, as
// recorded: a part of an assistant message.
func (s *Served) Item(id string) (session.Part, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[id]
	switch {
	case !ok:
		s.missed[id] = true
		return session.Part{}, fmt.Errorf("item_reference %q names no output item of a response served in this run (%s); send the item itself", id, s.count())
	case !it.stored:
		return session.Part{}, fmt.Errorf("item_reference %q names an item of response %s, served with store: false, which the Responses API does not keep; send the item itself, or store: true with the request that makes it", id, it.resp)
	}
	return it.part, nil
}

// count says how many responses were served, for messages. The caller
// holds s.mu.
func (s *Served) count() string {
	switch n := len(s.responses); n {
	case 0:
		return "none was served yet"
	case 1:
		return "1 was served"
	default:
		return fmt.Sprintf("%d were served", n)
	}
}
