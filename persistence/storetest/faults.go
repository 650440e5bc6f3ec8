package storetest

import (
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Faulty is a Storage that can also fail the writes of the stores it
// opened and lose a stored log behind their backs: what a full disk and a
// user removing a session's file do. The checks of failed writes and lost
// logs need it; on a Storage without it they return ErrSkipped.
type Faulty interface {
	Storage

	// FailWrites makes every write of the stores opened on the storage
	// fail with an error from now on, until it is called with false. A
	// failed write may have stored all of its batch, a prefix, or nothing,
	// as the store's writes may.
	FailWrites(fail bool)

	// Lose removes everything stored of session id while a store is open
	// on the storage, without telling the store: a user deleting the
	// session's file, another program deleting its rows.
	Lose(id string) error
}

func faultChecks() []check {
	return []check{
		{"failed write: an Append after a failed one continues from what is stored, every acknowledged event kept", failedContinue},
		{"failed write: refuses to continue a session whose log is gone after a failed write, and never stores it anew", failedLost},
		{"lost log: refuses an Append to a session whose log was removed since the last one, acknowledging nothing, and a Create of its id says the log is gone", lostBetween},
		{"another writer: once Load finds events another store appended, refuses to append or load until reopened, writing nothing", otherWriter},
		{"another writer: once Load finds the log written anew by another store, as long but ending otherwise, refuses to append or load until reopened", rewritten},
	}
}

// faulty returns the check's storage as Faulty, or an error wrapping
// ErrSkipped when it is not.
func faulty(e *env) (Faulty, error) {
	f, ok := e.storage.(Faulty)
	if !ok {
		return nil, fmt.Errorf("%w: the storage (%T) is no storetest.Faulty", ErrSkipped, e.storage)
	}
	return f, nil
}

// failAppend stores a completed turn of session "root", then appends a
// second one while the storage fails writes, which must fail. It returns
// the storage and both turns.
func failAppend(e *env) (f Faulty, first, second []session.Event, err error) {
	if f, err = faulty(e); err != nil {
		return nil, nil, nil, err
	}
	first, second = CompletedTurn(0, 1, "say OK", "OK"), CompletedTurn(8, 2, "again", "OK again")
	if err := e.create(RootHeader("root"), nil, first); err != nil {
		return nil, nil, nil, err
	}
	f.FailWrites(true)
	err = e.store.Append(e.ctx, "root", second)
	f.FailWrites(false)
	if err == nil {
		return nil, nil, nil, fmt.Errorf("Append(%q, %s) while Faulty.FailWrites(true) = nil, wanted an error", "root", span(second))
	}
	return f, first, second, nil
}

// lose removes session "root"'s log behind the store's back.
func lose(f Faulty) error {
	if err := f.Lose("root"); err != nil {
		return fmt.Errorf("Faulty.Lose(%q) = %w, wanted nil (a bug of the Storage, not the store)", "root", err)
	}
	return nil
}

func failedContinue(e *env) error {
	_, first, second, err := failAppend(e)
	if err != nil {
		return err
	}
	l, err := e.load("root")
	if err != nil {
		return fmt.Errorf("after the failed Append: %w", err)
	}
	// The failed batch may be stored whole, in part or not at all.
	kept := len(l.Events) - len(first)
	if kept < 0 || kept > len(second) {
		return fmt.Errorf("after the failed Append: Load(%q) = %d events, wanted the %d acknowledged ones and at most the %d of the failed batch", "root", len(l.Events), len(first), len(second))
	}
	want := &session.Log{Header: l.Header, Events: slices.Concat(first, second[:kept])}
	if err := sameLog(fmt.Sprintf("after the failed Append: Load(%q)", "root"), l, want); err != nil {
		return err
	}
	third := CompletedTurn(16, 3, "resume", "resumed")
	for _, batch := range [][]session.Event{second[kept:], third} {
		if err := succeed(fmt.Sprintf("after the failed Append: Append(%q, %s), continuing after the loaded events", "root", span(batch)), e.store.Append(e.ctx, "root", batch)); err != nil {
			return err
		}
	}
	if err := e.reopen(); err != nil {
		return err
	}
	_, err = e.wantLog("after the failed Append, two more and a reopen", "root", &session.Log{Header: l.Header, Events: slices.Concat(first, second, third)})
	return err
}

func failedLost(e *env) error {
	f, first, second, err := failAppend(e)
	if err != nil {
		return err
	}
	if err := lose(f); err != nil {
		return err
	}
	if err := refusedLost(e, "after the failed Append and the log's loss", second); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	if err := e.wantList("after the loss and a reopen (the refused Append stored nothing)"); err != nil {
		return err
	}
	// Nothing of the refused Append is left to collide with a new log.
	if err := e.create(RootHeader("root"), nil, first, second); err != nil {
		return fmt.Errorf("after the loss and a reopen, a new session of the same id: %w", err)
	}
	_, err = e.wantLog("after the loss, a reopen and a new session of the same id", "root", &session.Log{Header: RootHeader("root"), Events: slices.Concat(first, second)})
	return err
}

func lostBetween(e *env) error {
	f, err := faulty(e)
	if err != nil {
		return err
	}
	first, second := CompletedTurn(0, 1, "say OK", "OK"), CompletedTurn(8, 2, "again", "OK again")
	if err := e.create(RootHeader("root"), nil, first, second); err != nil {
		return err
	}
	if err := lose(f); err != nil {
		return err
	}
	if err := refusedLost(e, "after the log's loss", CompletedTurn(16, 3, "p", "a")); err != nil {
		return err
	}
	call := fmt.Sprintf("after the log's loss: Create(%q)", "root")
	err = e.store.Create(e.ctx, RootHeader("root"), nil)
	if err := wantErr(call, err, persistence.ErrSessionExists); err != nil {
		return err
	}
	if err := mentions(call, err, "gone", "the error says the stored log is gone, and to delete the session or reopen, not only that the id exists"); err != nil {
		return err
	}
	// The way out the error gives: delete the session, record it again.
	if d, ok := e.store.(persistence.Deleter); ok {
		if err := succeed(fmt.Sprintf("after the log's loss: Delete(%q)", "root"), d.Delete(e.ctx, "root")); err != nil {
			return err
		}
		if err := e.create(RootHeader("root"), nil, first); err != nil {
			return fmt.Errorf("after the log's loss and a Delete, a new session of the same id: %w", err)
		}
	}
	if err := e.reopen(); err != nil {
		return err
	}
	if _, ok := e.store.(persistence.Deleter); !ok {
		return e.wantList("after the loss and a reopen (the refused Append stored nothing)")
	}
	_, err = e.wantLog("after the loss, a Delete, a new session of the same id and a reopen", "root", &session.Log{Header: RootHeader("root"), Events: first})
	return err
}

// refusedLost checks that session "root", whose log is gone, refuses to
// append batch and to load, saying why.
func refusedLost(e *env, when string, batch []session.Event) error {
	call := fmt.Sprintf("%s: Append(%q, %s)", when, "root", span(batch))
	err := e.store.Append(e.ctx, "root", batch)
	if err := wantErr(call, err, persistence.ErrUnknownSession); err != nil {
		return err
	}
	if err := mentions(call, err, "gone", "the error says the stored log is gone, not that the id was never created"); err != nil {
		return err
	}
	call = fmt.Sprintf("%s: Load(%q)", when, "root")
	_, err = e.store.Load(e.ctx, "root")
	if err := wantErr(call, err, persistence.ErrUnknownSession); err != nil {
		return err
	}
	return mentions(call, err, "gone", "the error says the stored log is gone, not that the id was never created")
}

// otherWriter appends to session "root" through a second store open on the
// same storage, as another process would, and checks that the first
// store, once its Load saw the other's events, neither appends at the seq
// it expected (a duplicate of the other's) nor takes the other's log as
// its own, until it is opened again.
func otherWriter(e *env) error {
	first, theirs := CompletedTurn(0, 1, "say OK", "OK"), CompletedTurn(8, 2, "theirs", "OK theirs")
	if err := e.create(RootHeader("root"), nil, first); err != nil {
		return err
	}
	other, err := e.open(e.storage)
	if err != nil {
		return fmt.Errorf("%w: a second store open on the storage at once (another process): %w", ErrSkipped, err)
	}
	if err := succeed(fmt.Sprintf("second store on the storage: Append(%q, %s)", "root", span(theirs)), other.Append(e.ctx, "root", theirs)); err != nil {
		return err
	}
	const when = "after a second store on the storage appended"
	mine := CompletedTurn(8, 2, "mine", "OK mine")
	for i, call := range []func() error{
		func() error { _, err := e.store.Load(e.ctx, "root"); return err },
		func() error { return e.store.Append(e.ctx, "root", mine) },
		func() error { _, err := e.store.Load(e.ctx, "root"); return err },
	} {
		what := fmt.Sprintf("%s: Load(%q)", when, "root")
		if i == 1 {
			what = fmt.Sprintf("%s and Load failed: Append(%q, %s)", when, "root", span(mine))
		}
		err := call()
		if err == nil {
			return fmt.Errorf("%s = nil, wanted an error saying another process wrote to the log", what)
		}
		if err := mentions(what, err, "another process", "the store is not the log's only writer"); err != nil {
			return err
		}
	}
	if err := succeed("Close() of the second store", other.Close()); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	third := CompletedTurn(16, 3, "resume", "resumed")
	if err := succeed(fmt.Sprintf("after a reopen: Append(%q, %s)", "root", span(third)), e.store.Append(e.ctx, "root", third)); err != nil {
		return err
	}
	_, err = e.wantLog("after the second store's Append, the refused ones, a reopen and one more", "root", &session.Log{Header: RootHeader("root"), Events: slices.Concat(first, theirs, third)})
	return err
}

// rewritten has a second store on the same storage delete a session and
// store it anew with as many events, as another process recording it
// again would, its last event another: written a millisecond later, or at
// the same time (a recording on a fixed clock) ending otherwise. It checks
// that the first store's Load does not take that log for its own (and
// append after it) because its length is the same.
func rewritten(e *env) error {
	later := func(theirs []session.Event) { theirs[len(theirs)-1].Time++ }
	otherwise := func(theirs []session.Event) {
		last := &theirs[len(theirs)-1]
		*last = Event(last.Seq, session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnInterrupted}})
	}
	if err := rewrittenAs(e, "root", "its last event a millisecond later", later); err != nil {
		return err
	}
	return rewrittenAs(e, "fixed-clock", "its last event at the same time, ending the turn otherwise", otherwise)
}

// rewrittenAs is rewritten of session id, the other store's last event
// made another by change (how says what it did).
func rewrittenAs(e *env, id, how string, change func(theirs []session.Event)) error {
	mine, theirs := CompletedTurn(0, 1, "say OK", "OK"), CompletedTurn(0, 1, "say OK again", "OK again")
	change(theirs)
	if err := e.create(RootHeader(id), nil, mine); err != nil {
		return err
	}
	other, err := e.open(e.storage)
	if err != nil {
		return fmt.Errorf("%w: a second store open on the storage at once (another process): %w", ErrSkipped, err)
	}
	d, ok := other.(persistence.Deleter)
	if !ok {
		return fmt.Errorf("%w: the store is no persistence.Deleter", ErrSkipped)
	}
	if err := succeed(fmt.Sprintf("second store on the storage: Delete(%q)", id), d.Delete(e.ctx, id)); err != nil {
		return err
	}
	if err := other.Create(e.ctx, RootHeader(id), nil); err != nil {
		return fmt.Errorf("second store on the storage, after its Delete: Create(%q) = %w, wanted nil", id, err)
	}
	if err := succeed(fmt.Sprintf("second store on the storage: Append(%q, %s), %s", id, span(theirs), how), other.Append(e.ctx, id, theirs)); err != nil {
		return err
	}
	if err := succeed("Close() of the second store", other.Close()); err != nil {
		return err
	}
	when := "after a second store on the storage stored the session anew, " + how
	for i, call := range []func() error{
		func() error { _, err := e.store.Load(e.ctx, id); return err },
		func() error { return e.store.Append(e.ctx, id, CompletedTurn(8, 2, "mine", "OK mine")) },
	} {
		what := fmt.Sprintf("%s: Load(%q)", when, id)
		if i == 1 {
			what = fmt.Sprintf("%s and Load failed: Append(%q, seqs 8-15)", when, id)
		}
		err := call()
		if err == nil {
			return fmt.Errorf("%s = nil, wanted an error saying another process wrote to the log", what)
		}
		if err := mentions(what, err, "another process", "the log is the other store's, as long as this store's"); err != nil {
			return err
		}
	}
	if err := e.reopen(); err != nil {
		return err
	}
	_, err = e.wantLog(when+", the refused calls and a reopen", id, &session.Log{Header: RootHeader(id), Events: theirs})
	return err
}
