package judge

import (
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// CompareSessionPair returns the first difference between a recorded log and its
// replay, as the comparison of a replay finds it, or nil.
func CompareSessionPair(golden, replay *session.Log) *Difference {
	return compareSession(pair{label: "root", lineage: "root session", golden: golden, replay: replay}, newNormalizer(nil, ""))
}

// CompareSessionPairIn is CompareSessionPair for a replay that ran in the
// working folder cwd; looked says whether the comparison looked the
// machine's paths up (placeholder.Defaults: os.Getwd and more).
func CompareSessionPairIn(golden, replay *session.Log, cwd string) (d *Difference, looked bool) {
	n := newNormalizer(nil, cwd)
	d = compareSession(pair{label: "root", lineage: "root session", golden: golden, replay: replay}, n)
	return d, n.loaded
}

// CountCalls is the model calls the verdict counts in replayed logs.
func CountCalls(logs []*session.Log) int { return countCalls(logs, nil) }

// SettleVerdict is the verdict on replayed logs against recorded ones, as
// the comparison of a replay settles it: pairs judged in the recording's
// lineage order, the first drift kept and every other difference listed.
// Its replay driver served nothing and has nothing left.
func SettleVerdict(golden, replay []*session.Log) *Outcome {
	d, err := fakellm.New([]*session.Log{{Header: session.Header{ID: "root"}}})
	if err != nil {
		panic(err)
	}
	o := &Outcome{Fixture: &fixture.Fixture{Name: "t/verdict", Dir: "t/verdict", Scenario: &scenario.Scenario{}}, Replayed: replay, driver: d}
	pairs, n := pairsOf(golden, replay, "")
	vs := make([]verdict, len(pairs))
	for i := range pairs {
		vs[i] = judgePair(pairs[i], n)
	}
	o.settle(vs, nil)
	return o
}

// ScheduleFailure is the run error of a replay under another schedule
// that failed; diverged says it wrote other logs than the replay's own.
func ScheduleFailure(msg string, diverged bool) error {
	return &scheduleError{msg: msg, diverged: diverged}
}

// SeenStore wraps store as a replay judged from what start-up kept watches
// its store: each session's events digested and rendered as written.
func SeenStore(store persistence.Store) persistence.Store { return newSeenStore(store) }

// SeenDigestMatches reports whether seen's digest of the loaded log l, taken
// from what it saw written, is the one of l's events digested whole.
func SeenDigestMatches(seen persistence.Store, l *session.Log) bool {
	return seen.(*seenStore).digestOf(l) == digestEvents(l.Events)
}

// SeenWhole reports how many of the loaded logs ordered seen saw written
// whole (their digests taken from what it saw).
func SeenWhole(seen persistence.Store, ordered []*session.Log) int {
	return seen.(*seenStore).whole(ordered)
}
