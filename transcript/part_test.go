package transcript_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

var _ = Describe("RenderParts", func() {
	ordered := func() []*session.Log {
		GinkgoHelper()
		root, spawned, forked := delegationTree()
		ordered, err := session.LineageOrder([]*session.Log{forked.log, root.log, spawned.log})
		Expect(err).NotTo(HaveOccurred())
		return ordered
	}
	partsOf := func(logs []*session.Log, n func(l *session.Log) int) []*transcript.Part {
		parts := make([]*transcript.Part, len(logs))
		for i, l := range logs {
			parts[i] = transcript.NewPart(l.Header.SeedLength)
			parts[i].Add(l.Events[:n(l)])
		}
		return parts
	}

	It("renders each session from its part, given its events in any number of calls, the rest added from its log", func() {
		logs := ordered()
		parts := partsOf(logs, func(l *session.Log) int { return len(l.Events) / 2 })
		for i, l := range logs {
			for _, e := range l.Events[parts[i].Len() : len(l.Events)-1] {
				parts[i].Add([]session.Event{e})
			}
		}
		Expect(transcript.RenderParts(logs, parts)).To(Equal(delegationTranscript))
	})

	It("renders anew a session whose part has more events than its log, or another seedLength", func() {
		logs := ordered()
		parts := partsOf(logs, func(l *session.Log) int { return len(l.Events) })
		var fork int
		for i, l := range logs {
			if l.Header.SeedLength > 0 {
				fork = i
			}
		}
		Expect(fork).To(BeNumerically(">", 0))
		parts[fork] = transcript.NewPart(0)
		parts[fork].Add(logs[fork].Events)
		short := *logs[0]
		short.Events = short.Events[:len(short.Events)-1]
		logs[0] = &short
		want, err := transcript.RenderOrdered(logs)
		Expect(err).NotTo(HaveOccurred())
		Expect(transcript.RenderParts(logs, parts)).To(Equal(want))
	})
})
