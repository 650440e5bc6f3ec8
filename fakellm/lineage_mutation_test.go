package fakellm_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// A parent with one child its recorded tool call names and one that names
// no call (a dsh log) created before it: the named child comes first in
// lineage order, whatever the creation times say, and the unnamed one
// follows — in Scripts, in lineage names and in the consumption check.
var _ = Describe("lineage order of a named child and an earlier child that names no call", func() {
	mixed := func() []*session.Log {
		root := rootLog("rec-root")
		root.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		root.chunks(1, 1, 0, delegation("call_a")...)
		root.chunks(1, 2, 0, answer("DONE")...)
		root.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
		named := childLog("session.1.jsonl", "rec-a", root, "call_a", session.ModeSpawn).turn(1, "go", "A")
		// Created first: only the parent's calls order a named child.
		unnamed := dshChild("session.2.jsonl", "rec-d", root, 1500).turn(1, "go", "D")
		return []*session.Log{root.log(), unnamed.log(), named.log()}
	}

	It("puts the named child first in Scripts and in the consumption check", func() {
		drv, err := fakellm.New(mixed())
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, s := range drv.Scripts() {
			names = append(names, filepath.Base(s.Name))
		}
		Expect(names).To(Equal([]string{"session.jsonl", "session.1.jsonl", "session.2.jsonl"}))

		Expect(say(drv, lRoot, 1, 1)).To(BeEmpty()) // the delegation
		Expect(say(drv, lRoot, 1, 2)).To(Equal("DONE"))
		err = drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err.Error()).To(MatchRegexp(`(?s)session root/call_a \(spawn; session\.1\.jsonl\): never called.*session root/#2 \(session\.2\.jsonl\): never called`))
	})
})
