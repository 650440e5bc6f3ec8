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
	p := cursor{b: data}
	switch x := v.(type) {
	case *TurnStartData:
		var d TurnStartData
		if *x != d || !p.turnStart(&d) || p.i != len(data) {
			return false
		}
		*x = d
	case *StepData:
		var d StepData
		if *x != d || !p.turnStep(&d.Turn, &d.Step) || !p.lit(`}`) || p.i != len(data) {
			return false
		}
		*x = d
	case *TurnEndData:
		var d TurnEndData
		if *x != d || !p.turnEnd(&d) || p.i != len(data) {
			return false
		}
		*x = d
	case *ToolCallData:
		var d ToolCallData
		if *x != d || !p.toolCall(&d) || p.i != len(data) {
			return false
		}
		*x = d
	case *Message:
		var d Message
		if !zeroMessage(x) || !p.message(&d, 0) || p.i != len(data) {
			return false
		}
		*x = d
	case *ToolResultData:
		var d ToolResultData
		if x.Turn != 0 || x.Step != 0 || !zeroMessage(&x.Message) ||
			!p.turnStep(&d.Turn, &d.Step) || !p.lit(`,"message":`) || !p.message(&d.Message, 0) || !p.lit(`}`) || p.i != len(data) {
			return false
		}
		*x = d
	case *AssistantMessageData:
		var d AssistantMessageData
		if x.Turn != 0 || x.Step != 0 || !zeroMessage(&x.Message) || x.Usage != nil || !p.assistantMessage(&d) || p.i != len(data) {
			return false
		}
		*x = d
	default:
		return false
	}
	return true
}

func zeroMessage(m *Message) bool { return m.Role == "" && m.Content == nil && m.ID == "" }

// turnStep reads `{"turn":N,"step":N` (and nothing after).
func (p *cursor) turnStep(turn, step *int) bool {
	var ok bool
	if !p.lit(`{"turn":`) {
		return false
	}
	if *turn, ok = p.int(); !ok || !p.lit(`,"step":`) {
		return false
	}
	*step, ok = p.int()
	return ok
}

func (p *cursor) turnStart(d *TurnStartData) bool {
	var ok bool
	if !p.lit(`{"turn":`) {
		return false
	}
	if d.Turn, ok = p.int(); !ok {
		return false
	}
	return (!p.lit(`,"trigger":`) || p.str(&d.Trigger)) && p.lit(`}`)
}

func (p *cursor) turnEnd(d *TurnEndData) bool {
	var ok bool
	if !p.lit(`{"turn":`) {
		return false
	}
	if d.Turn, ok = p.int(); !ok {
		return false
	}
	return p.lit(`,"reason":{"kind":`) && p.str(&d.Reason.Kind) &&
		(!p.lit(`,"message":`) || p.str(&d.Reason.Message)) && p.lit(`}}`)
}

func (p *cursor) toolCall(d *ToolCallData) bool {
	return p.turnStep(&d.Turn, &d.Step) &&
		p.lit(`,"callId":`) && p.str(&d.CallID) &&
		p.lit(`,"name":`) && p.str(&d.Name) &&
		p.lit(`,"arguments":`) && p.str(&d.Arguments) && p.lit(`}`)
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
	var ok bool
	if !p.lit(`{"inputTokens":`) {
		return false
	}
	if u.InputTokens, ok = p.int(); !ok || !p.lit(`,"outputTokens":`) {
		return false
	}
	if u.OutputTokens, ok = p.int(); !ok {
		return false
	}
	for _, m := range []struct {
		key string
		dst **int
	}{{`,"cacheReadTokens":`, &u.CacheReadTokens}, {`,"reasoningTokens":`, &u.ReasoningTokens}} {
		if p.lit(m.key) {
			n, ok := p.int()
			if !ok {
				return false
			}
			*m.dst = &n
		}
	}
	return p.lit(`}`)
}

// maxPartDepth bounds tool results nested in tool results; deeper content
// is left to encoding/json.
const maxPartDepth = 16

func (p *cursor) message(m *Message, depth int) bool {
	if !p.lit(`{"role":`) || !p.str(&m.Role) || !p.lit(`,"content":`) {
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
	if !p.lit(`{"type":`) || !p.str(&d.Type) {
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
