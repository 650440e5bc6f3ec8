package recorder_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/recorder"
)

var _ = Describe("PlaybookOptions used twice", func() {
	// The second Record ran out of turns and blamed the playbook ("add a
	// turn to sessions.root"), which was fine.
	It("refuses the second recording, saying to call PlaybookOptions again, and leaves the fixture", func() {
		dir := scaffold("spawn/twice")
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = agent.Reference
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		before := tree(dir)

		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).To(MatchError(ContainSubstring("these Options already served a recording")))
		Expect(err).To(MatchError(ContainSubstring("call PlaybookOptions again for each Record")))
		Expect(tree(dir)).To(Equal(before))

		again, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		again.Runtime = agent.Reference
		res, err := recorder.Record(context.Background(), dir, again)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Unchanged).To(BeTrue())
	})
})
