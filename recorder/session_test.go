package recorder_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
)

var _ = Describe("record --session", func() {
	It("re-records the named session's subtree only, not a sibling whose path merely starts with its name", func() {
		dir := treeScenario()
		editScenario(dir, func(sc *scenario.Scenario) {
			sc.Prompts = []string{treePrompts[0], treePrompts[1], treePrompts[1]} // call_rel twice: root/call_rel and root/call_rel#2
		})
		s := newScripted(treeAnswers)
		_, err := recordScripted(context.Background(), dir, s)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).NotTo(BeEmpty())

		res, err := recordScripted(context.Background(), dir, s, func(o *recorder.Options) { o.Session = "root/call_rel" })
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(Equal([]string{"user: Look up the release.", "tool: v2.4.1"}), "root/call_rel#2 replays")
		Expect(res.Reuse.Kept).To(ContainElement("root/call_rel#2"))
	})
})
