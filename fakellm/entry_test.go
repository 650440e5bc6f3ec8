package fakellm_test

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// authored builds a driver whose root replays entries (no path check).
func authored(entries []fakellm.Entry, opts ...fakellm.Option) *fakellm.Driver {
	GinkgoHelper()
	ov := &fakellm.Override{Path: "test override", Sessions: map[string]fakellm.SessionOverride{"session.jsonl": {Replace: entries}}}
	drv, err := fakellm.New([]*session.Log{rootLog("r").log()}, append(opts, fakellm.WithOverride(ov))...)
	Expect(err).NotTo(HaveOccurred())
	return drv
}

var prefix = []session.Chunk{{Type: session.ChunkBlockStart, BlockType: session.BlockText}, {Type: session.ChunkTextDelta, Text: "partial"}}

var _ = Describe("Entries", func() {
	It("throw replays its prefix, then an error finish with its code", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindThrow, Chunks: prefix, Code: "RATE_LIMIT", Message: "slow down"}})
		cs, err := call(drv, lRoot, 1, 1)
		Expect(err).NotTo(HaveOccurred())
		Expect(cs).To(Equal(append(prefix[:2:2], session.ErrorFinish("RATE_LIMIT", "slow down"))))
		Expect(drv.Check()).To(Succeed())
	})

	It("hang replays its prefix and blocks until the context is cancelled, then ends aborted", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindHang, Chunks: prefix}})
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		got := make(chan session.Chunk, 10)
		go func() {
			defer GinkgoRecover()
			cs, err := callCtx(ctx, drv, lRoot, 1, 1)
			Expect(err).NotTo(HaveOccurred())
			for _, c := range cs {
				got <- c
			}
			close(got)
		}()
		Consistently(got, "50ms").ShouldNot(Receive(), "the call hangs while its context lives")
		cancel()
		Eventually(got).Should(Receive(Equal(prefix[0])))
		Eventually(got).Should(Receive(Equal(prefix[1])))
		Eventually(got).Should(Receive(Equal(session.Finish(session.FinishAborted))))
		Eventually(got).Should(BeClosed())
	})

	It("paces chunks and stops waiting at once when the context is cancelled", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindChunks, Chunks: answer("a b c")}}, fakellm.WithPace(time.Hour))
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		seq, err := drv.Stream(ctx, &llm.Request{Session: lRoot, Turn: 1, Step: 1})
		Expect(err).NotTo(HaveOccurred())
		var got []session.Chunk
		for c := range seq {
			got = append(got, c)
			cancel() // after the first chunk; the hour-long pause must end now
		}
		Expect(got).To(Equal([]session.Chunk{answer("a b c")[0], session.Finish(session.FinishAborted)}))
	})

	It("paces a whole stream without changing it", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindChunks, Chunks: answer("a b c")}}, fakellm.WithPace(time.Microsecond))
		cs, err := call(drv, lRoot, 1, 1)
		Expect(err).NotTo(HaveOccurred())
		Expect(cs).To(Equal(answer("a b c")))
	})

	It("stops when the consumer stops", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindHang, Chunks: prefix}})
		seq, err := drv.Stream(context.Background(), &llm.Request{Session: lRoot, Turn: 1, Step: 1})
		Expect(err).NotTo(HaveOccurred())
		for range seq {
			break // a hang entry must not block a consumer that has stopped
		}
	})

	It("round-trips through the sidecar shape", func() {
		entries := []fakellm.Entry{
			{Kind: fakellm.KindChunks, Turn: 1, Step: 2, Attempt: 1, Chunks: answer("hi <b>")},
			{Kind: fakellm.KindThrow, Chunks: prefix, Code: "SERVER", Message: "boom"},
			{Kind: fakellm.KindHang, Chunks: []session.Chunk{}},
		}
		b := fakellm.MarshalScript(entries)
		Expect(string(b)).To(ContainSubstring(`"text": "hi <b>"`), "no HTML escaping")
		var back []fakellm.Entry
		Expect(json.Unmarshal(b, &back)).To(Succeed())
		Expect(back).To(Equal(entries))
	})

	It("prints a script as a two-space indented array", func() {
		b := fakellm.MarshalScript([]fakellm.Entry{{Kind: fakellm.KindChunks, Turn: 1, Step: 1, Chunks: []session.Chunk{session.Finish("stop")}}})
		Expect(string(b)).To(Equal(`[
  {
    "kind": "chunks",
    "turn": 1,
    "step": 1,
    "chunks": [
      {
        "type": "finish",
        "reason": {
          "kind": "stop"
        }
      }
    ]
  }
]
`))
		Expect(string(fakellm.MarshalScript(nil))).To(Equal("[]\n"))
	})

	DescribeTable("invalid entries",
		func(text, want string) {
			var e fakellm.Entry
			err := json.Unmarshal([]byte(text), &e)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("unknown kind", `{"kind":"explode","chunks":[]}`, `unknown entry kind "explode" (want "chunks", "throw" or "hang")`),
		Entry("no kind", `{"chunks":[]}`, `the entry has no "kind"`),
		Entry("unknown key", `{"kind":"hang","chunks":[],"delay":3}`, `entry member "delay": unknown key`),
		Entry("chunks without a finish", `{"kind":"chunks","chunks":[{"type":"text-delta","index":0,"text":"x"}]}`, `must end with exactly one finish chunk (it has 1 chunks, 0 finish)`),
		Entry("a finish in a throw prefix", `{"kind":"throw","code":"X","chunks":[{"type":"finish","reason":{"kind":"stop"}}]}`, `must not hold a finish chunk`),
		Entry("a throw without a code", `{"kind":"throw","chunks":[]}`, `a "throw" entry needs a "code"`),
		Entry("a code on a chunks entry", `{"kind":"chunks","code":"X","chunks":[{"type":"finish","reason":{"kind":"stop"}}]}`, `only a "throw" entry has a code`),
		Entry("an unknown chunk type", `{"kind":"hang","chunks":[{"type":"sparkle"}]}`, `chunk 0 has unknown type "sparkle"`),
		Entry("a chunk without a type", `{"kind":"hang","chunks":[{"text":"x"}]}`, `chunk has no "type"`),
		Entry("not an object", `[1]`, `an entry must be a JSON object`),
	)
})
