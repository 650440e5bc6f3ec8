package conformance_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "conformance")
}

// The kit keeps its temporary folder when a rule is broken, to look at, and
// these specs break rules on purpose: each must give the kit a folder of
// its own (Config.Dir: GinkgoT().TempDir()) or remove the one kept. The
// suite runs with a temporary folder of its own and fails when one is
// left there, rather than leave it in the machine's.
var suiteTmp, machineTmp string

var _ = BeforeSuite(func() {
	machineTmp = os.Getenv("TMPDIR")
	var err error
	suiteTmp, err = os.MkdirTemp("", "conformance-suite-")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.Setenv("TMPDIR", suiteTmp)).To(Succeed())
})

var _ = AfterSuite(func() {
	Expect(os.Setenv("TMPDIR", machineTmp)).To(Succeed())
	left, err := filepath.Glob(filepath.Join(suiteTmp, "agentsnap-conformance-*"))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.RemoveAll(suiteTmp)).To(Succeed())
	Expect(left).To(BeEmpty(), "a spec left the kit's folder behind: give the kit Config.Dir: GinkgoT().TempDir(), or remove Result.Dir")
})
