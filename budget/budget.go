package budget

import (
	"fmt"
	"math"

	"github.com/agentsnap/agentsnap/session"
)

// Tokens counts the tokens of one or more model calls. CacheRead is part of
// Input and Reasoning part of Output (see the package doc).
type Tokens struct {
	Input     int
	Output    int
	CacheRead int
	Reasoning int
}

// Total returns Input + Output: every token the calls were billed for.
func (t Tokens) Total() int { return add(t.Input, t.Output) }

// Plus returns the sum of t and u.
func (t Tokens) Plus(u Tokens) Tokens {
	return Tokens{add(t.Input, u.Input), add(t.Output, u.Output), add(t.CacheRead, u.CacheRead), add(t.Reasoning, u.Reasoning)}
}

// add returns a + b, held at the int's bounds rather than wrapping: a log
// whose counts are absurd (hand-edited, or a buggy provider's) must not
// sum to a negative total, which every budget would let through.
func add(a, b int) int {
	switch {
	case b > 0 && a > math.MaxInt-b:
		return math.MaxInt
	case b < 0 && a < math.MinInt-b:
		return math.MinInt
	}
	return a + b
}

// String returns "298 tokens (181 input, 117 output)", with the cache
// reads and reasoning when there are any.
func (t Tokens) String() string {
	s := fmt.Sprintf("%d tokens (%d input", t.Total(), t.Input)
	if t.CacheRead > 0 {
		s += fmt.Sprintf(", %d from cache", t.CacheRead)
	}
	s += fmt.Sprintf(", %d output", t.Output)
	if t.Reasoning > 0 {
		s += fmt.Sprintf(", %d reasoning", t.Reasoning)
	}
	return s + ")"
}

// TokensOf returns the tokens of one usage record, as a log stores it.
func TokensOf(u *session.Usage) Tokens {
	t := Tokens{Input: u.InputTokens, Output: u.OutputTokens}
	if u.CacheReadTokens != nil {
		t.CacheRead = *u.CacheReadTokens
	}
	if u.ReasoningTokens != nil {
		t.Reasoning = *u.ReasoningTokens
	}
	return t
}

// Call is one model call (one attempt) of a session.
type Call struct {
	Turn, Step, Attempt int
	// Model is the model member of the call's request/header; "" when the
	// log has none (dsh logs).
	Model  string
	Tokens Tokens
	// Reported is false when the log records no usage for the call.
	Reported bool
	// Finish is the kind of the call's finish chunk ("stop", "error", ...);
	// "" when the stream has none.
	Finish string
}

// Session is the usage of one session's own model calls.
type Session struct {
	// Path names the session by its place in the tree, as
	// session.LineageKeys does ("root", "root/call_f"); a session counted
	// alone (OfSession) is named by its id.
	Path   string
	ID     string
	Mode   session.Mode // "" for a root
	Depth  int
	Calls  []Call
	Tokens Tokens // the sum over Calls
	// Unread names the events that may hold usage or a call's model and
	// could not be read ("assistant/chunk seq 7: ..."), in log order: what
	// they hold is not counted, so Tokens may be short of what the calls
	// used. Empty when every one was read.
	Unread []string
}

// Unreported returns how many of the session's calls record no usage.
func (s *Session) Unreported() int {
	n := 0
	for _, c := range s.Calls {
		if !c.Reported {
			n++
		}
	}
	return n
}

// Usage is the usage of one agent tree: every session in lineage order.
type Usage struct {
	Sessions []*Session
	Tokens   Tokens // the sum over Sessions
}

// Of counts the usage of the tree the logs form (in any order). It fails
// when they are not one tree.
func Of(logs []*session.Log) (*Usage, error) {
	ordered, err := session.LineageOrder(logs)
	if err != nil {
		return nil, fmt.Errorf("budget: %w", err)
	}
	keys := session.LineageKeys(ordered)
	u := &Usage{}
	for _, l := range ordered {
		s := OfSession(l)
		s.Path = keys[l.Header.ID]
		u.Sessions = append(u.Sessions, s)
		u.Tokens = u.Tokens.Plus(s.Tokens)
	}
	return u, nil
}

// OfSession counts the usage of one session's own model calls; Path is
// the session's id. The calls are the session's session.ModelCalls, the
// count every command and matcher shows; usage is attributed to them.
func OfSession(l *session.Log) *Session {
	s := &Session{Path: l.Header.ID, ID: l.Header.ID, Mode: l.Header.Mode, Depth: l.Header.DelegationDepth}
	own := l.Own()
	calls := l.ModelCalls()
	s.Calls = make([]Call, len(calls))
	for i, c := range calls {
		s.Calls[i] = Call{Turn: c.Turn, Step: c.Step, Attempt: c.Attempt}
	}
	k := -1 // the latest call opened at or before the event
	for i := range own {
		opens := k+1 < len(calls) && calls[k+1].At == i
		if opens {
			k++
		}
		if k >= 0 {
			s.event(&own[i], k, opens)
		}
	}
	for _, c := range s.Calls {
		s.Tokens = s.Tokens.Plus(c.Tokens)
	}
	return s
}

// event folds one of the session's own events into its calls: k is the
// latest call opened at or before it, opens says the event opened it.
// session.ModelCalls puts every chunk in call k and every assistant/message
// in the latest call of its turn and step.
func (s *Session) event(e *session.Event, k int, opens bool) {
	switch e.Type {
	case session.TypeRequestHeader:
		var d session.RequestHeaderData
		if !opens {
			return
		}
		if err := e.Decode(&d); err != nil {
			s.unread(e, err)
			return
		}
		s.Calls[k].Model = d.Model
	case session.TypeAssistantChunk:
		d, err := session.DecodeChunkData(e.Data)
		if err != nil {
			s.unread(e, err)
			return
		}
		c := &s.Calls[k]
		switch {
		case d.Chunk.Type == session.ChunkUsage && d.Chunk.Usage != nil:
			c.Tokens, c.Reported = TokensOf(d.Chunk.Usage), true
		case d.Chunk.IsFinish() && d.Chunk.Reason != nil:
			c.Finish = d.Chunk.Reason.Kind
		}
	case session.TypeAssistantMessage:
		var d session.AssistantMessageData
		if err := e.Decode(&d); err != nil {
			s.unread(e, err)
			return
		}
		if d.Usage == nil {
			return
		}
		// The message closes the latest attempt of its turn and step.
		for i := k; i >= 0; i-- {
			if c := &s.Calls[i]; c.Turn == d.Turn && c.Step == d.Step {
				c.Tokens, c.Reported = TokensOf(d.Usage), true
				return
			}
		}
	}
}

// unread notes an event that could not be read.
func (s *Session) unread(e *session.Event, err error) {
	s.Unread = append(s.Unread, fmt.Sprintf("%s seq %d: %v", e.Type, e.Seq, err))
}

// Unread returns the Unread of every session, each after its path
// ("root/call_f: assistant/chunk seq 7: ..."), in lineage order.
func (u *Usage) Unread() []string {
	var out []string
	for _, s := range u.Sessions {
		for _, m := range s.Unread {
			out = append(out, s.Path+": "+m)
		}
	}
	return out
}

// Session returns the session at a lineage path, or nil.
func (u *Usage) Session(path string) *Session {
	for _, s := range u.Sessions {
		if s.Path == path {
			return s
		}
	}
	return nil
}

// Calls returns the number of model calls of the tree.
func (u *Usage) Calls() int {
	n := 0
	for _, s := range u.Sessions {
		n += len(s.Calls)
	}
	return n
}

// Unreported returns how many calls of the tree record no usage.
func (u *Usage) Unreported() int {
	n := 0
	for _, s := range u.Sessions {
		n += s.Unreported()
	}
	return n
}
