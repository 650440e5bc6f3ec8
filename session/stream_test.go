package session_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("reading a large log", Ordered, func() {
	const size = 20 << 20
	var path string
	var events int64

	BeforeAll(func() {
		path = filepath.Join(GinkgoT().TempDir(), "big.jsonl")
		var err error
		events, _, err = generateLogFile(path, size, true)
		Expect(err).NotTo(HaveOccurred())
		// A tight GC target keeps the heap close to what is live, so the
		// peak measures what the reader holds rather than GC pacing slack.
		old := debug.SetGCPercent(10)
		DeferCleanup(debug.SetGCPercent, old)
	})

	// heapAlloc returns the bytes of live heap after a full collection.
	heapAlloc := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}

	It("streams: the heap stays far below the file size when events are not kept", func() {
		f, err := os.Open(path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(f.Close)
		base := heapAlloc()
		peak := base
		var ms runtime.MemStats
		r := session.NewReader(f, path)
		var n int64
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred())
			if n++; n%2000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		Expect(n).To(Equal(events))
		Expect(n).To(BeNumerically(">", 100_000), "enough samples to see growth")
		GinkgoWriter.Printf("heap growth while streaming %d MB: %d KB\n", size>>20, (peak-base)>>10)
		Expect(peak - base).To(BeNumerically("<", size/8))
	})

	It("is able to see growth: keeping every event holds about the file's size", func() {
		base := heapAlloc()
		l, err := session.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		held := heapAlloc() - base
		GinkgoWriter.Printf("heap held by %d kept events: %d KB\n", len(l.Events), held>>10)
		Expect(held).To(BeNumerically(">", size/2))
		runtime.KeepAlive(l)
	})
})
