package readfile_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/readfile"
)

// fakeFile reads as read(2) reads a file: at most step bytes a call (0:
// as many as asked), 0 bytes and no error at the end; it counts its calls.
type fakeFile struct {
	data  []byte
	step  int
	reads int
}

func (f *fakeFile) Read(p []byte) (int, error) {
	f.reads++
	n := len(p)
	if f.step > 0 {
		n = min(n, f.step)
	}
	n = copy(p, f.data[:min(n, len(f.data))])
	f.data = f.data[n:]
	return n, nil
}

var _ = Describe("a regular file's reads", func() {
	DescribeTable("end at the size its stat gave only when a read ends there",
		func(content string, size int64, step, wantReads int) {
			f := &fakeFile{data: []byte(content), step: step}
			got, err := readfile.AppendRegular([]byte("<"), f, size)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal("<"+content), "everything the file holds, after what the buffer held")
			Expect(f.reads).To(Equal(wantReads))
		},
		Entry("a file of its stat's size: one read, no read of its end", "hello world", int64(11), 0, 1),
		Entry("a file its stat says is larger than 512", string(bytes.Repeat([]byte("x"), 700)), int64(700), 0, 1),
		Entry("a short read before the size reads on", "hello world", int64(11), 4, 3),
		Entry("a file grown past its stat's size reads to its end", "hello world!!", int64(11), 0, 2),
		// Past minRead the first read's room is the size and one byte,
		// which alone shows the file grew: "<" and 4095 bytes fill a
		// 4096-byte allocation, so no rounding up gives that room instead.
		Entry("a file grown past a stat's size above 512 reads to its end", string(bytes.Repeat([]byte("x"), 4096)), int64(4095), 0, 2),
		Entry("a size of 0, as /proc's files claim, reads to the end", "proc", int64(0), 0, 2),
	)
})
