package recorder_test

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("recording a fork scenario from its playbook", func() {
	It("writes a child with mode fork, the call's id and the parent's completed prefix as its seed", func() {
		dir := scaffold("fork/codeword")
		res, err := record(context.Background(), dir, playbookDriver(dir))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Sessions).To(Equal(2))
		Expect(res.Calls).To(Equal(4))

		root, err := session.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		child, err := session.ReadFile(filepath.Join(dir, fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		h := child.Header
		Expect(h.Mode).To(Equal(session.ModeFork))
		Expect(h.ParentCallID).To(Equal("call_fork_1"))
		Expect(h.ParentSession).To(Equal(root.Header.ID))
		Expect(h.Origin).To(Equal(session.OriginSubagent))
		Expect(h.DelegationDepth).To(Equal(1))

		// The seed is the parent's events through turn 1's turn/end...
		turn1End := 0
		for i, e := range root.Events {
			if e.Type == session.TypeTurnEnd {
				turn1End = i + 1
				break
			}
		}
		Expect(h.SeedLength).To(Equal(turn1End))
		Expect(session.Encode(&session.Header{}, child.Seed())).To(Equal(session.Encode(&session.Header{}, root.Events[:turn1End])))
		// ...and everything after it is the child's own turn.
		var d session.TurnStartData
		Expect(child.Own()[0].Decode(&d)).To(Succeed())
		Expect(d).To(Equal(session.TurnStartData{Turn: 2, Trigger: "subagent"}))
		for _, e := range child.Own() {
			if e.Type == session.TypeAssistantChunk {
				cd, _ := session.DecodeChunkData(e.Data)
				Expect(cd.Turn).To(Equal(2), "no parent chunk after the seed")
			}
		}

		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Recorded).NotTo(BeNil())
		Expect(sc.Recorded.By).To(Equal("agentsnap test"))
		Expect(string(must(os.ReadFile(filepath.Join(dir, fixture.RootLog))))).To(ContainSubstring(`"cwd":"{{cwd}}"`), "machine paths become placeholders")
	})

	It("replays offline to identical logs and the golden it wrote", func() {
		dir := scaffold("fork/codeword")
		_, err := record(context.Background(), dir, playbookDriver(dir))
		Expect(err).NotTo(HaveOccurred())
		replayPasses(dir)
	})

	It("re-records an unchanged playbook to the same logs but for times", func() {
		dir := scaffold("spawn/planet")
		_, err := record(context.Background(), dir, playbookDriver(dir))
		Expect(err).NotTo(HaveOccurred())
		first := tree(dir)
		_, err = record(context.Background(), dir, playbookDriver(dir))
		Expect(err).NotTo(HaveOccurred())
		second := tree(dir)
		Expect(second).To(HaveLen(len(first)))
		Expect(second["planet/transcript.golden"]).To(Equal(first["planet/transcript.golden"]))
	})
})

var _ = Describe("a recording that does not finish", func() {
	var dir string
	var before map[string]string
	BeforeEach(func() { dir, before = recorded("fork/codeword") })

	It("leaves the previous fixture byte-identical when cancelled mid-stream", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		d := &cancelling{inner: playbookDriver(dir), cancel: cancel, n: 3}
		_, err := record(ctx, dir, d)
		Expect(err).To(MatchError(context.Canceled))
		Expect(err.Error()).To(ContainSubstring("the fixture is unchanged"))
		Expect(tree(dir)).To(Equal(before))
	})

	// A cancel (Ctrl-C) that comes once the run is over and checked —
	// here from the playbook's consumption check, the run's last step —
	// still keeps the new recording from replacing the old one.
	It("leaves the previous fixture byte-identical when cancelled after the run, before the save", func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := record(ctx, dir, playbookDriver(dir), func(o *recorder.Options) {
			unused := o.Consumed
			o.Consumed = func() error {
				cancel()
				return unused()
			}
		})
		Expect(err).To(MatchError(context.Canceled))
		Expect(err.Error()).To(ContainSubstring("the fixture is unchanged"))
		Expect(tree(dir)).To(Equal(before))
	})

	It("leaves the previous fixture byte-identical when the playbook runs out", func() {
		path := filepath.Join(dir, fixture.PlaybookFile)
		pb, err := playbook.Load(path)
		Expect(err).NotTo(HaveOccurred())
		pb.Sessions["root"] = pb.Sessions["root"][:2]
		_, err = record(context.Background(), dir, playbook.NewDriver(pb, path))
		Expect(err).To(MatchError(playbook.ErrExhausted))
		Expect(err.Error()).To(ContainSubstring(`sessions.root asked for model turn 3 (turn 2 step 2), the playbook has 2; add a turn to sessions.root`))
		Expect(tree(dir)).To(Equal(before))
	})

	It("refuses a playbook with turns the agent never asked for", func() {
		path := filepath.Join(dir, fixture.PlaybookFile)
		pb, err := playbook.Load(path)
		Expect(err).NotTo(HaveOccurred())
		pb.Sessions["root"] = append(pb.Sessions["root"], &playbook.Turn{Text: "spare"})
		_, err = record(context.Background(), dir, playbook.NewDriver(pb, path))
		Expect(err).To(MatchError(playbook.ErrUnused))
		Expect(err.Error()).To(ContainSubstring("sessions.root used 3 of 4 turns"))
		Expect(tree(dir)).To(Equal(before))
	})
})

var _ = Describe("the secrets tripwire", func() {
	const key = "sk-test-7f3a9c2e41b8d605"

	DescribeTable("refuses to save when a key's value appears in the model's output",
		func(variable, where string, leak func(pb *playbook.Playbook)) {
			dir := scaffold("fork/codeword")
			_, err := record(context.Background(), dir, playbookDriver(dir))
			Expect(err).NotTo(HaveOccurred())
			before := tree(dir)

			path := filepath.Join(dir, fixture.PlaybookFile)
			pb, err := playbook.Load(path)
			Expect(err).NotTo(HaveOccurred())
			leak(pb)
			_, err = record(context.Background(), dir, playbook.NewDriver(pb, path), func(o *recorder.Options) {
				o.Secrets = map[string]string{variable: key}
			})
			Expect(err).To(MatchError(recorder.ErrSecret))
			Expect(err.Error()).To(ContainSubstring("the value of " + variable))
			Expect(err.Error()).To(ContainSubstring(where))
			Expect(err.Error()).NotTo(ContainSubstring(key), "the message never repeats the key")
			Expect(tree(dir)).To(Equal(before))
		},
		Entry("AGENTSNAP_API_KEY in a child's answer", "AGENTSNAP_API_KEY", "appears in session.1.jsonl line", func(pb *playbook.Playbook) {
			pb.Sessions["call_fork_1"][0].Text = "The key is " + key
		}),
		Entry("OPENAI_API_KEY in the root's reasoning", "OPENAI_API_KEY", "appears in s", func(pb *playbook.Playbook) {
			pb.Sessions["root"][1].Reasoning = "I remember " + key
		}),
		Entry("DEEPSEEK_API_KEY only in chunks of a stream that failed (no block end, no message)", "DEEPSEEK_API_KEY", "streamed across chunks in session.jsonl (turn 1 step 1)", func(pb *playbook.Playbook) {
			// The playbook streams long words in 8-byte pieces, so the key
			// exists only split across chunk events.
			pb.Sessions["root"][0] = &playbook.Turn{Text: key, Error: &playbook.Error{Code: "SERVER", Message: "boom"}}
		}),
	)
})

func must[T any](v T, err error) T {
	Expect(err).NotTo(HaveOccurred())
	return v
}
