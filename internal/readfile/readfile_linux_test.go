package readfile_test

import (
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/readfile"
)

var _ = Describe("Read of Linux's special files", func() {
	It("reads a /proc/sys file whole, whose size claims 0 and which fills only the first read", func() {
		const p = "/proc/sys/kernel/sem" // "32000\t1024000000\t500\t32000\n": four numbers, longer than a small first read
		want, err := os.ReadFile(p)
		if err != nil {
			Skip("no " + p + " here: " + err.Error())
		}
		Expect(len(want)).To(BeNumerically(">", 8))
		got, err := readfile.Read(p)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(string(want)))
	})
})
