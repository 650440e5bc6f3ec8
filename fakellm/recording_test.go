package fakellm_test

import (
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// replayTree replays the whole of tree() on drv with live ids from prefix,
// and returns the answers in call order.
func replayTree(drv llm.Driver, prefix string) []string {
	GinkgoHelper()
	root := liveRoot(prefix + "-root")
	spawn := liveChild(prefix+"-a", root.ID, "call_1", session.ModeSpawn)
	fork := liveChild(prefix+"-b", root.ID, "call_2", session.ModeFork)
	grand := llm.SessionRef{ID: prefix + "-g", ParentID: spawn.ID, ParentCallID: "call_9", Mode: session.ModeSpawn, Depth: 2}
	return []string{
		say(drv, root, 1, 1), say(drv, root, 2, 1),
		say(drv, spawn, 1, 1), say(drv, grand, 1, 1),
		say(drv, fork, 3, 1), say(drv, fork, 3, 2),
		say(drv, root, 2, 2),
	}
}

var _ = Describe("Recording: scripts derived once, for many drivers", func() {
	whole := []string{"OK", "delegating", "ALPHA", "GAMMA", "BETA", "BETA2", "DONE"}

	It("derives each log once, however many drivers replay it", func() {
		var derived atomic.Int32
		rec, err := fakellm.Prepare(tree(), fakellm.WithDeriver(func(l *session.Log) (*fakellm.Script, error) {
			derived.Add(1)
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		}))
		Expect(err).NotTo(HaveOccurred())
		Expect(derived.Load()).To(BeEquivalentTo(4))
		for range 3 {
			drv, err := rec.Driver()
			Expect(err).NotTo(HaveOccurred())
			Expect(replayTree(drv, "live")).To(Equal(whole))
			Expect(drv.Check()).To(Succeed())
		}
		Expect(derived.Load()).To(BeEquivalentTo(4), "a driver derived again")
	})

	It("gives every driver the recording from its start: nothing one replay binds or consumes is left for the next", func() {
		rec, err := fakellm.Prepare(tree())
		Expect(err).NotTo(HaveOccurred())
		first, err := rec.Driver()
		Expect(err).NotTo(HaveOccurred())
		// The first replay stops after two root calls and a child's call.
		Expect(say(first, liveRoot("one-root"), 1, 1)).To(Equal("OK"))
		Expect(say(first, liveRoot("one-root"), 2, 1)).To(Equal("delegating"))
		Expect(say(first, liveChild("one-a", "one-root", "call_1", session.ModeSpawn), 1, 1)).To(Equal("ALPHA"))

		// The next, with other live ids, replays the whole tree.
		second, err := rec.Driver()
		Expect(err).NotTo(HaveOccurred())
		Expect(replayTree(second, "two")).To(Equal(whole))
		Expect(second.Check()).To(Succeed())
		// And the first is still where it stopped: its check names what it
		// did not replay, and it goes on from there.
		Expect(first.Check()).To(MatchError(ContainSubstring("not consumed")))
		Expect(say(first, liveRoot("one-root"), 2, 2)).To(Equal("DONE"))
	})

	It("lets drivers of one recording replay at the same time", func() {
		rec, err := fakellm.Prepare(tree())
		Expect(err).NotTo(HaveOccurred())
		var wg sync.WaitGroup
		answers := make([][]string, 4)
		for i := range answers {
			drv, err := rec.Driver()
			Expect(err).NotTo(HaveOccurred())
			wg.Go(func() {
				defer GinkgoRecover()
				answers[i] = replayTree(drv, "live")
				Expect(drv.Check()).To(Succeed())
			})
		}
		wg.Wait()
		for _, a := range answers {
			Expect(a).To(Equal(whole))
		}
	})

	It("applies the override once, and every driver replays it", func() {
		ov, err := fakellm.ParseOverride([]byte(`{"session.jsonl": {"patch": {"0": {"kind": "chunks", "chunks": [
			{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"PATCHED"},
			{"type":"block-end","index":0,"block":{"type":"text","text":"PATCHED"}},{"type":"finish","reason":{"kind":"stop"}}]}}}}`), "replay.override.json")
		Expect(err).NotTo(HaveOccurred())
		rec, err := fakellm.Prepare(tree(), fakellm.WithOverride(ov))
		Expect(err).NotTo(HaveOccurred())
		for range 2 {
			drv, err := rec.Driver()
			Expect(err).NotTo(HaveOccurred())
			Expect(say(drv, liveRoot("live-root"), 1, 1)).To(Equal("PATCHED"))
		}
		Expect(rec.Scripts()[0].Entries).To(HaveLen(3), "a patch replaces an entry, adds none")
	})

	DescribeTable("refuses a derivation option on a driver of a recording derived already",
		func(opt fakellm.Option, name string) {
			rec, err := fakellm.Prepare(tree())
			Expect(err).NotTo(HaveOccurred())
			_, err = rec.Driver(opt)
			Expect(err).To(MatchError(ContainSubstring(name + " is a derivation option; pass it to Prepare")))
		},
		Entry("an override", fakellm.WithOverride(&fakellm.Override{}), "WithOverride"),
		Entry("a deriver", fakellm.WithDeriver(func(*session.Log) (*fakellm.Script, error) { return nil, nil }), "WithDeriver"),
		Entry("attempts", fakellm.WithAttempts(fakellm.AttemptsActedOn), "WithAttempts"),
		Entry("derive options", fakellm.WithDeriveOptions(fakellm.DeriveOptions{}), "WithDeriveOptions"),
	)
})
