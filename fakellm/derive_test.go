package fakellm_test

import (
	"bytes"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// positions names each entry "turn.step" or "turn.step#attempt".
func positions(entries []fakellm.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = fmt.Sprintf("%d.%d", e.Turn, e.Step)
		if e.Attempt != 0 {
			out[i] += fmt.Sprintf("#%d", e.Attempt)
		}
	}
	return out
}

// deriveBoth derives l in memory and streamed from its JSONL encoding, and
// checks that both ways agree.
func deriveBoth(l *session.Log, opts fakellm.DeriveOptions) (*fakellm.Script, error) {
	GinkgoHelper()
	mem, memErr := fakellm.DeriveLog(l, opts)
	streamed, err := fakellm.Derive(bytes.NewReader(session.Encode(&l.Header, l.Events)), l.Path, opts)
	if memErr != nil {
		Expect(err).To(HaveOccurred(), "DeriveLog failed with %v, Derive did not", memErr)
		return nil, memErr
	}
	Expect(err).NotTo(HaveOccurred())
	Expect(streamed.Entries).To(Equal(mem.Entries), "Derive and DeriveLog disagree")
	Expect(streamed.Dropped).To(Equal(mem.Dropped))
	return mem, nil
}

// seedText is the text of the assistant/chunk events in a log's seed.
func seedText(l *session.Log) string {
	GinkgoHelper()
	var cs []session.Chunk
	for _, e := range l.Seed() {
		if e.Type == session.TypeAssistantChunk {
			d, err := session.DecodeChunkData(e.Data)
			Expect(err).NotTo(HaveOccurred())
			cs = append(cs, d.Chunk)
		}
	}
	return textOf(cs)
}

var rateLimited = session.ErrorFinish("RATE_LIMIT", "slow down")

// retried is a root log whose step 1 failed once and was retried.
func retried(attempts bool) *session.Log {
	n := func(a int) int {
		if attempts {
			return a
		}
		return 0
	}
	b := rootLog("r")
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1})
	b.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
	b.chunks(1, 1, n(1), session.Chunk{Type: session.ChunkBlockStart, BlockType: session.BlockText}, session.Chunk{Type: session.ChunkTextDelta, Text: "half"}, rateLimited)
	b.ev("llm/retry", map[string]int{"turn": 1, "step": 1})
	b.chunks(1, 1, n(2), answer("whole")...)
	b.ev(session.TypeStepEnd, session.StepData{Turn: 1, Step: 1})
	b.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 2})
	b.chunks(1, 2, n(1), answer("done")...)
	return b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}}).log()
}

var _ = Describe("Derive", func() {
	DescribeTable("one entry per stream() call, closed by its finish",
		func(l *session.Log, opts fakellm.DeriveOptions, wantAt, wantText []string) {
			s, err := deriveBoth(l, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(positions(s.Entries)).To(Equal(wantAt))
			Expect(texts(s.Entries)).To(Equal(wantText))
			for _, e := range s.Entries {
				Expect(e.Kind).To(Equal(fakellm.KindChunks))
				Expect(e.Chunks[len(e.Chunks)-1].IsFinish()).To(BeTrue())
			}
		},
		Entry("a step per call, over turns",
			rootLog("r").turn(1, "hi", "one", "two").turn(2, "again", "three").log(), fakellm.DeriveOptions{},
			[]string{"1.1", "1.2", "2.1"}, []string{"one", "two", "three"}),
		Entry("unknown event types are ignored",
			rootLog("r").ev("x/custom", map[string]string{"k": "v"}).turn(1, "hi", "one").ev("x/other", nil).log(), fakellm.DeriveOptions{},
			[]string{"1.1"}, []string{"one"}),
		Entry("every attempt replays by default, numbered",
			retried(true), fakellm.DeriveOptions{},
			[]string{"1.1#1", "1.1#2", "1.2#1"}, []string{"half", "whole", "done"}),
		Entry("without attempt numbers (dsh), a chunk after a finish starts the next attempt",
			retried(false), fakellm.DeriveOptions{Attempts: fakellm.AttemptsEvery},
			[]string{"1.1", "1.1", "1.2"}, []string{"half", "whole", "done"}),
		Entry("acted-on keeps the last attempt of each step",
			retried(true), fakellm.DeriveOptions{Attempts: fakellm.AttemptsActedOn},
			[]string{"1.1#2", "1.2#1"}, []string{"whole", "done"}),
		Entry("acted-on without attempt numbers",
			retried(false), fakellm.DeriveOptions{Attempts: fakellm.AttemptsActedOn},
			[]string{"1.1", "1.2"}, []string{"whole", "done"}),
		Entry("a log without model calls has an empty script",
			rootLog("r").ev(session.TypeTurnStart, session.TurnStartData{Turn: 1}).log(), fakellm.DeriveOptions{},
			[]string{}, []string{}),
	)

	It("expands packed rows before grouping and slices by logical events", func() {
		// Turn 1 (the seed) is 3 lines but 6 logical events: a slice by
		// lines would start inside turn 2's call and lose "MARMA".
		log := strings.Join([]string{
			`{"type":"session","version":0,"id":"c","createdAt":1,"parentSession":"p","seedLength":6,"delegationDepth":1}`,
			`{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}`,
			`{"type":"text-chunks","seq0":1,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[0,0],"texts":["O","K","!"]}}`,
			`{"type":"assistant/chunk","seq":4,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}`,
			`{"type":"turn/end","seq":5,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}`,
			`{"type":"assistant/chunk","seq":6,"time":1,"data":{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}`,
			`{"type":"text-chunks","seq0":7,"time0":1,"data":{"turn":2,"step":1,"index":0,"dt":[3],"texts":["MARMA","LADE"]}}`,
			`{"type":"assistant/chunk","seq":9,"time":1,"data":{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}`,
		}, "\n") + "\n"
		s, err := fakellm.Derive(strings.NewReader(log), "c.jsonl", fakellm.DeriveOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(texts(s.Entries)).To(Equal([]string{"MARMALADE"}))
		Expect(positions(s.Entries)).To(Equal([]string{"2.1"}))

		// seedLength 3 ends inside the packed row, at the logical event
		// "K": the seed check counts logical events too.
		_, err = fakellm.Derive(strings.NewReader(strings.Replace(log, `"seedLength":6`, `"seedLength":3`, 1)), "c.jsonl", fakellm.DeriveOptions{})
		Expect(err).To(MatchError(session.ErrSeedBoundary))
		Expect(err.Error()).To(HavePrefix("c.jsonl:1: "))
		Expect(err.Error()).To(ContainSubstring("ends the seed at seq 2 (assistant/chunk)"))
	})

	Describe("the seed slice", func() {
		// A fork child inherits its parent's completed turn, whose answer
		// "OK" is an assistant/chunk in the child's seed.
		parent := func() *builder { return rootLog("p").turn(1, "remember MARMALADE; say OK", "OK") }
		forkChild := func() *session.Log {
			p := parent()
			return childLog("session.1.jsonl", "c", p, "call_1", session.ModeFork).seedFrom(p).
				turn(2, "what was the codeword?", "MARMALADE").log()
		}

		It("gives the child its own answer and not the parent's, and deriving from the whole log would not", func() {
			child := forkChild()
			Expect(child.Header.SeedLength).To(BeNumerically(">", 0))
			Expect(seedText(child)).To(Equal("OK"), "the seed holds the parent's answer")

			s, err := deriveBoth(child, fakellm.DeriveOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(texts(s.Entries)).To(Equal([]string{"MARMALADE"}))

			// Red without the slice: the same log derived whole hands the
			// parent's inherited "OK" to the child's first call.
			whole, err := deriveBoth(child, fakellm.DeriveOptions{IgnoreSeed: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(texts(whole.Entries)).To(Equal([]string{"OK", "MARMALADE"}))
			Expect(texts(whole.Entries)[0]).NotTo(Equal(texts(s.Entries)[0]))
		})

		It("makes the replayed child answer with its own words, and a whole-log deriver would not", func() {
			p := parent()
			child := childLog("session.1.jsonl", "c", p, "call_1", session.ModeFork).seedFrom(p).
				turn(2, "what was the codeword?", "MARMALADE").log()
			logs := []*session.Log{p.log(), child}
			replay := func(opts ...fakellm.Option) string {
				drv, err := fakellm.New(logs, opts...)
				Expect(err).NotTo(HaveOccurred())
				Expect(say(drv, liveRoot("L"), 1, 1)).To(Equal("OK"))
				return say(drv, liveChild("L/c", "L", "call_1", session.ModeFork), 2, 1)
			}
			Expect(replay()).To(Equal("MARMALADE"))

			broken := fakellm.WithDeriver(func(l *session.Log) (*fakellm.Script, error) {
				return fakellm.DeriveLog(l, fakellm.DeriveOptions{IgnoreSeed: true})
			})
			drv, err := fakellm.New(logs, broken)
			Expect(err).NotTo(HaveOccurred())
			Expect(say(drv, liveRoot("L"), 1, 1)).To(Equal("OK"))
			// The whole-log script of the child starts with the parent's
			// turn 1; the path check stops it at the child's first call.
			_, err = call(drv, liveChild("L/c", "L", "call_1", session.ModeFork), 2, 1)
			Expect(err).To(MatchError(fakellm.ErrPathMismatch))
			Expect(err.Error()).To(ContainSubstring("live call at turn 2 step 1, the recording's next call (1 of 2) was at turn 1 step 1"))
		})
	})

	DescribeTable("logs it cannot derive",
		func(l *session.Log, opts fakellm.DeriveOptions, sentinel error, wantMsg ...string) {
			_, err := deriveBoth(l, opts)
			Expect(err).To(HaveOccurred())
			if sentinel != nil {
				Expect(err).To(MatchError(sentinel))
			}
			for _, m := range wantMsg {
				Expect(err.Error()).To(ContainSubstring(m))
			}
		},
		Entry("a call cut off at the end of the log names session, turn and step",
			rootLog("r").turn(1, "hi", "one").chunks(2, 3, 0, answer("cut")[:2]...).log(), fakellm.DeriveOptions{},
			fakellm.ErrIncompleteCall, "session.jsonl", "session r, turn 2 step 3: 2 chunks and no finish", "--drop-incomplete"),
		Entry("a call without a finish followed by another call",
			rootLog("r").chunks(1, 1, 1, answer("cut")[:2]...).chunks(1, 1, 2, answer("ok")...).log(), fakellm.DeriveOptions{},
			fakellm.ErrIncompleteCall, "session r, turn 1 step 1 attempt 1: 2 chunks and no finish"),
		Entry("a chunk after the finish of a numbered attempt",
			rootLog("r").chunks(1, 1, 1, answer("ok")...).chunks(1, 1, 1, answer("more")...).log(), fakellm.DeriveOptions{},
			fakellm.ErrContract, "turn 1 step 1 attempt 1, assistant/chunk seq 4: a chunk after the call's finish"),
		Entry("a seedLength past the end",
			func() *session.Log { l := rootLog("r").turn(1, "hi", "one").log(); l.Header.SeedLength = 99; return l }(), fakellm.DeriveOptions{},
			session.ErrSeedPastEnd, "seedLength is 99"),
		Entry("an assistant/chunk without a chunk",
			rootLog("r").ev(session.TypeAssistantChunk, map[string]int{"turn": 1, "step": 1}).log(), fakellm.DeriveOptions{},
			nil, "assistant/chunk seq 0", `has no "chunk"`),
		Entry("an unknown attempt mode",
			rootLog("r").log(), fakellm.DeriveOptions{Attempts: "some"},
			nil, `unknown attempt mode "some"`),
	)

	It("drops incomplete calls only when asked, and says which", func() {
		l := rootLog("r").chunks(1, 1, 1, answer("cut")[:3]...).chunks(1, 1, 2, answer("ok")...).
			chunks(1, 2, 1, answer("tail")[:1]...).log()
		s, err := deriveBoth(l, fakellm.DeriveOptions{DropIncomplete: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(texts(s.Entries)).To(Equal([]string{"ok"}))
		Expect(s.Dropped).To(Equal([]fakellm.Dropped{{Turn: 1, Step: 1, Attempt: 1, Chunks: 3}, {Turn: 1, Step: 2, Attempt: 1, Chunks: 1}}))
	})

	It("names the file and line of a broken log", func() {
		_, err := fakellm.Derive(strings.NewReader(`{"type":"session","version":0,"id":"r","createdAt":1}`+"\n{\"type\":\n{}\n"), "broken.jsonl", fakellm.DeriveOptions{})
		Expect(err).To(MatchError(session.ErrBrokenLine))
		Expect(err.Error()).To(HavePrefix("broken.jsonl:2: "))
	})

	It("reads a file read-only through DeriveFile", func() {
		l := rootLog("r").turn(1, "hi", "one").log()
		dir := writeFixture(l)
		s, err := fakellm.DeriveFile(dir+"/session.jsonl", fakellm.DeriveOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Header.ID).To(Equal("r"))
		Expect(texts(s.Entries)).To(Equal([]string{"one"}))
		_, err = fakellm.DeriveFile(dir+"/missing.jsonl", fakellm.DeriveOptions{})
		Expect(err).To(MatchError(ContainSubstring("missing.jsonl")))
	})
})

var _ = Describe("a log with a torn last line", func() {
	torn := `{"type":"session","version":0,"id":"s","createdAt":1}
{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}
{"type":"assistant/chunk","seq":1,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"hi"}}}
{"type":"assistant/chunk","seq":2,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}
{"type":"turn/end","seq":3,"ti`

	It("is refused, naming the file and line, never skipped silently", func() {
		_, err := fakellm.Derive(strings.NewReader(torn), "torn.jsonl", fakellm.DeriveOptions{})
		Expect(err).To(MatchError(fakellm.ErrTornLog))
		Expect(err.Error()).To(HavePrefix("fakellm: derive torn.jsonl:5: torn log: the last line is incomplete"))
		l, rerr := session.Read(strings.NewReader(torn), "torn.jsonl")
		Expect(rerr).NotTo(HaveOccurred())
		_, err = fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		Expect(err).To(MatchError(fakellm.ErrTornLog))
	})

	It("is skipped, and reported in the script, with DropIncomplete", func() {
		sc, err := fakellm.Derive(strings.NewReader(torn), "torn.jsonl", fakellm.DeriveOptions{DropIncomplete: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Entries).To(HaveLen(1))
		Expect(sc.Torn).NotTo(BeNil())
		Expect(sc.Torn.Line).To(Equal(5))
	})
})
