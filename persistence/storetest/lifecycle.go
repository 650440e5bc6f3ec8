package storetest

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

func lifecycleChecks() []check {
	return []check{
		{"lifecycle: materialises a session at its first Append, not at Create", lazyCreate},
		{"lifecycle: materialises a session on an empty Append", emptyAppend},
		{"lifecycle: is safe to close twice, and every call after Close fails with ErrClosed", closeTwice},
		{"lifecycle: stops a call whose context is done before it writes", doneContext},
	}
}

func listOrderChecks() []check {
	return []check{
		{"list order: lists sessions by createdAt, ties in creation order, before and after a reopen", listOrder},
	}
}

func lazyCreate(e *env) error {
	parent, err := e.parentLog()
	if err != nil {
		return err
	}
	h := ForkHeader("root", "call_1", 16)
	if err := e.create(h, parent.Events); err != nil {
		return err
	}
	if _, err := e.wantLog("a created session loads from memory", h.ID, &session.Log{Header: h, Events: parent.Events}); err != nil {
		return err
	}
	ids, err := e.list()
	if err != nil {
		return err
	}
	if !slices.Contains(ids, h.ID) {
		return fmt.Errorf("List() = %q after Create(%q), wanted it among them (a created session is listed)", ids, h.ID)
	}
	if err := e.reopen(); err != nil {
		return err
	}
	if err := e.wantList("after a reopen (a session never appended to was never written)", "root"); err != nil {
		return err
	}
	_, err = e.store.Load(e.ctx, h.ID)
	if err := wantErr(fmt.Sprintf("after a reopen: Load(%q) of a session never appended to", h.ID), err, persistence.ErrUnknownSession); err != nil {
		return err
	}
	return succeed(fmt.Sprintf("after a reopen: Create(%s) again (it was never written, so it can be created again)", headerDesc(h)),
		e.store.Create(e.ctx, h, parent.Events))
}

func emptyAppend(e *env) error {
	parent, err := e.parentLog()
	if err != nil {
		return err
	}
	h := ForkHeader("root", "call_1", 16)
	if err := e.create(h, parent.Events); err != nil {
		return err
	}
	if err := succeed(fmt.Sprintf("Append(%q, nil)", h.ID), e.store.Append(e.ctx, h.ID, nil)); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	_, err = e.wantLog("after an empty Append and a reopen", h.ID, &session.Log{Header: h, Events: parent.Events})
	return err
}

func closeTwice(e *env) error {
	if err := e.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a")); err != nil {
		return err
	}
	if err := succeed("Close()", e.store.Close()); err != nil {
		return err
	}
	if err := succeed("a second Close()", e.store.Close()); err != nil {
		return err
	}
	if err := wantErr(`after Close: Create("other")`, e.store.Create(e.ctx, RootHeader("other"), nil), persistence.ErrClosed); err != nil {
		return err
	}
	next := CompletedTurn(8, 2, "p", "a")
	if err := wantErr(fmt.Sprintf("after Close: Append(%q, %s)", "root", span(next)), e.store.Append(e.ctx, "root", next), persistence.ErrClosed); err != nil {
		return err
	}
	_, err := e.store.Load(e.ctx, "root")
	if err := wantErr(`after Close: Load("root")`, err, persistence.ErrClosed); err != nil {
		return err
	}
	_, err = e.store.List(e.ctx)
	if err := wantErr("after Close: List()", err, persistence.ErrClosed); err != nil {
		return err
	}
	if e.store, err = e.open(e.storage); err != nil {
		return err
	}
	return e.wantEvents("after a reopen (what was appended before Close is there)", "root", 8)
}

func doneContext(e *env) error {
	if err := e.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a")); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	next := CompletedTurn(8, 2, "p", "a")
	if err := wantErr(fmt.Sprintf("Append(%q, %s) with a canceled context", "root", span(next)),
		e.store.Append(ctx, "root", next), context.Canceled); err != nil {
		return err
	}
	if err := wantErr(`Create("other") with a canceled context`, e.store.Create(ctx, RootHeader("other"), nil), context.Canceled); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	if err := e.wantEvents("after a reopen", "root", 8); err != nil {
		return err
	}
	return e.wantList("after a reopen", "root")
}

func listOrder(e *env) error {
	late, tieA, tieB := RootHeader("late"), RootHeader("tie-a"), RootHeader("tie-b")
	late.CreatedAt = T0 + 50
	for _, h := range []session.Header{late, tieA, tieB} {
		if err := e.create(h, nil); err != nil {
			return err
		}
	}
	if err := e.wantList("after creating late (createdAt T0+50), tie-a and tie-b (both T0)", "tie-a", "tie-b", "late"); err != nil {
		return err
	}
	early := RootHeader("early")
	early.CreatedAt = T0 - 50
	if err := e.create(early, nil); err != nil {
		return err
	}
	for _, id := range []string{"late", "early", "tie-a", "tie-b"} { // not the creation order; tie-a stored before tie-b
		batch := CompletedTurn(0, 1, "p", "a")
		if err := succeed(fmt.Sprintf("Append(%q, %s)", id, span(batch)), e.store.Append(e.ctx, id, batch)); err != nil {
			return err
		}
	}
	if err := e.reopen(); err != nil {
		return err
	}
	return e.wantList("after appending to late, early, tie-a and tie-b (early is createdAt T0-50) and a reopen", "early", "tie-a", "tie-b", "late")
}
