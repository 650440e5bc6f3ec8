package storetest

import (
	"fmt"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// deleteChecks hold a store that is a persistence.Deleter to its contract;
// for a store that is not they return ErrSkipped.
func deleteChecks() []check {
	return []check{
		{"delete: removes the named sessions whole and keeps the others, also after a reopen", deleteWhole},
		{"delete: deletes nothing when an id is unknown", deleteUnknown},
		{"delete: deletes a session created but never appended to, and lets a deleted id be created again", deletePending},
		{"delete: deletes sessions stored before the store was opened", deleteStored},
	}
}

// deleter returns the check's store as a Deleter, or an error wrapping
// ErrSkipped when it is none.
func deleter(e *env) (persistence.Deleter, error) {
	d, ok := e.store.(persistence.Deleter)
	if !ok {
		return nil, fmt.Errorf("%w: the store (%T) is no persistence.Deleter", ErrSkipped, e.store)
	}
	return d, nil
}

func deleteWhole(e *env) error {
	d, err := deleter(e)
	if err != nil {
		return err
	}
	parent, err := e.parentLog()
	if err != nil {
		return err
	}
	fork := ForkHeader("root", "call_1", 16)
	if err := e.create(fork, parent.Events, CompletedTurn(16, 3, "p", "a")); err != nil {
		return err
	}
	if err := e.create(RootHeader("other"), nil, CompletedTurn(0, 1, "p", "a")); err != nil {
		return err
	}
	if err := succeed(fmt.Sprintf("Delete(%q, %q)", "root", fork.ID), d.Delete(e.ctx, "root", fork.ID)); err != nil {
		return err
	}
	if err := e.wantList("after the Delete", "other"); err != nil {
		return err
	}
	_, err = e.store.Load(e.ctx, "root")
	if err := wantErr(`after the Delete: Load("root")`, err, persistence.ErrUnknownSession); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	if err := e.wantList("after the Delete and a reopen", "other"); err != nil {
		return err
	}
	return e.wantEvents("after the Delete and a reopen", "other", 8)
}

func deleteUnknown(e *env) error {
	d, err := deleter(e)
	if err != nil {
		return err
	}
	if err := e.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a")); err != nil {
		return err
	}
	if err := wantErr(fmt.Sprintf("Delete(%q, %q)", "root", "nope"), d.Delete(e.ctx, "root", "nope"), persistence.ErrUnknownSession); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	if err := e.wantList("after the refused Delete and a reopen (it deletes nothing)", "root"); err != nil {
		return err
	}
	return e.wantEvents("after the refused Delete and a reopen (it deletes nothing)", "root", 8)
}

func deletePending(e *env) error {
	d, err := deleter(e)
	if err != nil {
		return err
	}
	if err := e.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a")); err != nil {
		return err
	}
	if err := e.create(RootHeader("lazy"), nil); err != nil {
		return err
	}
	if err := succeed(fmt.Sprintf("Delete(%q, %q), lazy never appended to", "lazy", "root"), d.Delete(e.ctx, "lazy", "root")); err != nil {
		return err
	}
	if err := e.wantList("after the Delete"); err != nil {
		return err
	}
	next := CompletedTurn(8, 2, "p", "a")
	if err := wantErr(fmt.Sprintf("after the Delete: Append(%q, %s)", "root", span(next)), e.store.Append(e.ctx, "root", next), persistence.ErrUnknownSession); err != nil {
		return err
	}
	again := CompletedTurn(0, 1, "again", "a")
	if err := e.create(RootHeader("root"), nil, again); err != nil {
		return fmt.Errorf("after the Delete (a deleted id may be created again): %w", err)
	}
	if err := e.reopen(); err != nil {
		return err
	}
	_, err = e.wantLog("after the Delete, a new Create and a reopen", "root", &session.Log{Header: RootHeader("root"), Events: again})
	return err
}

func deleteStored(e *env) error {
	if _, err := deleter(e); err != nil {
		return err
	}
	if err := e.create(RootHeader("root"), nil, CompletedTurn(0, 1, "p", "a")); err != nil {
		return err
	}
	if err := e.create(RootHeader("keep"), nil, CompletedTurn(0, 1, "p", "a")); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	d, ok := e.store.(persistence.Deleter)
	if !ok {
		return fmt.Errorf("after a reopen the store (%T) is no persistence.Deleter, wanted one as before", e.store)
	}
	if err := succeed(`after a reopen: Delete("root")`, d.Delete(e.ctx, "root")); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	return e.wantList("after the Delete and a reopen", "keep")
}
