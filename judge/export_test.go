package judge

import "github.com/agentsnap/agentsnap/session"

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
var CountCalls = countCalls
