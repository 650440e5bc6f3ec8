package conformance

import (
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/session"
)

// Fixes of the turn and step rules.
const (
	fixTurnNumbers = "number turns from 1 in a root or spawn child, and in a fork child continue after the last inherited turn (journal.LastTurn of the seed, plus one); turn/start, turn/end and every event inside carry the turn's number (journal.Journal.StartTurn does)"
	fixTurnShape   = "write each turn as turn/start {turn, trigger} (then a history/replace when the turn's request goes on from another conversation than the log's), the user/message(s) that start it, its steps (each a history/replace first when its request sends another conversation), then turn/end {turn, reason: {kind: completed|error|aborted|interrupted}} — also when the turn fails or is cancelled (journal.Journal.StartTurn, ReplaceHistory and EndTurn)"
	fixStepNumbers = "number a turn's steps 1, 2, … and write each as step/start {turn, step} … step/end {turn, step}, every event in between carrying the same turn and step (journal.Journal.StartStep and EndStep)"
)

// stepTypes are the event types that belong inside a step.
var stepTypes = map[string]bool{
	session.TypeRequestHeader: true, session.TypeAssistantChunk: true, session.TypeAssistantMessage: true,
	session.TypeToolCall: true, session.TypeToolResult: true, session.TypeStepEnd: true,
	session.TypeToolRecorded: true,
}

// turnCheck walks a log's own events turn by turn, step by step. Event
// types it does not know (a runtime's own) are allowed anywhere.
type turnCheck struct {
	r         *report
	l         *session.Log
	inherited int // the last turn of the seed
	next      int // the number the next turn must have
	// cut holds the calls of the running turn that stopped after some
	// chunks without a finish: a user's cancel when the turn then ends
	// aborted (they replay as a hang), a violation otherwise.
	cut []string
}

// endCut settles the cut calls of a turn that ended with kind ("" when the
// turn never ended).
func (c *turnCheck) endCut(kind string) {
	if kind != session.TurnAborted {
		for _, m := range c.cut {
			c.r.log(c.l, ruleOneFinish, fixFinish, "%s", m)
		}
	}
	c.cut = nil
}

func newTurnCheck(r *report, l *session.Log) *turnCheck {
	inherited := journal.LastTurn(l.Seed())
	return &turnCheck{r: r, l: l, inherited: inherited, next: inherited + 1}
}

// contractType reports whether the contract defines events of type typ.
func contractType(typ string) bool {
	return stepTypes[typ] || typ == session.TypeTurnStart || typ == session.TypeTurnEnd ||
		typ == session.TypeUserMessage || typ == session.TypeStepStart || typ == session.TypeHistoryReplace
}

func (c *turnCheck) run() {
	ev := c.l.Events
	i := len(c.l.Seed())
	for i < len(ev) {
		e := &ev[i]
		if e.Type == session.TypeTurnStart {
			i = c.turn(i)
			continue
		}
		if contractType(e.Type) {
			c.r.log(c.l, ruleTurnShape, fixTurnShape, "seq %d: %s outside any turn (after the last turn/end, or before the first turn/start)", e.Seq, e.Type)
		}
		i++
	}
}

// turn checks the turn whose turn/start is at index i and returns the
// index after it.
func (c *turnCheck) turn(i int) int {
	ev := c.l.Events
	var ts session.TurnStartData
	if err := ev[i].Decode(&ts); err != nil {
		c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn/start at seq %d: %v", ev[i].Seq, err)
	}
	if ts.Trigger == "" {
		c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn/start at seq %d has no trigger; say what started the turn (\"user\" for a prompt, \"subagent\" for a delegation)", ev[i].Seq)
	}
	c.number(ev[i].Seq, ts.Turn)
	turn := ts.Turn
	i++
	if i < len(ev) && ev[i].Type == session.TypeHistoryReplace {
		c.history(i, turn, session.TypeUserMessage) // the history the turn's messages go on from
		i++
	}
	if i >= len(ev) || ev[i].Type != session.TypeUserMessage {
		c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn %d: turn/start at seq %d is followed by %s, not by the user/message that starts the turn", turn, ev[i-1].Seq, typeAt(ev, i))
	}
	for i < len(ev) && ev[i].Type == session.TypeUserMessage {
		i++ // a turn may start with several messages
	}
	wantStep := 1
	for i < len(ev) {
		e := &ev[i]
		switch {
		case e.Type == session.TypeStepStart:
			i = c.step(i, turn, &wantStep)
		case e.Type == session.TypeTurnEnd:
			var d session.TurnEndData
			_ = e.Decode(&d)
			if d.Turn != turn {
				c.r.log(c.l, ruleTurnNumbering, fixTurnNumbers, "turn/end at seq %d says turn %d; it ends turn %d", e.Seq, d.Turn, turn)
			}
			switch d.Reason.Kind {
			case session.TurnCompleted, session.TurnError, session.TurnAborted, session.TurnInterrupted:
			default:
				c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn/end at seq %d has reason kind %q; want completed, error, aborted or interrupted", e.Seq, d.Reason.Kind)
			}
			c.endCut(d.Reason.Kind)
			return i + 1
		case e.Type == session.TypeTurnStart:
			c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn %d has no turn/end before the next turn/start at seq %d", turn, e.Seq)
			c.endCut("")
			return i
		case stepTypes[e.Type]:
			c.r.log(c.l, ruleStepNumbering, fixStepNumbers, "turn %d: %s at seq %d is outside a step (no open step/start)", turn, e.Type, e.Seq)
			i++
		case e.Type == session.TypeUserMessage:
			c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn %d: a user/message at seq %d after the turn's steps began; a turn's user messages come right after its turn/start (a request that adds messages later is a history/replace)", turn, e.Seq)
			i++
		case e.Type == session.TypeHistoryReplace:
			c.history(i, turn, session.TypeStepStart)
			i++
		default:
			i++
		}
	}
	c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn %d has no turn/end: the log ends at seq %d", turn, ev[len(ev)-1].Seq)
	c.endCut("")
	return i
}

// history checks the history/replace at index i of turn: its turn, and
// that next follows — the turn's first user/message right after its
// turn/start, else the step/start of the call whose request it describes.
func (c *turnCheck) history(i, turn int, next string) {
	ev := c.l.Events
	var d session.HistoryReplaceData
	if err := ev[i].Decode(&d); err != nil {
		c.r.log(c.l, ruleTurnShape, fixTurnShape, "history/replace at seq %d: %v", ev[i].Seq, err)
		return
	}
	if d.Turn != turn {
		c.r.log(c.l, ruleTurnNumbering, fixTurnNumbers, "history/replace at seq %d says turn %d inside turn %d", ev[i].Seq, d.Turn, turn)
	}
	if got := typeAt(ev, i+1); got != next {
		want := "the step/start of the call that sends it"
		if next == session.TypeUserMessage {
			want = "the user/message that starts the turn"
		}
		c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn %d: history/replace at seq %d is followed by %s, not by %s", turn, ev[i].Seq, got, want)
	}
}

// number checks a turn/start's number.
func (c *turnCheck) number(seq int64, turn int) {
	want := c.next
	c.next = turn + 1
	if turn == want {
		return
	}
	switch inherited := c.inherited; {
	case inherited > 0 && want == inherited+1 && turn <= inherited:
		c.r.log(c.l, ruleTurnNumbering, fixTurnNumbers, "the fork child's first own turn (turn/start at seq %d) is numbered %d; it must continue after the %d inherited turn(s): turn %d", seq, turn, inherited, want)
	default:
		c.r.log(c.l, ruleTurnNumbering, fixTurnNumbers, "turn/start at seq %d says turn %d; want %d (turns are numbered consecutively)", seq, turn, want)
	}
}

// step checks the step whose step/start is at index i and returns the
// index after its step/end.
func (c *turnCheck) step(i, turn int, want *int) int {
	ev := c.l.Events
	var sd session.StepData
	_ = ev[i].Decode(&sd)
	if sd.Turn != turn {
		c.r.log(c.l, ruleTurnNumbering, fixTurnNumbers, "step/start at seq %d says turn %d inside turn %d", ev[i].Seq, sd.Turn, turn)
	}
	if sd.Step != *want {
		c.r.log(c.l, ruleStepNumbering, fixStepNumbers, "turn %d: step/start at seq %d says step %d; want %d", turn, ev[i].Seq, sd.Step, *want)
	}
	*want = sd.Step + 1
	start, step := ev[i].Seq, sd.Step
	sc := &stepCheck{c: c, turn: turn, step: step}
	for j := i + 1; j < len(ev); j++ {
		e := &ev[j]
		switch e.Type {
		case session.TypeStepEnd:
			var d session.StepData
			_ = e.Decode(&d)
			if d.Turn != turn || d.Step != step {
				c.r.log(c.l, ruleStepNumbering, fixStepNumbers, "step/end at seq %d says turn %d step %d; it closes the step/start at seq %d (turn %d step %d)", e.Seq, d.Turn, d.Step, start, turn, step)
			}
			sc.end(e)
			return j + 1
		case session.TypeStepStart, session.TypeTurnStart, session.TypeTurnEnd:
			c.r.log(c.l, ruleStepNumbering, fixStepNumbers, "turn %d step %d (step/start at seq %d) has no step/end before the %s at seq %d", turn, step, start, e.Type, e.Seq)
			sc.end(nil)
			return j
		}
		if e.Type == session.TypeHistoryReplace || e.Type == session.TypeUserMessage {
			c.r.log(c.l, ruleTurnShape, fixTurnShape, "turn %d step %d: %s at seq %d inside the step; it comes before the step/start of the call whose request sends it", turn, step, e.Type, e.Seq)
		}
		if t, s, ok := session.TurnStep(e); ok && stepTypes[e.Type] {
			if t != turn {
				c.r.log(c.l, ruleTurnNumbering, fixTurnNumbers, "%s at seq %d says turn %d inside turn %d", e.Type, e.Seq, t, turn)
			} else if s != step {
				c.r.log(c.l, ruleStepNumbering, fixStepNumbers, "%s at seq %d says step %d inside step %d of turn %d", e.Type, e.Seq, s, step, turn)
			}
		}
		sc.add(j)
	}
	c.r.log(c.l, ruleStepNumbering, fixStepNumbers, "turn %d step %d (step/start at seq %d) has no step/end: the log ends", turn, step, start)
	sc.end(nil)
	return len(ev)
}

func typeAt(ev []session.Event, i int) string {
	if i >= len(ev) {
		return "the end of the log"
	}
	return ev[i].Type
}
