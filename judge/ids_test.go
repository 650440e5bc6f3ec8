package judge_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// A replay whose runtime names its sessions otherwise than the recording's
// is compared with the recorded ids put back: in headers, in JSON strings
// of any length, and inside text for ids long enough not to hit a word.
var _ = Describe("comparing trees whose sessions have other ids", func() {
	// tree is a root and one spawned child with the given ids; the root's
	// one event says data.
	// Each tree built has its own times, as each run does.
	runs := 0
	tree := func(rootID, childID, data string) []*session.Log {
		runs++
		t := int64(1_700_000_000_000 + 1000*runs)
		return []*session.Log{
			{
				Header: session.Header{ID: rootID, CreatedAt: t, AgentPreset: "default"},
				Events: []session.Event{{Type: "x/note", Seq: 0, Time: t + 1, Data: json.RawMessage(data)}},
			},
			{
				Header: session.Header{ID: childID, CreatedAt: t + 2, ParentSession: rootID, ParentCallID: "call_1", Mode: session.ModeSpawn,
					Origin: session.OriginSubagent, DelegationDepth: 1, AgentPreset: "default"},
			},
		}
	}

	It("finds no difference where only the ids differ, short ids in JSON strings included", func() {
		golden := tree("gr", "gc", `{"child":"gc"}`)
		replay := tree("rr", "rc", `{"child":"rc"}`)
		Expect(judge.CompareLogs(golden, replay)).To(BeEmpty())
	})

	It("puts a recorded id of 8 characters back inside text", func() {
		golden := tree("golden-1", "golden-2", `{"message":"session golden-2 failed"}`)
		replay := tree("replay-1", "replay-2", `{"message":"session replay-2 failed"}`)
		Expect(judge.CompareLogs(golden, replay)).To(BeEmpty())
	})

	It("leaves a short id inside text alone, where it could be a word", func() {
		// The replay's child is v2, the recording's v1: the text's "plan v2"
		// is a word the agent changed, not the session's id.
		golden := tree("root-id", "v1", `{"message":"follow plan v1"}`)
		replay := tree("root-id", "v2", `{"message":"follow plan v2"}`)
		ds := judge.CompareLogs(golden, replay)
		Expect(ds).To(HaveLen(1))
		Expect(ds[0].Field).To(Equal("data.message"))
		Expect(ds[0].Replay).To(Equal(`"follow plan v2"`))
	})

	It("still finds a difference that is not an id", func() {
		golden := tree("gr", "gc", `{"child":"gc","n":1}`)
		replay := tree("rr", "rc", `{"child":"rc","n":2}`)
		ds := judge.CompareLogs(golden, replay)
		Expect(ds).To(HaveLen(1))
		Expect(ds[0].Session).To(Equal("root"))
		Expect(ds[0].Field).To(Equal("data.n"))
	})
})
