package storetest

import (
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// refusedBatch is one batch that Append must refuse, the error it must
// match and what its text must say.
type refusedBatch struct {
	name  string
	batch func() []session.Event
	want  error
	says  string
}

var refusedBatches = []refusedBatch{
	{"a first seq past the next one", func() []session.Event { return CompletedTurn(9, 2, "p", "a") },
		persistence.ErrOutOfOrder, "starts at seq 9, but the session's next seq is 8"},
	{"a first seq already stored", func() []session.Event { return CompletedTurn(7, 2, "p", "a") },
		persistence.ErrOutOfOrder, "starts at seq 7"},
	{"a gap inside the batch", func() []session.Event {
		evs := CompletedTurn(8, 2, "p", "a")
		evs[3].Seq = 12
		return evs
	}, persistence.ErrOutOfOrder, "event 3 of the batch has seq 12, expected 11"},
	{"an event without a type", func() []session.Event {
		return []session.Event{{Seq: 8, Time: T0, Data: json.RawMessage(`{}`)}}
	}, persistence.ErrInvalid, "empty type"},
	{"data that is not JSON", func() []session.Event {
		return []session.Event{{Type: "x/custom", Seq: 8, Time: T0, Data: json.RawMessage(`{"a":`)}}
	}, persistence.ErrInvalid, "data is not JSON"},
	{"data that spans lines", func() []session.Event {
		return []session.Event{{Type: "x/custom", Seq: 8, Time: T0, Data: json.RawMessage("{\n}")}}
	}, persistence.ErrInvalid, "spans lines"},
	{"a packed row type", func() []session.Event {
		return []session.Event{{Type: session.TypeTextChunks, Seq: 8, Time: T0, Data: json.RawMessage(`{}`)}}
	}, persistence.ErrInvalid, "packed row"},
	{"an extra member the line already writes", func() []session.Event {
		return []session.Event{{Type: "x/custom", Seq: 8, Time: T0, Extra: map[string]json.RawMessage{"seq": json.RawMessage(`3`)}}}
	}, persistence.ErrInvalid, `"seq" in Extra`},
}

func orderingChecks() []check {
	var out []check
	for _, r := range refusedBatches {
		out = append(out, check{"append order and validation: refuses a batch that would not read back as written, and stores none of it: " + r.name,
			func(e *env) error { return refuseBatch(e, r) }})
	}
	return append(out,
		check{"append order and validation: starts a child's own events right after its seed", childSeqs},
		check{"append order and validation: refuses an append to a session it does not hold", appendUnknown},
	)
}

// storeRoot stores session "root" with one completed turn, seqs 0 to 7.
func storeRoot(e *env) error {
	return e.create(RootHeader("root"), nil, CompletedTurn(0, 1, "say OK", "OK"))
}

func refuseBatch(e *env, r refusedBatch) error {
	if err := storeRoot(e); err != nil {
		return err
	}
	before, err := e.load("root")
	if err != nil {
		return err
	}
	batch := r.batch()
	call := fmt.Sprintf("Append(%q, %s)", "root", span(batch))
	err = e.store.Append(e.ctx, "root", batch)
	if err := wantErr(call, err, r.want); err != nil {
		return err
	}
	if err := mentions(call, err, "root", "the error names the session"); err != nil {
		return err
	}
	if err := mentions(call, err, r.says, "the error says what is wrong"); err != nil {
		return err
	}
	if _, err := e.wantLog("after the refused Append (it stores none of the batch)", "root", before); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	if _, err := e.wantLog("after the refused Append and a reopen", "root", before); err != nil {
		return err
	}
	next := CompletedTurn(8, 2, "next", "fine")
	return succeed(fmt.Sprintf("Append(%q, %s) after the refused one (the next seq is still 8)", "root", span(next)),
		e.store.Append(e.ctx, "root", next))
}

func childSeqs(e *env) error {
	if err := storeRoot(e); err != nil {
		return err
	}
	h := ForkHeader("root", "call_1", 8)
	if err := e.create(h, CompletedTurn(0, 1, "say OK", "OK")); err != nil {
		return err
	}
	early := CompletedTurn(0, 2, "p", "a")
	if err := wantErr(fmt.Sprintf("Append(%q, %s) over the seed", h.ID, span(early)),
		e.store.Append(e.ctx, h.ID, early), persistence.ErrOutOfOrder); err != nil {
		return err
	}
	own := CompletedTurn(8, 2, "p", "a")
	if err := succeed(fmt.Sprintf("Append(%q, %s) right after the seed", h.ID, span(own)), e.store.Append(e.ctx, h.ID, own)); err != nil {
		return err
	}
	return e.wantEvents("after the child's own first batch", h.ID, 16)
}

func appendUnknown(e *env) error {
	if err := storeRoot(e); err != nil {
		return err
	}
	call := fmt.Sprintf("Append(%q, %s)", "nobody", span(CompletedTurn(0, 1, "p", "a")))
	err := e.store.Append(e.ctx, "nobody", CompletedTurn(0, 1, "p", "a"))
	if err := wantErr(call, err, persistence.ErrUnknownSession); err != nil {
		return err
	}
	if err := mentions(call, err, "nobody", "the error names the session"); err != nil {
		return err
	}
	_, err = e.store.Load(e.ctx, "nobody")
	return wantErr(fmt.Sprintf("Load(%q)", "nobody"), err, persistence.ErrUnknownSession)
}

// refusedCreate is one Create that the store must refuse and the error it
// must match.
type refusedCreate struct {
	name   string
	header func() session.Header
	seed   func() []session.Event
	want   error
}

func noSeed() []session.Event { return nil }

var refusedCreates = []refusedCreate{
	{"a session already stored", func() session.Header { return RootHeader("root") }, noSeed, persistence.ErrSessionExists},
	{"a seedLength past the seed", func() session.Header { return ForkHeader("root", "c", 9) },
		func() []session.Event { return CompletedTurn(0, 1, "p", "a") }, persistence.ErrBadSeed},
	{"a seed whose seqs are not dense from 0", func() session.Header { return ForkHeader("root", "c", 1) },
		func() []session.Event { return CompletedTurn(1, 1, "p", "a") }, persistence.ErrOutOfOrder},
	{"an empty id", func() session.Header { return RootHeader("") }, noSeed, persistence.ErrInvalid},
	{"an unknown mode", func() session.Header {
		h := SpawnHeader("root", "c")
		h.Mode = "clone"
		return h
	}, noSeed, persistence.ErrInvalid},
	{"a header extra that repeats a known member", func() session.Header {
		h := RootHeader("x")
		h.Extra = map[string]json.RawMessage{"createdAt": json.RawMessage(`1`)}
		return h
	}, noSeed, persistence.ErrInvalid},
}

func createChecks() []check {
	var out []check
	for _, r := range refusedCreates {
		out = append(out, check{"create validation: refuses a Create it could not honour, and keeps what it holds: " + r.name,
			func(e *env) error { return refuseCreate(e, r) }})
	}
	return append(out, check{"create validation: refuses a second Create of a session not yet written", createPendingTwice})
}

func refuseCreate(e *env, r refusedCreate) error {
	if err := storeRoot(e); err != nil {
		return err
	}
	before, err := e.list()
	if err != nil {
		return err
	}
	h, seed := r.header(), r.seed()
	if err := wantErr(fmt.Sprintf("Create(%s, seed %s)", headerDesc(h), span(seed)), e.store.Create(e.ctx, h, seed), r.want); err != nil {
		return err
	}
	if err := e.wantList("after the refused Create", before...); err != nil {
		return err
	}
	return e.wantEvents("after the refused Create", "root", 8)
}

func createPendingTwice(e *env) error {
	if err := storeRoot(e); err != nil {
		return err
	}
	h := RootHeader("pending")
	if err := e.create(h, nil); err != nil {
		return err
	}
	return wantErr(fmt.Sprintf("a second Create(%q) before any Append", h.ID), e.store.Create(e.ctx, h, nil), persistence.ErrSessionExists)
}
