package readfile_test

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/readfile"
)

var _ = Describe("Read", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		Expect(os.WriteFile(p, b, 0o644)).To(Succeed())
		return p
	}

	// Sizes around the buffer's one byte of room and its steps of 512.
	DescribeTable("returns what os.ReadFile returns",
		func(size int) {
			b := make([]byte, size)
			rng := rand.New(rand.NewPCG(uint64(size), 7))
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			p := write("f", b)
			got, err := readfile.Read(p)
			Expect(err).NotTo(HaveOccurred())
			want, _ := os.ReadFile(p)
			Expect(got).To(Equal(want))
			Expect(cap(got)).To(Equal(cap(slices.Grow([]byte(nil), max(size+1, 512)))), "grown once, to the file's size and a byte, or os.ReadFile's least")
		},
		Entry("empty", 0), Entry("one byte", 1), Entry("511", 511), Entry("512", 512),
		Entry("513", 513), Entry("a page", 4096), Entry("a MiB and one", 1<<20+1))

	It("appends to the buffer it is given, keeping what it held", func() {
		p := write("f", []byte("world\n"))
		buf := append(make([]byte, 0, 2), "hello "...)
		got, err := readfile.Append(buf, p)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("hello world\n"))
		again, err := readfile.Append(got[:0], p)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(again)).To(Equal("world\n"))
		Expect(&again[0]).To(BeIdenticalTo(&got[0]), "a buffer large enough is reused")
	})

	It("fails as os.ReadFile fails on a missing file: a *fs.PathError naming it", func() {
		p := filepath.Join(dir, "missing.json")
		_, err := readfile.Read(p)
		Expect(errors.Is(err, fs.ErrNotExist)).To(BeTrue())
		var pe *fs.PathError
		Expect(errors.As(err, &pe)).To(BeTrue())
		Expect(pe.Op).To(Equal("open"))
		Expect(pe.Path).To(Equal(p))
		_, want := os.ReadFile(p)
		Expect(err.Error()).To(Equal(want.Error()))
	})

	It("fails as os.ReadFile fails on a folder", func() {
		_, err := readfile.Read(dir)
		_, want := os.ReadFile(dir)
		Expect(want).To(HaveOccurred())
		Expect(err).To(MatchError(want.Error()))
	})
})
