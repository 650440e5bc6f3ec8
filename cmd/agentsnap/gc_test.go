package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("serve's collector while it loads", func() {
	It("collects only at the loading heap, and gives the collector its settings back, once", func() {
		gc, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
		debug.SetGCPercent(gc)
		DeferCleanup(func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) })
		debug.SetMemoryLimit(1 << 40)

		restore := collectAt(64 << 20)
		Expect(debug.SetMemoryLimit(-1)).To(BeEquivalentTo(64 << 20))
		now := debug.SetGCPercent(-1)
		Expect(now).To(Equal(-1), "the collector still runs at every doubling")
		restore()
		Expect(debug.SetGCPercent(gc)).To(Equal(gc))
		Expect(debug.SetMemoryLimit(-1)).To(BeEquivalentTo(1 << 40))
		debug.SetGCPercent(50) // a later change is the caller's, which a second call must not undo
		restore()
		Expect(debug.SetGCPercent(gc)).To(Equal(50))

		debug.SetMemoryLimit(32 << 20) // GOMEMLIMIT lower than the loading heap is kept
		restore = collectAt(64 << 20)
		Expect(debug.SetMemoryLimit(-1)).To(BeEquivalentTo(32 << 20))
		restore()
	})
})

var _ = Describe("serve's collector for the verdict", func() {
	It("keeps the heap within the memory serve holds once it stopped serving, and gives the limit back, once", func() {
		limit := debug.SetMemoryLimit(-1)
		DeferCleanup(func() { debug.SetMemoryLimit(limit) })
		debug.SetMemoryLimit(1 << 50)

		restore := holdMemory()
		held := debug.SetMemoryLimit(-1)
		Expect(held).To(BeNumerically(">", 0))
		Expect(held).To(BeNumerically("<", 1<<40), "the memory this process holds, not the limit before")
		restore()
		Expect(debug.SetMemoryLimit(-1)).To(BeEquivalentTo(1 << 50))
		debug.SetMemoryLimit(1 << 45) // a later change is the caller's, which a second call must not undo
		restore()
		Expect(debug.SetMemoryLimit(-1)).To(BeEquivalentTo(1 << 45))

		debug.SetMemoryLimit(1 << 20) // GOMEMLIMIT lower than what serve holds is kept
		restore = holdMemory()
		Expect(debug.SetMemoryLimit(-1)).To(BeEquivalentTo(1 << 20))
		restore()
	})
})

// gcPercent is the collector's GOGC now.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

var _ = Describe("check's first collection", func() {
	noEnv := func(string) string { return "" }

	BeforeEach(func() {
		gc := debug.SetGCPercent(100)
		DeferCleanup(func() { debug.SetGCPercent(gc) })
	})

	It("waits for a heap of about 64 MiB, then the collector keeps its own pace", func() {
		runtime.GC() // the live heap is what the process holds
		restore := startingHeap(noEnv, 64<<20)
		DeferCleanup(restore)
		// The goal is the live heap (at least 4 MiB) times 1+GOGC/100.
		ss := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(ss)
		goal := max(ss[0].Value.Uint64(), 4<<20) * uint64(100+gcPercent()) / 100
		Expect(goal).To(BeNumerically("~", 64<<20, 1<<20), "the first goal is not about 64 MiB")
		runtime.GC()
		Eventually(gcPercent).Should(Equal(100), "the pace is not given back after the first collection")
		restore()
		Expect(gcPercent()).To(Equal(100))
	})

	It("gives the pace back when the check ends, and keeps a caller's later change", func() {
		restore := startingHeap(noEnv, 64<<20)
		Expect(gcPercent()).To(BeNumerically(">", 100))
		restore()
		Expect(gcPercent()).To(Equal(100))
		debug.SetGCPercent(50)
		restore()
		Expect(gcPercent()).To(Equal(50))
	})

	It("shares the raise between checks that overlap in one process", func() {
		first := startingHeap(noEnv, 64<<20)
		raisedTo := gcPercent()
		second := startingHeap(noEnv, 64<<20)
		Expect(gcPercent()).To(Equal(raisedTo))
		first()
		Expect(gcPercent()).To(Equal(raisedTo), "the pace came back while a check still runs")
		second()
		Expect(gcPercent()).To(Equal(100), "the raise outlived the last check")
	})

	It("leaves a GOGC the user set alone", func() {
		restore := startingHeap(func(k string) string { return map[string]string{"GOGC": "200"}[k] }, 64<<20)
		Expect(gcPercent()).To(Equal(100))
		restore()
		Expect(gcPercent()).To(Equal(100))
	})
})
