package transcript_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

var _ = Describe("RenderOrdered", func() {
	It("is Render of logs a caller already put in lineage order", func() {
		root, spawned, forked := delegationTree()
		ordered, err := session.LineageOrder([]*session.Log{forked.log, root.log, spawned.log})
		Expect(err).NotTo(HaveOccurred())
		got, err := transcript.RenderOrdered(ordered)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(delegationTranscript))
	})

	It("renders the logs in the order given, which it does not order again", func() {
		root, spawned, forked := delegationTree()
		got, err := transcript.RenderOrdered([]*session.Log{root.log, forked.log, spawned.log})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).NotTo(Equal(delegationTranscript))
		Expect(got).To(ContainSubstring("== session 1: fork of root via call_fork, depth 1 =="))
	})

	It("fails, instead of panicking, on a log whose seedLength is past its events", func() {
		root, _, _ := delegationTree()
		root.log.Header.SeedLength = len(root.log.Events) + 1
		_, err := transcript.RenderOrdered([]*session.Log{root.log})
		Expect(err).To(MatchError(session.ErrSeedPastEnd))
	})
})
