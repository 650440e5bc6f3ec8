package main

import (
	"runtime/debug"

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
