package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// maxText caps the text of one item on the page, so a huge tool result does
// not make the file unwieldy. Alignment compares the whole text.
const maxText = 8000

// Block kinds, in the order they appear within a turn.
const (
	kindOpen  = "open"  // turn/start and the user message
	kindStep  = "step"  // one model call with its output, tool calls and results
	kindEnd   = "end"   // turn/end
	kindOther = "other" // events outside any turn
)

// item is one displayed line of a block.
type item struct {
	Kind string // user, thinking, assistant, call, result, error, failure, request, event
	Name string // the tool of a call, the event type of an unknown event
	ID   string // the call id of a call or result
	Text string
	// Child is the session a call created, if any.
	Child *sessionView
	// Changed marks an item of a differing block that the other side lacks.
	Changed bool
}

// Tag is the short label shown before the item.
func (it *item) Tag() string {
	switch it.Kind {
	case "error":
		return "result (error)"
	case "failure":
		return "failed"
	}
	return it.Kind
}

// block is a unit of alignment: a turn's opening, one step, or a turn's end.
type block struct {
	Kind       string
	Turn, Step int
	Title      string
	Items      []*item
	Usage      usage
	Calls      int // model calls (attempts) in the step, as session.ModelCalls counts them
	callsShown map[string]bool
}

// usage sums token counts; Known says some usage was recorded.
type usage struct {
	budget.Tokens
	Known bool
}

func (u *usage) add(v *session.Usage) {
	if v == nil {
		return
	}
	u.Known = true
	u.Tokens = u.Tokens.Plus(budget.TokensOf(v))
}

func (u *usage) plus(o usage) {
	u.Known = u.Known || o.Known
	u.Tokens = u.Tokens.Plus(o.Tokens)
}

// String is the compact form shown on the page.
func (u usage) String() string {
	if !u.Known {
		return ""
	}
	s := fmt.Sprintf("in %s · out %s", thousands(u.Input), thousands(u.Output))
	if u.CacheRead > 0 {
		s += " · cache " + thousands(u.CacheRead)
	}
	if u.Reasoning > 0 {
		s += " · reasoning " + thousands(u.Reasoning)
	}
	return s
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// sessionView is one session of an agent tree, ready to display.
type sessionView struct {
	Label, ParentLabel string
	Anchor             string
	Header             session.Header
	Key                string // lineage key (session.LineageKeys), equal for the same session of two runs
	Level              int    // 0 for a root, parent's + 1
	Seed, Own          []*block
	SeedSummary        string
	Usage              usage // own events only: the seed repeats the parent's calls
	Calls              int
	Events             int
	Children           []*sessionView
}

// Mode is the delegation mode, or "" for a root.
func (s *sessionView) Mode() string {
	if s.Header.ParentSession == "" {
		return ""
	}
	if s.Header.Mode == "" {
		return "child"
	}
	return string(s.Header.Mode)
}

// tree is the displayable form of one run's logs.
type tree struct {
	Sessions []*sessionView // lineage order
	Roots    []*sessionView
	Usage    usage
	Calls    int
	Note     string // why the logs could not be ordered as a tree, if so
}

// buildTree orders logs by lineage (keeping the given order when they are
// not one tree) and turns each into blocks.
func buildTree(logs []*session.Log) *tree {
	t := &tree{}
	logs = slices.DeleteFunc(slices.Clone(logs), func(l *session.Log) bool { return l == nil })
	if len(logs) == 0 {
		return t
	}
	ordered, err := session.LineageOrder(logs)
	if err != nil {
		t.Note = "report: " + err.Error() + "; sessions are shown in the order given"
		ordered = logs
	}
	labels, keys := transcript.Labels(ordered), session.LineageKeys(ordered)
	byID := map[string]*sessionView{}
	for _, l := range ordered {
		s := &sessionView{Label: labels[l.Header.ID], Key: keys[l.Header.ID], Header: l.Header, Events: len(l.Events)}
		if p := byID[l.Header.ParentSession]; p != nil {
			s.ParentLabel, s.Level = p.Label, p.Level+1
			p.Children = append(p.Children, s)
		} else {
			t.Roots = append(t.Roots, s)
		}
		if _, dup := byID[l.Header.ID]; !dup {
			byID[l.Header.ID] = s
		}
		t.Sessions = append(t.Sessions, s)
	}
	uniqueKeys(t.Sessions)
	for i, l := range ordered {
		s := t.Sessions[i]
		// The seed's calls are the parent's; only own calls link to children.
		s.Seed = (&builder{}).blocks(l.Seed())
		s.Own = (&builder{children: childCalls(s)}).blocks(l.Own())
		s.SeedSummary = seedSummary(s, l.Seed())
		for _, bl := range s.Own {
			s.Usage.plus(bl.Usage)
			s.Calls += bl.Calls
		}
		t.Usage.plus(s.Usage)
		t.Calls += s.Calls
	}
	return t
}

// uniqueKeys numbers repeated keys, so each session of a run has its own
// key even when the logs are not one tree (two roots, a repeated id).
func uniqueKeys(ss []*sessionView) {
	seen := map[string]int{}
	for _, s := range ss {
		seen[s.Key]++
		if n := seen[s.Key]; n > 1 {
			s.Key += "#" + strconv.Itoa(n)
		}
	}
}

// childCalls maps a call id to the children it created, in lineage order.
func childCalls(s *sessionView) map[string][]*sessionView {
	m := map[string][]*sessionView{}
	for _, c := range s.Children {
		m[c.Header.ParentCallID] = append(m[c.Header.ParentCallID], c)
	}
	return m
}

func seedSummary(s *sessionView, seed []session.Event) string {
	if len(seed) == 0 {
		return ""
	}
	var turns []string
	for i := range seed {
		if seed[i].Type == session.TypeTurnStart {
			if turn, _, ok := session.TurnStep(&seed[i]); ok {
				turns = append(turns, strconv.Itoa(turn))
			}
		}
	}
	from := s.ParentLabel
	if from == "" {
		from = "its parent"
	}
	what := "no turns"
	switch len(turns) {
	case 0:
	case 1:
		what = "turn " + turns[0]
	default:
		what = "turns " + strings.Join(turns, ", ")
	}
	return fmt.Sprintf("inherited from %s: %d events, %s", from, len(seed), what)
}

// builder turns events into blocks.
type builder struct {
	out      []*block
	cur      *block
	turn     int
	children map[string][]*sessionView
}

// blocks turns events into blocks; each block's Calls are the model calls
// (session.ModelCalls) whose opening event falls in it.
func (b *builder) blocks(events []session.Event) []*block {
	calls := session.ModelCalls(events)
	for i := range events {
		b.event(&events[i])
		for len(calls) > 0 && calls[0].At == i {
			b.current().Calls++
			calls = calls[1:]
		}
	}
	return b.out
}

func (b *builder) open(kind string, turn, step int, title string) *block {
	b.cur = &block{Kind: kind, Turn: turn, Step: step, Title: title}
	b.out = append(b.out, b.cur)
	return b.cur
}

// current is the block later events of a turn belong to.
func (b *builder) current() *block {
	if b.cur == nil || b.cur.Kind == kindEnd {
		return b.open(kindOther, b.turn, 0, "events")
	}
	return b.cur
}

func (b *builder) add(kind, name, id, text string) *item {
	it := &item{Kind: kind, Name: name, ID: id, Text: text}
	cur := b.current()
	cur.Items = append(cur.Items, it)
	return it
}

func (b *builder) event(e *session.Event) {
	switch e.Type {
	case session.TypeTurnStart:
		var d session.TurnStartData
		_ = e.Decode(&d)
		b.turn = d.Turn
		title := "turn " + strconv.Itoa(d.Turn)
		if d.Trigger != "" {
			title += " (" + d.Trigger + ")"
		}
		b.open(kindOpen, d.Turn, 0, title)
	case session.TypeUserMessage:
		var m session.Message
		_ = e.Decode(&m)
		b.add("user", "", "", m.Text())
		b.attachments(m.Content)
	case session.TypeStepStart:
		var d session.StepData
		_ = e.Decode(&d)
		b.open(kindStep, d.Turn, d.Step, "step "+strconv.Itoa(d.Step))
	case session.TypeRequestHeader:
		b.request(e)
	case session.TypeAssistantChunk:
		b.chunk(e)
	case session.TypeAssistantMessage:
		var d session.AssistantMessageData
		_ = e.Decode(&d)
		b.message(&d)
	case session.TypeToolCall:
		var d session.ToolCallData
		_ = e.Decode(&d)
		b.call(d.CallID, d.Name, d.Arguments)
	case session.TypeToolResult:
		var d session.ToolResultData
		_ = e.Decode(&d)
		b.result(&d.Message)
	case session.TypeStepEnd:
		// The next step/start or turn/end opens the next block.
	case session.TypeTurnEnd:
		var d session.TurnEndData
		_ = e.Decode(&d)
		title := "ended " + d.Reason.Kind
		bl := b.open(kindEnd, d.Turn, 0, title)
		if d.Reason.Message != "" {
			bl.Items = append(bl.Items, &item{Kind: "failure", Name: "turn", Text: d.Reason.Message})
		}
	default:
		b.add("event", e.Type, "", string(e.Data))
	}
}

func (b *builder) request(e *session.Event) {
	var d session.RequestHeaderData
	if e.Decode(&d) != nil || d.Model == "" && d.SystemDigest == "" && d.MessagesDigest == "" {
		// Not agentsnap's shape (dsh writes its own): show it as it is.
		b.add("request", "", "", string(e.Data))
		return
	}
	model := d.Model
	if d.Provider != "" && d.Provider != d.Model {
		model = d.Provider + "/" + d.Model
	}
	text := fmt.Sprintf("%s · %d messages · %d tools", model, d.MessageCount, d.ToolCount)
	if d.SystemDigest != "" {
		text += " · system " + short(d.SystemDigest)
	}
	b.add("request", "", "", text)
}

func short(digest string) string {
	if len(digest) > 8 {
		return digest[:8]
	}
	return digest
}

// chunk adds up usage and shows calls that did not end normally; the
// content itself is in the assistant message.
func (b *builder) chunk(e *session.Event) {
	d, err := session.DecodeChunkData(e.Data)
	if err != nil {
		return
	}
	cur := b.current()
	switch {
	case d.Chunk.Type == session.ChunkUsage:
		cur.Usage.add(d.Chunk.Usage)
	case d.Chunk.IsFinish():
		if r := d.Chunk.Reason; r != nil {
			b.finish(r, d.Attempt)
		}
	}
}

func (b *builder) finish(r *session.FinishReason, attempt int) {
	name := "model call"
	if attempt > 0 {
		name = fmt.Sprintf("model call, attempt %d", attempt)
	}
	switch r.Kind {
	case session.FinishError:
		msg := "failed"
		if r.Failure != nil {
			msg += ": " + strings.TrimPrefix(r.Failure.Code+": ", ": ") + r.Failure.Message
		}
		b.add("failure", name, "", msg)
	case session.FinishAborted:
		b.add("failure", name, "", "aborted")
	case session.FinishMaxTokens:
		b.add("failure", name, "", "hit the token limit")
	}
}

func (b *builder) message(d *session.AssistantMessageData) {
	cur := b.current()
	// Usage chunks are the per-call record; a log without them (dsh)
	// still has the message's usage.
	if !cur.Usage.Known {
		cur.Usage.add(d.Usage)
	}
	for _, p := range d.Message.Content {
		switch p.Type {
		case session.PartReasoning:
			b.add("thinking", "", "", p.Text)
		case session.PartText:
			b.add("assistant", "", "", p.Text)
		case session.PartToolCall:
			b.call(p.ID, p.Name, p.Arguments)
		}
	}
}

// call shows a tool call once, whether the log records it in the
// assistant message, as a tool/call event, or both.
func (b *builder) call(id, name, args string) {
	cur := b.current()
	if id != "" && cur.callsShown[id] {
		return
	}
	if cur.callsShown == nil {
		cur.callsShown = map[string]bool{}
	}
	cur.callsShown[id] = true
	it := b.add("call", name, id, args)
	if kids := b.children[id]; len(kids) > 0 {
		it.Child = kids[0]
		b.children[id] = kids[1:]
	}
}

func (b *builder) result(m *session.Message) {
	for _, p := range m.Content {
		if p.Type != session.PartToolResult {
			continue
		}
		var text []string
		for _, c := range p.Content {
			text = append(text, c.Text)
		}
		kind := "result"
		if p.IsError {
			kind = "error"
		}
		b.add(kind, "", p.ToolCallID, strings.Join(text, ""))
		b.attachments(p.Content)
	}
}

// attachments shows each image and file of parts as an item of its own:
// what it is, its size and digest.
func (b *builder) attachments(parts []session.Part) {
	for i := range parts {
		if p := &parts[i]; p.Type == session.PartImage || p.Type == session.PartFile {
			b.add(p.Type, "", "", llm.Describe(p.Attachment))
		}
	}
}

// Shown is the item's text as displayed: capped at maxText characters.
func (it *item) Shown() string {
	if len(it.Text) <= maxText {
		return it.Text
	}
	cut := maxText
	for cut > 0 && !utf8Start(it.Text[cut]) {
		cut--
	}
	return it.Text[:cut] + fmt.Sprintf("\n… (%d more bytes not shown)", len(it.Text)-cut)
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }
