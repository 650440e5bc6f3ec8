package fakellm_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
)

// heapMetric is the heap in use: live objects and dead ones the collector
// has not freed yet.
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapInUse reads heapMetric.
func heapInUse() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakReader samples the heap in use before every Read of the log it
// wraps. Derivation streams, so the heap can only grow between two reads
// of its input by what one buffer of log lines makes; sampling there sees
// the peak without a polling goroutine.
type peakReader struct {
	r    io.Reader
	peak uint64
}

func (p *peakReader) Read(b []byte) (int, error) {
	p.observe()
	return p.r.Read(b)
}

func (p *peakReader) observe() { p.peak = max(p.peak, heapInUse()) }

// deriveMemory is what deriving a log costs in memory, above the heap in use
// before it started.
type deriveMemory struct {
	logBytes    int64
	peak        uint64 // the most heap in use while deriving
	script      uint64 // the heap the derived script keeps, after a collection
	scriptJSON  int    // the size of the script's compact JSON encoding
	chunks, gcs int
}

// ratio is the peak over the script's heap.
func (m deriveMemory) ratio() float64 { return float64(m.peak) / float64(m.script) }

// measureDerive derives the log at path with the collector's target set to
// gcPercent (restored after) and measures the heap. The script's heap is
// measured after a forced collection, with the script still reachable.
func measureDerive(path string, gcPercent int) (deriveMemory, error) {
	var m deriveMemory
	info, err := os.Stat(path)
	if err != nil {
		return m, err
	}
	m.logBytes = info.Size()
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	f, err := os.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	base := heapInUse()
	pr := &peakReader{r: f, peak: base}
	s, err := fakellm.Derive(pr, path, fakellm.DeriveOptions{})
	if err != nil {
		return m, err
	}
	pr.observe()
	runtime.ReadMemStats(&after)
	runtime.GC()
	m.script = heapInUse() - base
	m.peak = pr.peak - base
	m.gcs = int(after.NumGC - before.NumGC)
	var buf []byte
	for i := range s.Entries {
		buf = s.Entries[i].AppendJSON(buf[:0])
		m.scriptJSON += len(buf) + 1
		m.chunks += len(s.Entries[i].Chunks)
	}
	runtime.KeepAlive(s)
	return m, nil
}

// BenchmarkDeriveMemory derives a generated log of 200 MB or more (the
// generator of BenchmarkDerive) and reports the peak heap in use over the
// heap the derived script keeps, peak/script; the issue asks for 2 or less.
// "gogc=100" is the default collector target, whose peak includes the
// garbage the collector lets build up (up to the live heap again) before it
// runs; "gogc=10" keeps that headroom to a tenth, so its peak is close to
// the most memory derivation holds live at once.
//
//	go test -run '^$' -bench BenchmarkDeriveMemory -benchtime 1x ./fakellm
func BenchmarkDeriveMemory(b *testing.B) {
	path := filepath.Join(b.TempDir(), "session.1.jsonl")
	if _, _, err := writeBenchLog(path, 200<<20); err != nil {
		b.Fatal(err)
	}
	for _, gc := range []int{100, 10} {
		b.Run("gogc="+strconv.Itoa(gc), func(b *testing.B) {
			var m deriveMemory
			for b.Loop() {
				var err error
				if m, err = measureDerive(path, gc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(m.ratio(), "peak/script")
			b.ReportMetric(float64(m.peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(m.script)/(1<<20), "script-MiB")
			b.ReportMetric(float64(m.scriptJSON)/(1<<20), "script-JSON-MiB")
			b.ReportMetric(float64(m.logBytes)/(1<<20), "log-MiB")
			b.ReportMetric(float64(m.gcs), "GCs")
		})
	}
}

var _ = Describe("Derivation memory", Label("memory"), Serial, func() {
	// The benchmark measures a 200 MB log; 40 MB keeps this check to
	// seconds, even under -race. The collector's target is lowered so the
	// peak measures what derivation holds, not how late the collector runs.
	// Streaming derivation measures about 1.1 here; reading the whole log
	// first (session.Read, then DeriveLog) measures about 3.
	It("peaks at no more than twice the heap of the script it derives", func() {
		path := filepath.Join(GinkgoT().TempDir(), "session.1.jsonl")
		_, chunks, err := writeBenchLog(path, 40<<20)
		Expect(err).NotTo(HaveOccurred())
		m, err := measureDerive(path, 10)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.chunks).To(Equal(chunks), "the script holds every chunk after the seed")
		GinkgoWriter.Printf("log %d MiB: peak %.1f MiB, script %.1f MiB (JSON %.1f MiB), peak/script %.2f, %d GCs\n",
			m.logBytes>>20, float64(m.peak)/(1<<20), float64(m.script)/(1<<20), float64(m.scriptJSON)/(1<<20), m.ratio(), m.gcs)
		Expect(m.script).To(BeNumerically(">", 0))
		Expect(m.ratio()).To(BeNumerically("<=", 2.0), "peak %d bytes, script %d bytes", m.peak, m.script)
	})
})
