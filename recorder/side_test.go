package recorder_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("the side store's guard", func() {
	const key = "sk-side-7f3a9c2e41b8d605"
	ctx := context.Background()

	textDelta := func(seq int64, text string) session.Event {
		d := session.ChunkData{Turn: 1, Step: 1, Attempt: 1, Chunk: session.Chunk{Type: session.ChunkTextDelta, Index: 0, Text: text}}
		return session.Event{Type: session.TypeAssistantChunk, Seq: seq, Time: 1, Data: json.RawMessage(d.AppendJSON(nil))}
	}

	It("refuses a header holding a secret before the side store sees it", func() {
		side := memory.New()
		s := recorder.NewSideStore(side, map[string]string{"OPENAI_API_KEY": key})
		h := storetest.RootHeader("root")
		h.Cwd = "/home/" + key
		err := s.Create(ctx, h, nil)
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).To(ContainSubstring("the value of OPENAI_API_KEY appears in the header of session root"))
		Expect(err.Error()).NotTo(ContainSubstring(key))
		hs, err := side.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(BeEmpty())
	})

	It("refuses every write after the first refusal, so nothing more reaches the side store", func() {
		side := memory.New()
		s := recorder.NewSideStore(side, map[string]string{"OPENAI_API_KEY": key})
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", []session.Event{textDelta(0, "say "+key)})).To(MatchError(recorder.ErrSecret))
		Expect(s.Append(ctx, "root", []session.Event{textDelta(0, "harmless")})).To(MatchError(recorder.ErrSecret))
		l, err := side.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(BeEmpty())
	})

	It("catches a secret streamed as all its bytes but the last, then the last, in separate writes", func() {
		side := memory.New()
		s := recorder.NewSideStore(side, map[string]string{"OPENAI_API_KEY": key})
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", []session.Event{textDelta(0, key[:len(key)-1])})).To(Succeed())
		err := s.Append(ctx, "root", []session.Event{textDelta(1, key[len(key)-1:])})
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).To(ContainSubstring("streamed across chunks in session root (turn 1 step 1, up to event seq 1)"))
	})
})
