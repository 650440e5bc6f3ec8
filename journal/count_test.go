package journal_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("token counts (RecordCount)", func() {
	It("are written before the next step in digest order, whatever order they came in, with the turn and step of where they are written, and by Flush after a turn", func() {
		var logs [][]session.Event
		for _, order := range [][]string{{"ffff", "0000", "8888"}, {"8888", "ffff", "0000"}} {
			j := newRoot(memory.New())
			j.StartTurn(journal.TriggerUser, journal.UserText("count, then ask"))
			for _, d := range order {
				j.RecordCount(session.CountTokensData{Turn: 9, Step: 9, API: "anthropic-messages", Digest: d, InputTokens: 7})
			}
			j.StartStep()
			_, _ = call(j, answer("ok"))
			Expect(j.EndTurn(ctx, session.EndReason{Kind: session.TurnCompleted})).To(Succeed())
			j.RecordCount(session.CountTokensData{API: "anthropic-messages", Digest: "aaaa", InputTokens: 9})
			Expect(j.Flush(ctx)).To(Succeed())
			logs = append(logs, logOf(j))
		}
		events := logs[0]
		Expect(events[2].Type).To(Equal(session.TypeCountTokens))
		var types []string
		for _, e := range events {
			if e.Type != session.TypeAssistantChunk {
				types = append(types, e.Type)
			}
		}
		Expect(types).To(HaveExactElements(session.TypeTurnStart, session.TypeUserMessage,
			session.TypeCountTokens, session.TypeCountTokens, session.TypeCountTokens, session.TypeStepStart,
			session.TypeRequestHeader, session.TypeAssistantMessage, session.TypeStepEnd, session.TypeTurnEnd, session.TypeCountTokens))
		Expect(string(events[2].Data)).To(Equal(`{"turn":1,"step":0,"api":"anthropic-messages","digest":"0000","inputTokens":7}`))
		Expect(string(events[3].Data)).To(ContainSubstring(`"digest":"8888"`))
		Expect(string(events[4].Data)).To(ContainSubstring(`"digest":"ffff"`))
		Expect(string(events[len(events)-1].Data)).To(Equal(`{"turn":1,"step":1,"api":"anthropic-messages","digest":"aaaa","inputTokens":9}`))
		for i := range events {
			Expect(string(logs[1][i].Data)).To(Equal(string(events[i].Data)))
		}
	})
})
