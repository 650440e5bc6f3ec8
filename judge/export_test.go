package judge

import "github.com/agentsnap/agentsnap/session"

// CompareSessionPair returns the first difference between a recorded log and its
// replay, as the comparison of a replay finds it, or nil.
func CompareSessionPair(golden, replay *session.Log) *Difference {
	return compareSession(pair{label: "root", lineage: "root session", golden: golden, replay: replay}, newNormalizer(nil))
}
