package storetest

import (
	"fmt"
	"maps"
	"reflect"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

func crashChecks() []check {
	return []check{
		{"crash repair: loads what is durable and closes the interrupted turn, without writing", crashLoad},
		{"crash repair: writes the closers with the next Append and continues after them", crashAppend},
		{"crash repair: refuses an Append that starts where the durable events end, before the closers", crashAppendEarly},
	}
}

// crashed is what a check of crash repair starts from: the process stored
// a completed turn and the start of a turn that runs two tools (started),
// then died while appending the rest of that turn (finished). durable
// counts the events stored before the crash.
type crashed struct {
	started, finished []session.Event
	durable           int
}

// crash brings e's storage to that state and opens a store on it.
func crash(e *env) (crashed, error) {
	var c crashed
	if err := e.create(RootHeader("root"), nil, CompletedTurn(0, 1, "say OK", "OK")); err != nil {
		return c, err
	}
	c.started, c.finished = ToolTurn(8, 2)
	if err := succeed(fmt.Sprintf("Append(%q, %s)", "root", span(c.started)), e.store.Append(e.ctx, "root", c.started)); err != nil {
		return c, err
	}
	c.durable = 8 + len(c.started)
	if err := succeed("Close() before the crash", e.store.Close()); err != nil {
		return c, err
	}
	if err := e.storage.Crash("root", c.finished); err != nil {
		return c, fmt.Errorf("Storage.Crash(%q, %s) = %w, wanted nil (a bug of the Storage, not the store)", "root", span(c.finished), err)
	}
	var err error
	e.store, err = e.open(e.storage)
	return c, err
}

func crashLoad(e *env) error {
	c, err := crash(e)
	if err != nil {
		return err
	}
	l, err := e.load("root")
	if err != nil {
		return fmt.Errorf("after the crash: %w", err)
	}
	if err := succeed(`after the crash: session.Validate of Load("root")`, session.Validate(&l.Header, l.Events)); err != nil {
		return err
	}
	if len(l.Events) < c.durable {
		return fmt.Errorf("after the crash: Load(%q) = %d events, wanted the %d acknowledged ones and more", "root", len(l.Events), c.durable)
	}
	if err := sameLog("after the crash: the first events of Load(\"root\") (every acknowledged event is there)",
		&session.Log{Header: l.Header, Events: l.Events[:c.durable]},
		&session.Log{Header: l.Header, Events: append(CompletedTurn(0, 1, "say OK", "OK"), c.started...)}); err != nil {
		return err
	}
	survived := survivedPrefix(l.Events[c.durable:], c.finished)
	kept := l.Events[:c.durable+survived]
	closers := l.Events[c.durable+survived:]
	if err := sameLines(fmt.Sprintf("after the crash: the events after the %d that survived it (they are the closers)", survived),
		joinLines(closers), joinLines(persistence.Closers(kept))); err != nil {
		return err
	}
	if err := closedTurn(l.Events, 2); err != nil {
		return fmt.Errorf("after the crash: Load(%q): %w", "root", err)
	}
	if _, err := e.wantLog("a second Load after the crash (it repairs the same way)", "root", l); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	_, err = e.wantLog("after the crash, two Loads and a reopen (Load writes nothing)", "root", l)
	return err
}

func crashAppend(e *env) error {
	if _, err := crash(e); err != nil {
		return err
	}
	l, err := e.load("root")
	if err != nil {
		return fmt.Errorf("after the crash: %w", err)
	}
	next := CompletedTurn(int64(len(l.Events)), 3, "resume", "resumed")
	if err := succeed(fmt.Sprintf("after the crash: Append(%q, %s) after the loaded events", "root", span(next)), e.store.Append(e.ctx, "root", next)); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	after, err := e.load("root")
	if err != nil {
		return fmt.Errorf("after the Append and a reopen: %w", err)
	}
	if after.Torn != nil {
		return fmt.Errorf("after the Append and a reopen: Load(%q) reports a torn line %+v, wanted none (the torn bytes are gone)", "root", *after.Torn)
	}
	return sameLog(fmt.Sprintf("after the Append and a reopen: Load(%q)", "root"), after,
		&session.Log{Header: l.Header, Events: append(l.Events, next...)})
}

func crashAppendEarly(e *env) error {
	c, err := crash(e)
	if err != nil {
		return err
	}
	l, err := e.load("root")
	if err != nil {
		return fmt.Errorf("after the crash: %w", err)
	}
	if len(l.Events) < c.durable {
		return fmt.Errorf("after the crash: Load(%q) = %d events, wanted the %d acknowledged ones and more", "root", len(l.Events), c.durable)
	}
	closers := len(l.Events) - c.durable - survivedPrefix(l.Events[c.durable:], c.finished)
	batch := CompletedTurn(int64(len(l.Events)-closers), 3, "p", "a")
	call := fmt.Sprintf("after the crash: Append(%q, %s), before the %d closers Load added", "root", span(batch), closers)
	err = e.store.Append(e.ctx, "root", batch)
	if err := wantErr(call, err, persistence.ErrOutOfOrder); err != nil {
		return err
	}
	return mentions(call, err, "interrupted turn", "the error says why the seq is not the next one")
}

// survivedPrefix returns how many events at the start of got equal the
// first events of the batch that was being appended.
func survivedPrefix(got, batch []session.Event) int {
	n := 0
	for n < len(got) && n < len(batch) && line(got[n]) == line(batch[n]) {
		n++
	}
	return n
}

func line(e session.Event) string { return string(session.AppendEvent(nil, &e)) }

// joinLines is events as JSON Lines, without a header.
func joinLines(events []session.Event) string {
	var out []byte
	for i := range events {
		out = session.AppendEvent(out, &events[i])
	}
	return string(out)
}

// closedTurn checks that events end with turn turn closed as interrupted
// and that every tool call of that turn has exactly one result.
func closedTurn(events []session.Event, turn int) error {
	if n := session.CompletedPrefix(events); n != len(events) || n == 0 {
		return fmt.Errorf("the completed prefix is %d of %d events, wanted all of them (the log ends with a turn/end)", n, len(events))
	}
	var end session.TurnEndData
	if err := events[len(events)-1].Decode(&end); err != nil {
		return fmt.Errorf("decoding the last event, a turn/end: %w", err)
	}
	if end.Turn != turn || end.Reason.Kind != session.TurnInterrupted {
		return fmt.Errorf("the last event ends turn %d with kind %q, wanted turn %d with kind %q", end.Turn, end.Reason.Kind, turn, session.TurnInterrupted)
	}
	results := map[string]int{}
	for _, e := range events {
		var d session.ToolResultData
		if e.Type != session.TypeToolResult || e.Decode(&d) != nil || d.Turn != turn {
			continue
		}
		for _, p := range d.Message.Content {
			results[p.ToolCallID]++
			want := []session.Part{session.TextPart(persistence.InterruptedResult)}
			if p.IsError && !reflect.DeepEqual(p.Content, want) {
				return fmt.Errorf("the error result of %s holds %+v, wanted %+v", p.ToolCallID, p.Content, want)
			}
		}
	}
	if want := map[string]int{"call_a": 1, "call_b": 1}; !maps.Equal(results, want) {
		return fmt.Errorf("tool results per call of turn %d = %v, wanted %v (every call answered once)", turn, results, want)
	}
	return nil
}
