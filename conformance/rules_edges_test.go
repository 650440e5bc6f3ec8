package conformance_test

import (
	"sync/atomic"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gstruct"
)

// renamed is a runtime whose name is another after its first New: it
// keeps state between runs, so the replay of its recording is refused for
// a runtime of another name, whatever its logs hold.
type renamed struct {
	agentsnap.Runtime
	name string
}

func (r renamed) Name() string { return r.name }

var _ = Describe("the conformance kit, a replay refused for a reason no broken rule explains", func() {
	It("does not blame usage, which cannot make a replay refuse a recording, but tells how a replay may differ", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		dropUsage := broken(mutation{drop: func(e *session.Event) bool {
			if e.Type != session.TypeAssistantChunk {
				return false
			}
			d, err := session.DecodeChunkData(e.Data)
			return err == nil && d.Chunk.Type == session.ChunkUsage
		}})
		var runs atomic.Int32
		cfg.New = func() agentsnap.Runtime {
			name := "recording-agent"
			if runs.Add(1) > 1 {
				name = "another-agent"
			}
			return renamed{Runtime: dropUsage(), name: name}
		}
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(rules(res.Violations)).To(ContainElement("usage"), "the spec's premise: usage is broken first")
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule":    Equal("replay-matches"),
			"Problem": ContainSubstring(`it was recorded by a runtime named "recording-agent"`),
			"Fix":     HavePrefix("a replay must do what the recording did: "),
		})), "violations: %v", res.Violations)
	})

	It("still blames the rules a refused recording broke when usage is broken beside them", func(ctx SpecContext) {
		cfg := only(reference(), "fork-later-turn")
		cfg.New = broken(mutation{
			header: func(h *session.Header) {
				if h.SeedLength > 0 {
					h.SeedLength-- // the seed handed over is whole; the stamp is one short
				}
			},
			events: each(session.TypeAssistantMessage, func(e *session.Event) {
				d := decodeTo[session.AssistantMessageData](e)
				d.Usage = nil // the message's usage dropped: rule usage
				e.Data = encode(d)
			}),
		})
		res, err := conformance.Check(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(rules(res.Violations)).To(ContainElements("usage", "seed-stamped"))
		Expect(res.Violations).To(ContainElement(gstruct.MatchFields(gstruct.IgnoreExtras, gstruct.Fields{
			"Rule": Equal("replay-matches"),
			"Fix":  Equal("the recording breaks the rule(s) named before this one in fork-later-turn, and the replay refuses such a recording: fix those first"),
		})), "violations: %v", res.Violations)
	})
})
