package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

func roundTripChecks() []check {
	return []check{
		{"round trip: keeps a fork child's lineage and seed boundary across a reopen", forkRoundTrip},
		{"round trip: keeps a spawn child without a seedLength", spawnRoundTrip},
		{"round trip: keeps unknown event types, unknown members and header extras verbatim", oddRoundTrip},
	}
}

func resumeChecks() []check {
	return []check{
		{"resume: resumes a session with its stored seedLength and createdAt", resumeStored},
		{"resume: stores a resumed log's seedLength as given, never the seed's length", resumeIntoNew},
	}
}

// equal checks one value the store returned.
func equal[T comparable](what string, got, want T) error {
	if got != want {
		return fmt.Errorf("%s = %#v, wanted %#v", what, got, want)
	}
	return nil
}

// hasJSON checks that m holds key with the JSON value want.
func hasJSON(what string, m map[string]json.RawMessage, key, want string) error {
	got, ok := m[key]
	switch {
	case !ok:
		return fmt.Errorf("%s has no member %q, wanted %s", what, key, want)
	case !jsonEqual(got, []byte(want)):
		return fmt.Errorf("%s member %q = %s, wanted the JSON value %s", what, key, got, want)
	}
	return nil
}

func forkRoundTrip(e *env) error {
	parent, err := e.parentLog()
	if err != nil {
		return err
	}
	seedLength := session.CompletedPrefix(parent.Events)
	h := ForkHeader("root", "call_7", seedLength)
	own := CompletedTurn(int64(seedLength), 3, "forked task", "MARMALADE")
	if err := e.create(h, parent.Events, own); err != nil {
		return err
	}
	want := &session.Log{Header: h, Events: slices.Concat(parent.Events, own)}
	if _, err := e.wantLog("before the reopen", h.ID, want); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	l, err := e.wantLog("after the reopen", h.ID, want)
	if err != nil {
		return err
	}
	got := l.Header
	if err := errors.Join(
		equal("after the reopen: header seedLength", got.SeedLength, 16),
		equal("after the reopen: header createdAt", got.CreatedAt, T0+1000),
		equal("after the reopen: header parentSession", got.ParentSession, "root"),
		equal("after the reopen: header parentCallId", got.ParentCallID, "call_7"),
		equal("after the reopen: header mode", got.Mode, session.ModeFork),
		equal("after the reopen: header origin", got.Origin, session.OriginSubagent),
		equal("after the reopen: header delegationDepth", got.DelegationDepth, 1),
	); err != nil {
		return err
	}
	if err := sameLog("after the reopen: the events after seedLength (Log.Own)",
		&session.Log{Header: h, Events: l.Own()}, &session.Log{Header: h, Events: own}); err != nil {
		return err
	}
	listed, err := e.header(h.ID)
	if err != nil {
		return err
	}
	return sameHeader(fmt.Sprintf("List() reports a header for %q other than Load's (List reports the stored header)", h.ID), listed, l.Header)
}

func spawnRoundTrip(e *env) error {
	if _, err := e.parentLog(); err != nil {
		return err
	}
	h := SpawnHeader("root", "call_9")
	own := CompletedTurn(0, 1, "spawned task", "SAFFRON")
	if err := e.create(h, nil, own); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	l, err := e.wantLog("after a reopen", h.ID, &session.Log{Header: h, Events: own})
	if err != nil {
		return err
	}
	var noSeedLength error
	if strings.Contains(Encoded(l), `"seedLength"`) {
		noSeedLength = fmt.Errorf("after a reopen: Load(%q) encodes a \"seedLength\" member, wanted none for a spawn child", h.ID)
	}
	return errors.Join(
		equal("after a reopen: header seedLength", l.Header.SeedLength, 0),
		noSeedLength,
		equal("after a reopen: header mode", l.Header.Mode, session.ModeSpawn),
		equal("after a reopen: header parentCallId", l.Header.ParentCallID, "call_9"),
	)
}

func oddRoundTrip(e *env) error {
	h := RootHeader("odd")
	h.Extra = map[string]json.RawMessage{"sandbox": json.RawMessage(`{"mode":"workspace-write"}`), "dshFlag": json.RawMessage(`true`)}
	events := slices.Concat(CompletedTurn(0, 1, "hi", "hello"), OddEvents(8))
	if err := e.create(h, nil, events); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	l, err := e.wantLog("after a reopen", "odd", &session.Log{Header: h, Events: events})
	if err != nil {
		return err
	}
	if len(l.Events) != 13 { // the encodings matched, so it cannot differ
		return fmt.Errorf("after a reopen: Load(%q) = %d events, wanted 13", "odd", len(l.Events))
	}
	custom := l.Events[9]
	var emptySeqs, noData error
	if seqs := l.Events[10].SourceEventSeqs; seqs == nil || len(seqs) != 0 {
		emptySeqs = fmt.Errorf("after a reopen: event 10 sourceEventSeqs = %#v, wanted []int64{} (an empty sourceEventSeqs stays present)", seqs)
	}
	if d := l.Events[11].Data; d != nil {
		noData = fmt.Errorf("after a reopen: event 11 data = %q, wanted nil (an event without data stays without)", d)
	}
	return errors.Join(
		hasJSON("after a reopen: the header's extras", l.Header.Extra, "sandbox", `{"mode":"workspace-write"}`),
		equal("after a reopen: event 9 type", custom.Type, "x/custom"),
		equal("after a reopen: event 9 ignorable", custom.Ignorable, true),
		hasJSON("after a reopen: event 9's extras", custom.Extra, "zeta", `{"nested":[true,null]}`),
		hasJSON("after a reopen: event 9's extras", custom.Extra, "seq0", `5`),
		emptySeqs,
		noData,
		equal("after a reopen: event 12 data", string(l.Events[12].Data), "null"),
	)
}

func resumeStored(e *env) error {
	parent, err := e.parentLog()
	if err != nil {
		return err
	}
	h := ForkHeader("root", "call_7", 16)
	own := CompletedTurn(16, 3, "forked task", "MARMALADE")
	if err := e.create(h, parent.Events, own); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	resumed, err := e.load(h.ID)
	if err != nil {
		return fmt.Errorf("after a reopen: %w", err)
	}
	next := CompletedTurn(int64(len(resumed.Events)), 4, "follow-up", "DONE")
	if err := e.store.Append(e.ctx, h.ID, next); err != nil {
		return fmt.Errorf("after a reopen: Append(%q, %s) = %w, wanted nil", h.ID, span(next), err)
	}
	if err := e.reopen(); err != nil {
		return err
	}
	l, err := e.load(h.ID)
	if err != nil {
		return fmt.Errorf("after a second reopen: %w", err)
	}
	if err := errors.Join(
		equal("after a second reopen: header seedLength", l.Header.SeedLength, 16),
		equal("after a second reopen: header createdAt", l.Header.CreatedAt, T0+1000),
	); err != nil {
		return err
	}
	return sameLog(fmt.Sprintf("after a second reopen: Load(%q)", h.ID), l,
		&session.Log{Header: h, Events: slices.Concat(parent.Events, own, next)})
}

func resumeIntoNew(e *env) error {
	parent, err := e.parentLog()
	if err != nil {
		return err
	}
	h := ForkHeader("root", "call_7", 16)
	if err := e.create(h, parent.Events, CompletedTurn(16, 3, "forked task", "MARMALADE")); err != nil {
		return err
	}
	stored, err := e.load(h.ID)
	if err != nil {
		return err
	}
	st, err := e.fresh()
	if err != nil {
		return err
	}
	other, err := e.open(st)
	if err != nil {
		return fmt.Errorf("second storage: %w", err)
	}
	if err := other.Create(e.ctx, stored.Header, stored.Events); err != nil {
		return fmt.Errorf("second storage: Create(%s, seed %s) = %w, wanted nil", headerDesc(stored.Header), span(stored.Events), err)
	}
	next := CompletedTurn(int64(len(stored.Events)), 4, "follow-up", "DONE")
	if err := other.Append(e.ctx, h.ID, next); err != nil {
		return fmt.Errorf("second storage: Append(%q, %s) = %w, wanted nil", h.ID, span(next), err)
	}
	l, err := other.Load(e.ctx, h.ID)
	if err != nil {
		return fmt.Errorf("second storage: Load(%q) = %w, wanted the session's log", h.ID, err)
	}
	if l == nil {
		return fmt.Errorf("second storage: Load(%q) = nil, nil, wanted the session's log", h.ID)
	}
	return errors.Join(
		equal(fmt.Sprintf("second storage: header seedLength (the seed held %d events)", len(stored.Events)), l.Header.SeedLength, 16),
		equal("second storage: header createdAt", l.Header.CreatedAt, T0+1000),
		equal("second storage: Load's number of events", len(l.Events), len(stored.Events)+len(next)),
	)
}
