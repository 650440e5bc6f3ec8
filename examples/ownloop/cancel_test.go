package ownloop_test

import (
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/ownloop"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a user's cancel (errors/user-cancel)", func() {
	dir := filepath.Join(root, "errors", "user-cancel")

	It("is recorded as dsh records it: chunks with no finish, then the turn ends aborted", func() {
		fx, err := fixture.Load(dir)
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
		fx, err := fixture.Load(dir)
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

	It("replays at once with a turnTimeout of an hour: the replay's time is virtual", func(ctx SpecContext) {
		cp := filepath.Join(GinkgoT().TempDir(), "errors", "user-cancel")
		Expect(os.CopyFS(cp, os.DirFS(dir))).To(Succeed())
		path := filepath.Join(cp, "scenario.json")
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`"turnTimeout": "500ms"`))
		Expect(os.WriteFile(path, []byte(strings.Replace(string(b), `"turnTimeout": "500ms"`, `"turnTimeout": "1h"`, 1)), 0o644)).To(Succeed())
		fx, err := fixture.Load(cp)
		Expect(err).NotTo(HaveOccurred())
		within, cancel := context.WithTimeout(ctx, time.Minute) // a real wait would fail here, saying what it waits for
		defer cancel()
		o, err := judge.Replay(within, fx, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})
})

// silentModel answers nothing until the call's context ends; then its
// stream yields only an aborted finish (as fakellm's does), or, with
// refuse, the call fails to start with the context's error.
type silentModel struct{ refuse bool }

func (m silentModel) Stream(ctx context.Context, _ *llm.Request) (iter.Seq[llm.Chunk], error) {
	if m.refuse {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return func(yield func(llm.Chunk) bool) {
		<-ctx.Done()
		yield(session.Finish(session.FinishAborted))
	}, nil
}

var _ = Describe("a cancel before the model's first chunk", func() {
	DescribeTable("records the call's aborted finish, which a replay can serve, and ends the turn aborted",
		func(m silentModel) {
			store := memory.New()
			DeferCleanup(store.Close)
			env := &agentsnap.Env{
				Scenario: &scenario.Scenario{
					Prompts:     []string{"Write me a long packing list."},
					Agent:       json.RawMessage(`{"persona": "You are a test agent.", "tools": ["wordcount"]}`),
					TurnTimeout: scenario.Duration(20 * time.Millisecond), // the cancel
				},
				Driver: m, Store: store, Provider: "p", Model: "m",
				Clock: func() time.Time { return agentsnap.Epoch },
				Logf:  GinkgoT().Logf,
			}
			Expect(ownloop.Runtime{}.Run(context.Background(), env)).To(Succeed())
			logs, err := persistence.LoadAll(context.Background(), store)
			Expect(err).NotTo(HaveOccurred())
			Expect(logs).To(HaveLen(1))

			script, err := fakellm.DeriveLog(logs[0], fakellm.DeriveOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(script.Entries).To(HaveLen(1))
			Expect(script.Entries[0].Kind).To(Equal(fakellm.KindChunks), "not a hang: there is no answer to cut short")
			Expect(script.Entries[0].Chunks).To(Equal([]session.Chunk{session.Finish(session.FinishAborted)}))
			var end session.TurnEndData
			last := logs[0].Events[len(logs[0].Events)-1]
			Expect(last.Type).To(Equal(session.TypeTurnEnd))
			Expect(last.Decode(&end)).To(Succeed())
			Expect(end.Reason.Kind).To(Equal(session.TurnAborted))
		},
		Entry("the stream yields nothing before the cancel", silentModel{}),
		Entry("the call cannot start because of the cancel", silentModel{refuse: true}),
	)
})
