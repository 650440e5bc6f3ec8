package session

// decodeCanonical fills v from data when v points to a zero value of a
// payload type the runtime writes and data has exactly the layout
// MarshalData writes for it, and reports whether it did. It then gives
// what encoding/json gives — every member present is set, strings are
// decoded alike — without encoding/json's validation pass and reflection;
// anything else (a target already holding values, members in another
// order, spaces, unknown or repeated members, numbers that are not plain
// integers) is left to encoding/json. The tests compare the two.
func decodeCanonical(data []byte, v any) bool {
	p := &cursor{b: data}
	switch x := v.(type) {
	case *TurnStartData:
		return fill(p, x, *x == TurnStartData{}, (*cursor).turnStart)
	case *StepData:
		return fill(p, x, *x == StepData{}, (*cursor).step)
	case *TurnEndData:
		return fill(p, x, *x == TurnEndData{}, (*cursor).turnEnd)
	case *ToolCallData:
		return fill(p, x, *x == ToolCallData{}, (*cursor).toolCall)
	case *Message:
		return fill(p, x, zeroMessage(x), func(p *cursor, m *Message) bool { return p.message(m, 0) })
	case *ToolResultData:
		return fill(p, x, x.Turn == 0 && x.Step == 0 && zeroMessage(&x.Message), (*cursor).toolResult)
	case *AssistantMessageData:
		return fill(p, x, x.Turn == 0 && x.Step == 0 && zeroMessage(&x.Message) && x.Usage == nil, (*cursor).assistantMessage)
	}
	return false
}

// fill reads the whole of p's text with read into a new T and stores it in
// dst, if dst was zero (empty).
func fill[T any](p *cursor, dst *T, empty bool, read func(*cursor, *T) bool) bool {
	var d T
	if !empty || !read(p, &d) || p.i != len(p.b) {
		return false
	}
	*dst = d
	return true
}

func zeroMessage(m *Message) bool { return m.Role == "" && m.Content == nil && m.ID == "" }

// turnStep reads `{"turn":N,"step":N` (and nothing after).
func (p *cursor) turnStep(turn, step *int) bool {
	return p.lit(`{"turn":`) && p.num(turn) && p.lit(`,"step":`) && p.num(step)
}

func (p *cursor) step(d *StepData) bool { return p.turnStep(&d.Turn, &d.Step) && p.lit(`}`) }

func (p *cursor) turnStart(d *TurnStartData) bool {
	return p.lit(`{"turn":`) && p.num(&d.Turn) && (!p.lit(`,"trigger":`) || p.str(&d.Trigger)) && p.lit(`}`)
}

func (p *cursor) turnEnd(d *TurnEndData) bool {
	return p.lit(`{"turn":`) && p.num(&d.Turn) && p.lit(`,"reason":{"kind":`) && p.str(&d.Reason.Kind) &&
		(!p.lit(`,"message":`) || p.str(&d.Reason.Message)) && p.lit(`}}`)
}

func (p *cursor) toolCall(d *ToolCallData) bool {
	return p.turnStep(&d.Turn, &d.Step) &&
		p.lit(`,"callId":`) && p.str(&d.CallID) &&
		p.lit(`,"name":`) && p.str(&d.Name) &&
		p.lit(`,"arguments":`) && p.str(&d.Arguments) && p.lit(`}`)
}

func (p *cursor) toolResult(d *ToolResultData) bool {
	return p.turnStep(&d.Turn, &d.Step) && p.lit(`,"message":`) && p.message(&d.Message, 0) && p.lit(`}`)
}

func (p *cursor) assistantMessage(d *AssistantMessageData) bool {
	if !p.turnStep(&d.Turn, &d.Step) || !p.lit(`,"message":`) || !p.message(&d.Message, 0) {
		return false
	}
	if p.lit(`,"usage":`) {
		d.Usage = &Usage{}
		if !p.usage(d.Usage) {
			return false
		}
	}
	return p.lit(`}`)
}

func (p *cursor) usage(u *Usage) bool {
	return p.lit(`{"inputTokens":`) && p.num(&u.InputTokens) && p.lit(`,"outputTokens":`) && p.num(&u.OutputTokens) &&
		p.optNum(`,"cacheReadTokens":`, &u.CacheReadTokens) && p.optNum(`,"reasoningTokens":`, &u.ReasoningTokens) && p.lit(`}`)
}

// optNum reads the integer member key, if the text continues with it, into
// a new int that n points to.
func (p *cursor) optNum(key string, n **int) bool {
	if !p.lit(key) {
		return true
	}
	v := new(int)
	*n = v
	return p.num(v)
}

// messageWords interns the roles and part types of messages: decoding a
// message then allocates for its text, not for the words every one names.
var messageWords = map[string]string{RoleSystem: RoleSystem, RoleUser: RoleUser, RoleAssistant: RoleAssistant,
	RoleTool: RoleTool, PartText: PartText, PartReasoning: PartReasoning, PartToolCall: PartToolCall, PartToolResult: PartToolResult}

// maxPartDepth bounds tool results nested in tool results; deeper content
// is left to encoding/json.
const maxPartDepth = 16

func (p *cursor) message(m *Message, depth int) bool {
	if !p.lit(`{"role":`) || !p.text(&m.Role, messageWords) || !p.lit(`,"content":`) {
		return false
	}
	if !p.lit(`null`) && !p.parts(&m.Content, depth) {
		return false
	}
	return (!p.lit(`,"id":`) || p.str(&m.ID)) && p.lit(`}`)
}

// parts reads an array of parts; [] is an empty, non-nil slice, as
// encoding/json makes it.
func (p *cursor) parts(out *[]Part, depth int) bool {
	if depth > maxPartDepth || !p.lit(`[`) {
		return false
	}
	parts := []Part{}
	for i := 0; !p.lit(`]`); i++ {
		if i > 0 && !p.lit(`,`) {
			return false
		}
		var part Part
		if !p.part(&part, depth) {
			return false
		}
		parts = append(parts, part)
	}
	*out = parts
	return true
}

// part reads a part in one of the layouts Part.MarshalJSON writes. Which
// members are present, not the type, decides the layout, as it decides the
// fields encoding/json sets.
func (p *cursor) part(d *Part, depth int) bool {
	if !p.lit(`{"type":`) || !p.text(&d.Type, messageWords) {
		return false
	}
	switch {
	case p.lit(`,"text":`):
		return p.str(&d.Text) && p.lit(`}`)
	case p.lit(`,"id":`):
		return p.str(&d.ID) && p.lit(`,"name":`) && p.str(&d.Name) &&
			p.lit(`,"arguments":`) && p.str(&d.Arguments) && p.lit(`}`)
	case p.lit(`,"toolCallId":`):
		if !p.str(&d.ToolCallID) || (p.lit(`,"name":`) && !p.str(&d.Name)) ||
			!p.lit(`,"content":`) || !p.parts(&d.Content, depth+1) || !p.lit(`,"isError":`) {
			return false
		}
		switch {
		case p.lit(`true`):
			d.IsError = true
		case !p.lit(`false`):
			return false
		}
		return p.lit(`}`)
	}
	return false
}
