package errors_test

import (
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("error scenarios", Label("errors"), func() {
	DescribeTable("replay their failures exactly as recorded",
		func(dir string) {
			o := suitekit.Replay(dir)
			Expect(o.Fixture.Override).NotTo(BeNil(), "error scenarios replay an authored throw or hang from replay.override.json")
			failed := false
			for _, l := range o.Replayed {
				for _, e := range l.Own() {
					if e.Type != session.TypeAssistantChunk {
						continue
					}
					d, err := session.DecodeChunkData(e.Data)
					Expect(err).NotTo(HaveOccurred())
					if d.Chunk.IsFinish() && (d.Chunk.Reason.Kind == session.FinishError || d.Chunk.Reason.Kind == session.FinishAborted) {
						failed = true
					}
				}
			}
			Expect(failed).To(BeTrue(), "the replay went through a failed model call")
		},
		suitekit.Entries("errors"),
	)
})
