package fakellm_test

import (
	"bytes"
	"context"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// corpusCancel is dsh's own recording of a user's cancel, where the shared
// corpus is installed (not on CI machines; the spec skips there).
const corpusCancel = "/work/shared/corpus/dsh-snapshots/cancel/session.jsonl"

// partial is what a model streamed before the user cancelled: no finish.
var partial = []session.Chunk{
	{Type: session.ChunkBlockStart, BlockType: session.BlockText},
	{Type: session.ChunkTextDelta, Text: "part"},
	{Type: session.ChunkTextDelta, Text: "ial"},
}

// cutTurn is a root log whose turn 1 completes and whose turn 2 step 1
// streams partial under attempt, without a finish; the turn is still open.
func cutTurn(attempt int) *builder {
	b := rootLog("r").turn(1, "hi", "one")
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 2, Trigger: "user"})
	b.ev(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("start a long task")}})
	b.ev(session.TypeStepStart, session.StepData{Turn: 2, Step: 1})
	return b.chunks(2, 1, attempt, partial...)
}

// cancelled is cutTurn closed the way the runtime closes a cancelled turn:
// the partial message, unknown events, the step's end, then a turn/end of
// kind (its reason shaped as dsh writes it).
func cancelled(attempt int, kind string) *session.Log {
	b := cutTurn(attempt)
	b.ev(session.TypeAssistantMessage, map[string]any{"turn": 2, "step": 1, "interrupted": true,
		"message": session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("partial")}}})
	b.ev("x/custom", map[string]string{"k": "v"})
	b.ev(session.TypeStepEnd, session.StepData{Turn: 2, Step: 1})
	return b.ev(session.TypeTurnEnd, map[string]any{"turn": 2, "reason": map[string]any{"kind": kind, "reason": map[string]string{"kind": "user"}}}).log()
}

// repaired is cutTurn as crash repair leaves it: closed by persistence's
// closers, whose turn/end is "interrupted".
func repaired() *session.Log {
	l := cutTurn(1).log()
	l.Events = append(l.Events, persistence.Closers(l.Events)...)
	return l
}

var _ = Describe("a call the user cancelled", func() {
	DescribeTable("derives as a hang entry of the chunks recorded before the cancel",
		func(l *session.Log, opts fakellm.DeriveOptions, wantAt []string, wantKinds []fakellm.Kind) {
			s, err := deriveBoth(l, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(positions(s.Entries)).To(Equal(wantAt))
			kinds := make([]fakellm.Kind, len(s.Entries))
			for i, e := range s.Entries {
				kinds[i] = e.Kind
				Expect(e.Validate()).To(Succeed(), "entry %d", i)
			}
			Expect(kinds).To(Equal(wantKinds))
			hang := s.Entries[len(s.Entries)-1]
			Expect(hang.Chunks).To(Equal(partial), "the recorded prefix, and no finish")
			Expect(s.Dropped).To(BeEmpty())
			Expect(string(fakellm.MarshalScript(s.Entries))).To(ContainSubstring(`"kind": "hang"`))
		},
		Entry("without attempt numbers (dsh)",
			cancelled(0, session.TurnAborted), fakellm.DeriveOptions{},
			[]string{"1.1", "2.1"}, []fakellm.Kind{fakellm.KindChunks, fakellm.KindHang}),
		Entry("with attempt numbers",
			cancelled(1, session.TurnAborted), fakellm.DeriveOptions{},
			[]string{"1.1", "2.1#1"}, []fakellm.Kind{fakellm.KindChunks, fakellm.KindHang}),
		Entry("also with DropIncomplete: a cancel is not incomplete, nothing is dropped",
			cancelled(1, session.TurnAborted), fakellm.DeriveOptions{DropIncomplete: true},
			[]string{"1.1", "2.1#1"}, []fakellm.Kind{fakellm.KindChunks, fakellm.KindHang}),
		Entry("in a retry: the failed attempt replays, then the cut one hangs",
			retryCancelled(), fakellm.DeriveOptions{},
			[]string{"1.1#1", "1.1#2"}, []fakellm.Kind{fakellm.KindChunks, fakellm.KindHang}),
		Entry("in a retry, acted-on: only the cut attempt, the one the user saw",
			retryCancelled(), fakellm.DeriveOptions{Attempts: fakellm.AttemptsActedOn},
			[]string{"1.1#2"}, []fakellm.Kind{fakellm.KindHang}),
	)

	It("derives a call that finished before the cancel as an ordinary entry", func() {
		// The user cancelled during the tool calls, after the answer ended.
		b := rootLog("r")
		b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		b.chunks(1, 1, 0, answer("calling tools")...)
		b.ev(session.TypeStepEnd, session.StepData{Turn: 1, Step: 1})
		b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnAborted}})
		s, err := deriveBoth(b.log(), fakellm.DeriveOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Entries).To(HaveLen(1))
		Expect(s.Entries[0].Kind).To(Equal(fakellm.KindChunks))
		Expect(s.Entries[0].Chunks).To(Equal(answer("calling tools")))
	})

	It("replays as a cancel: the prefix, then nothing until the turn's context ends", func() {
		drv, err := fakellm.New([]*session.Log{cancelled(0, session.TurnAborted)})
		Expect(err).NotTo(HaveOccurred())
		Expect(say(drv, liveRoot("L"), 1, 1)).To(Equal("one"))

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seq, err := drv.Stream(ctx, &llm.Request{Session: liveRoot("L"), Turn: 2, Step: 1, Attempt: 1})
		Expect(err).NotTo(HaveOccurred())
		var got []session.Chunk
		for c := range seq {
			got = append(got, c)
			if len(got) == len(partial) {
				// The recorded user cancels here; the stream blocks
				// until then, so the next chunk is its end.
				cancel()
			}
		}
		Expect(got[:len(partial)]).To(Equal(partial))
		Expect(got[len(partial):]).To(Equal([]session.Chunk{session.Finish(session.FinishAborted)}))
		Expect(drv.Check()).To(Succeed(), "the cancelled call was the recording's last")
	})

	It("derives dsh's own recording of a cancel as one hang entry", func() {
		if _, err := os.Stat(corpusCancel); err != nil {
			Skip("the dsh corpus is not installed here: " + err.Error())
		}
		s, err := fakellm.DeriveFile(corpusCancel, fakellm.DeriveOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Entries).To(HaveLen(1))
		e := s.Entries[0]
		Expect(e.Kind).To(Equal(fakellm.KindHang))
		Expect([]int{e.Turn, e.Step}).To(Equal([]int{1, 1}))
		Expect(textOf(e.Chunks)).To(Equal("partial"))
		Expect(e.Validate()).To(Succeed())
	})
})

// retryCancelled is a root turn whose step 1 failed once, then was cut by
// the user's cancel in its second attempt.
func retryCancelled() *session.Log {
	b := rootLog("r")
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
	b.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
	b.chunks(1, 1, 1, session.Chunk{Type: session.ChunkBlockStart, BlockType: session.BlockText}, rateLimited)
	b.ev("llm/retry", map[string]int{"turn": 1, "step": 1})
	b.chunks(1, 1, 2, partial...)
	b.ev(session.TypeStepEnd, session.StepData{Turn: 1, Step: 1})
	return b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnAborted}}).log()
}

var _ = Describe("a call without a finish that no cancel explains", func() {
	DescribeTable("stays an incomplete call: an error, or dropped with DropIncomplete",
		func(l *session.Log, wantMsg string) {
			_, err := deriveBoth(l, fakellm.DeriveOptions{})
			Expect(err).To(MatchError(fakellm.ErrIncompleteCall))
			Expect(err.Error()).To(ContainSubstring(wantMsg))
			Expect(err.Error()).To(ContainSubstring("--drop-incomplete"))

			s, err := deriveBoth(l, fakellm.DeriveOptions{DropIncomplete: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(positions(s.Entries)).NotTo(ContainElement("2.1#1"), "the cut call is not replayed")
			Expect(s.Dropped).To(ContainElement(fakellm.Dropped{Turn: 2, Step: 1, Attempt: 1, Chunks: len(partial)}))
		},
		Entry("the turn ends interrupted, as crash repair closes it",
			repaired(), `3 chunks and no finish, and its turn ended "interrupted"`),
		Entry("the log ends (a crash, not repaired)",
			cutTurn(1).log(), "turn 2 step 1 attempt 1: 3 chunks and no finish (a crash while recording?)"),
		Entry("the turn ends in an error",
			cancelled(1, session.TurnError), `its turn ended "error"`),
		Entry("the aborted turn/end is another turn's",
			cutTurn(1).ev(session.TypeTurnEnd, session.TurnEndData{Turn: 3, Reason: session.EndReason{Kind: session.TurnAborted}}).log(),
			"ends turn 3, not its own"),
		Entry("another call starts before the aborted turn/end",
			cutTurn(1).chunks(2, 2, 1, partial...).
				ev(session.TypeTurnEnd, session.TurnEndData{Turn: 2, Reason: session.EndReason{Kind: session.TurnAborted}}).log(),
			"turn 2 step 1 attempt 1: 3 chunks and no finish"),
	)

	It("is dropped, not hung, when the aborted turn/end is a torn last line", func() {
		l := cancelled(1, session.TurnAborted)
		enc := session.Encode(&l.Header, l.Events)
		last := bytes.LastIndexByte(enc[:len(enc)-1], '\n') + 1
		Expect(string(enc[last:])).To(ContainSubstring(`"aborted"`))
		torn := string(enc[:last+len(enc[last:])/2]) // half the turn/end, no newline

		_, err := fakellm.Derive(strings.NewReader(torn), "torn.jsonl", fakellm.DeriveOptions{})
		Expect(err).To(MatchError(fakellm.ErrTornLog))

		s, err := fakellm.Derive(strings.NewReader(torn), "torn.jsonl", fakellm.DeriveOptions{DropIncomplete: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Torn).NotTo(BeNil())
		Expect(positions(s.Entries)).To(Equal([]string{"1.1"}))
		Expect(s.Dropped).To(Equal([]fakellm.Dropped{{Turn: 2, Step: 1, Attempt: 1, Chunks: len(partial)}}))
	})
})
