package ownloop_test

import (
	"path/filepath"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a user's cancel (errors/user-cancel)", func() {
	dir := filepath.Join(root, "errors", "user-cancel")

	It("is recorded as dsh records it: chunks with no finish, then the turn ends aborted", func() {
		fx, err := harness.LoadFixture(dir)
		Expect(err).NotTo(HaveOccurred())
		var turn2 []string
		for _, e := range fx.Logs[0].Events {
			if t, _, ok := session.TurnStep(&e); ok && t == 2 {
				kind := e.Type
				if e.Type == session.TypeAssistantChunk {
					d, err := session.DecodeChunkData(e.Data)
					Expect(err).NotTo(HaveOccurred())
					kind += " " + d.Chunk.Type
				}
				turn2 = append(turn2, kind)
			}
		}
		Expect(turn2).To(ContainElement("assistant/chunk text-delta"))
		Expect(turn2).NotTo(ContainElement("assistant/chunk finish"))
		Expect(turn2).NotTo(ContainElement(session.TypeAssistantMessage))
		Expect(turn2[len(turn2)-2:]).To(Equal([]string{session.TypeStepEnd, session.TypeTurnEnd}))
		Expect(string(fx.Logs[0].Events[len(fx.Logs[0].Events)-1].Data)).To(ContainSubstring(`"kind":"completed"`), "turn 3 goes on after the cancel")
	})

	It("derives to a hang entry, which the replay cancels where the recording did", func() {
		fx, err := harness.LoadFixture(dir)
		Expect(err).NotTo(HaveOccurred())
		script, err := fakellm.DeriveLog(fx.Logs[0], fakellm.DeriveOptions{})
		Expect(err).NotTo(HaveOccurred())
		var kinds []fakellm.Kind
		for _, e := range script.Entries {
			kinds = append(kinds, e.Kind)
		}
		Expect(kinds).To(Equal([]fakellm.Kind{fakellm.KindChunks, fakellm.KindChunks, fakellm.KindHang, fakellm.KindChunks, fakellm.KindChunks}))
		Expect(script.Entries[2].Chunks).NotTo(BeEmpty(), "the hang replays what streamed before the cancel")

		o := harness.Run(GinkgoTB(), dir, opts)
		Expect(o).To(harness.MatchRecording())
		Expect(o.Transcript).To(ContainSubstring("ended aborted: cancelled while the model was answering"))
	})
})
